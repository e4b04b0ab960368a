import type { ThemePreference } from "@/lib/preferences";

/**
 * Applies a theme preference to <html> the same way the head script does on load. The head script's
 * prefers-color-scheme listener reads data-theme-preference, so it keeps following the OS only while
 * the preference is "system".
 */
export function applyTheme(preference: ThemePreference): void {
  const root = document.documentElement;
  const dark =
    preference === "dark" || (preference === "system" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  root.setAttribute("data-theme-preference", preference);
  root.classList.toggle("dark", dark);
  root.style.colorScheme = dark ? "dark" : "light";
}
