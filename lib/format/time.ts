/**
 * Locale-aware date and duration formatting. Pure: callers pass the locale and the IANA time zone
 * (UTC or the operator's local zone), so the same input renders the same text on server and browser.
 */

/**
 * Parses the two ISO-8601 forms the Durable Workflow server emits (`…T12:00:00.000000Z` and
 * `…T12:00:00+00:00`), or epoch milliseconds. Fractions beyond milliseconds are truncated rather than
 * left to the engine's parser, which is not required to accept them. Returns null for anything else.
 */
export function parseTimestamp(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value === "number") return Number.isFinite(value) ? new Date(value) : null;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})$/i.exec(value.trim());
  const [, base, fraction = "", zone] = match ?? [];
  if (base === undefined || zone === undefined) return null;
  const millis = fraction.slice(0, 3).padEnd(3, "0");
  const offset = zone.toUpperCase() === "Z" ? "Z" : zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${base}.${millis}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Building an Intl formatter costs tens of microseconds, far more than formatting with it, and a
 * table of a few hundred rows formats a few thousand values; formatters are kept per options.
 */
const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d\u0000${locale}\u0000${JSON.stringify(options)}`;
  let f = formatters.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    if (formatters.size > 500) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}

export function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n\u0000${locale}\u0000${JSON.stringify(options)}`;
  let f = formatters.get(key) as Intl.NumberFormat | undefined;
  if (!f) {
    f = new Intl.NumberFormat(locale, options);
    if (formatters.size > 500) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}

/**
 * One clock for every time the console shows, in every locale: 24-hour. English defaults to a
 * 12-hour clock, so headers read "4:05:09 PM" beside tables reading "16:05:09"; operators compare
 * times across screens and with server logs, which are 24-hour (docs/decisions/0021).
 */
export const HOUR_CYCLE = "h23" as const;

export interface ZonedFormatOptions {
  locale: string;
  timeZone: string;
}

/** Date and time to the second, with the zone named so UTC and local times are never confused. */
export function formatDateTime(value: string | number | Date, { locale, timeZone }: ZonedFormatOptions): string {
  const date = parseTimestamp(value);
  if (!date) return String(value);
  return dateTimeFormat(locale, {
    timeZone,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: HOUR_CYCLE,
    timeZoneName: "short",
  }).format(date);
}

/** Time of day to the second, 24-hour, with the zone named unless `zoneName: false`. */
export function formatTime(
  value: string | number | Date,
  { locale, timeZone }: ZonedFormatOptions,
  { zoneName = true }: { zoneName?: boolean } = {},
): string {
  const date = parseTimestamp(value);
  if (!date) return String(value);
  return dateTimeFormat(locale, {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: HOUR_CYCLE,
    ...(zoneName ? { timeZoneName: "short" as const } : {}),
  }).format(date);
}

const DURATION_UNITS = [
  { unit: "day", ms: 86_400_000 },
  { unit: "hour", ms: 3_600_000 },
  { unit: "minute", ms: 60_000 },
  { unit: "second", ms: 1_000 },
] as const;

export interface DurationFormatOptions {
  /** How many units to show, largest first (default 2: "1h 5m", "3m 20s"). */
  maxUnits?: number;
}

/**
 * A duration in the locale's narrow unit style ("1h 5m", "1 Std., 5 Min."). Under a second it shows
 * milliseconds; the smallest shown unit is rounded down so a duration never reads longer than it was.
 */
export function formatDuration(
  milliseconds: number,
  locale: string,
  { maxUnits = 2 }: DurationFormatOptions = {},
): string {
  if (!Number.isFinite(milliseconds)) return "–";
  const sign = milliseconds < 0 ? "-" : "";
  const total = Math.abs(milliseconds);
  const unitFormat = (unit: string, amount: number) =>
    numberFormat(locale, { style: "unit", unit, unitDisplay: "narrow", maximumFractionDigits: 0 }).format(amount);

  if (total < 1_000) return sign + unitFormat("millisecond", Math.floor(total));

  const parts: string[] = [];
  let rest = total;
  for (const { unit, ms } of DURATION_UNITS) {
    if (parts.length >= maxUnits) break;
    const amount = Math.floor(rest / ms);
    rest -= amount * ms;
    // Skip leading zero units, but keep inner zeros ("1h 0m") so the largest units stay adjacent.
    if (amount === 0 && parts.length === 0) continue;
    parts.push(unitFormat(unit, amount));
  }
  return sign + new Intl.ListFormat(locale, { type: "unit", style: "narrow" }).format(parts);
}

const RELATIVE_STEPS: readonly { unit: Intl.RelativeTimeFormatUnit; ms: number }[] = [
  { unit: "day", ms: 86_400_000 },
  { unit: "hour", ms: 3_600_000 },
  { unit: "minute", ms: 60_000 },
  { unit: "second", ms: 1_000 },
];

/**
 * "3 min ago" / "in 20 s" in the locale's words (Intl.RelativeTimeFormat, short style), the largest
 * whole unit, rounded toward zero so an age never reads older than it is. Where an operator scans a
 * column; the absolute time goes in the title.
 */
export function formatRelative(value: string | number | Date, now: number, locale: string): string {
  const date = parseTimestamp(value);
  if (!date) return String(value);
  const delta = date.getTime() - now;
  if (Math.abs(delta) < 1_000) return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(0, "second");
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "always", style: "short" });
  const step = RELATIVE_STEPS.find((s) => Math.abs(delta) >= s.ms) ?? { unit: "second" as const, ms: 1_000 };
  return format.format(Math.trunc(delta / step.ms), step.unit);
}
