"use client";

import { createContext, useContext } from "react";
import type { ReactNode } from "react";

const ViewOwner = createContext<string | null>(null);

/**
 * Who the browser-kept preferences belong to (the signed-in person's name, null without console
 * sign-in): saved views are stored per person (lib/saved-views/saved-views.ts).
 */
export function ViewOwnerProvider({ owner, children }: { owner: string | null; children: ReactNode }) {
  return <ViewOwner.Provider value={owner}>{children}</ViewOwner.Provider>;
}

export function useViewOwner(): string | null {
  return useContext(ViewOwner);
}
