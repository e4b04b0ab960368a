"use client";

import { useEffect } from "react";
import { markHydrated } from "@/components/hooks/hydrated-mark";

/**
 * Marks the page interactive for the head script (lib/preferences/head-script.ts): from here on a
 * script that fails to load is the screen's own error, not a page stuck before hydration.
 */
export function HydratedFlag() {
  useEffect(markHydrated, []);
  return null;
}
