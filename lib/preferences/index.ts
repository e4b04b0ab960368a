/**
 * Operator preferences live in plain cookies (not localStorage) so the server renders the first paint
 * with the right theme, locale, time zone and namespace — no flash, no second request.
 * Shared by server and browser code; nothing here is secret.
 */
export const THEME_COOKIE = "bw-theme";
export const TIME_MODE_COOKIE = "bw-time";
export const TIME_ZONE_COOKIE = "bw-tz";
/** The zone the operator picked by name ("zone" mode), apart from the browser's own in bw-tz. */
export const PICKED_ZONE_COOKIE = "bw-tz-pick";
export const NAMESPACE_COOKIE = "bw-namespace";
export const LOCALE_COOKIE = "bw-locale";

export const THEME_PREFERENCES = ["system", "light", "dark"] as const;
export type ThemePreference = (typeof THEME_PREFERENCES)[number];

/** UTC, the browser's zone, or any IANA zone picked by name (an operator in Lisbon reading a Tokyo fleet). */
export const TIME_MODES = ["utc", "local", "zone"] as const;
export type TimeMode = (typeof TIME_MODES)[number];

const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365;

export function parseThemePreference(value: string | null | undefined): ThemePreference {
  return (THEME_PREFERENCES as readonly string[]).includes(value ?? "") ? (value as ThemePreference) : "system";
}

/** UTC is the default: it matches server logs and reads the same for every operator on a call. */
export function parseTimeMode(value: string | null | undefined): TimeMode {
  return value === "local" || value === "zone" ? value : "utc";
}

/** Namespace names as the Durable Workflow server accepts them (stored lower-cased, max 128). */
const NAMESPACE_PATTERN = /^[a-zA-Z0-9._-]{1,128}$/;

export function parseNamespace(value: string | null | undefined): string | null {
  if (!value || !NAMESPACE_PATTERN.test(value)) return null;
  return value.toLowerCase();
}

export function isValidTimeZone(value: string | null | undefined): value is string {
  if (!value) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** A `document.cookie` assignment for a long-lived, same-site preference. */
export function preferenceCookie(name: string, value: string): string {
  return `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax`;
}
