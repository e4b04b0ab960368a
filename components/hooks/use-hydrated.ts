"use client";

import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False in the server render and while React hydrates it, true once the page is interactive (the
 * render after hydration). A control the server renders enabled does nothing before then: React
 * is not listening yet, so a click on it is lost. Since the run header and its actions come with
 * the page's shell (decision 0034), they paint ≈ 0.3–0.6 s before hydration ends on a long run.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
