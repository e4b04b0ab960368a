"use client";

import { useEffect, useEffectEvent } from "react";
import { markHydrated } from "@/components/hooks/hydrated-mark";

const ATTRIBUTE = "data-early-tab";

/**
 * Applies a tab click made before hydration (recorded by the head script, lib/preferences/head-script.ts)
 * and tells that script to stop recording: from here on React handles the clicks itself.
 */
export function useEarlyTab(accept: (value: string) => void): void {
  const onEarly = useEffectEvent(accept);
  useEffect(() => {
    markHydrated();
    const root = document.documentElement;
    const early = root.getAttribute(ATTRIBUTE);
    root.removeAttribute(ATTRIBUTE);
    if (early !== null) onEarly(early);
  }, []);
}

/** Props for a control whose early click `useEarlyTab` should apply. */
export function earlyTabProps(value: string): { [ATTRIBUTE]: string } {
  return { [ATTRIBUTE]: value };
}
