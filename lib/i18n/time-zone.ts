import {
  isValidTimeZone,
  parseTimeMode,
  PICKED_ZONE_COOKIE,
  TIME_MODE_COOKIE,
  TIME_ZONE_COOKIE,
} from "@/lib/preferences";

interface CookieReader {
  get(name: string): { value: string } | undefined;
}

/**
 * The IANA zone times are rendered in. "Local" means the browser's zone, which the browser reports in
 * a cookie (the toggle and the head script keep it current); "zone" the one the operator picked by
 * name; without a usable one, UTC. The server renders with it and hands it to the browser's
 * next-intl provider, so both sides format every time in the same zone (no hydration mismatch).
 */
export function resolveTimeZone(cookies: CookieReader): string {
  const mode = parseTimeMode(cookies.get(TIME_MODE_COOKIE)?.value);
  if (mode === "utc") return "UTC";
  const zone = cookies.get(mode === "zone" ? PICKED_ZONE_COOKIE : TIME_ZONE_COOKIE)?.value;
  return isValidTimeZone(zone) ? zone : "UTC";
}
