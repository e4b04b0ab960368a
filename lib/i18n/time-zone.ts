import { isValidTimeZone, parseTimeMode, TIME_MODE_COOKIE, TIME_ZONE_COOKIE } from "@/lib/preferences";

interface CookieReader {
  get(name: string): { value: string } | undefined;
}

/**
 * The IANA zone times are rendered in. "Local" means the browser's zone, which the browser reports in
 * a cookie (the toggle and the head script keep it current); without a usable one, UTC.
 */
export function resolveTimeZone(cookies: CookieReader): string {
  if (parseTimeMode(cookies.get(TIME_MODE_COOKIE)?.value) === "utc") return "UTC";
  const zone = cookies.get(TIME_ZONE_COOKIE)?.value;
  return isValidTimeZone(zone) ? zone : "UTC";
}
