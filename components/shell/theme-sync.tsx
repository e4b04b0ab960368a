"use client";

import { useEffect } from "react";
import { parseThemePreference } from "@/lib/preferences";
import { applyTheme } from "@/components/shell/theme";

/**
 * Applies the theme once the page is interactive. The head script does it before paint, but a page
 * whose status went out as 404 before streaming is Next's error document, rendered by React in the
 * browser, where the layout's inline script never runs: without this a not-found page stayed light
 * in a dark OS.
 */
export function ThemeSync() {
  useEffect(() => applyTheme(parseThemePreference(document.documentElement.dataset.themePreference)), []);
  return null;
}
