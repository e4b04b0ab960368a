"use client";

import { useLocale, useNow, useTimeZone } from "next-intl";
import {
  HOUR_CYCLE,
  dateTimeFormat,
  formatDateTime,
  formatDuration,
  formatRelative,
  formatTime,
  parseTimestamp,
} from "@/lib/format/time";

/**
 * Times as the operator chose to see them (UTC or local, from the shell's toggle), formatted the
 * same way the server rendered them so hydration never disagrees.
 */
export function useTimeFormat() {
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  return {
    locale,
    timeZone,
    dateTime(value: string | number | null | undefined): string {
      if (value === null || value === undefined) return "–";
      return formatDateTime(value, { locale, timeZone });
    },
    /** Month, day and 24-hour time with the zone: fits a table column; the full form goes in a title. */
    compact(value: string | number | null | undefined): string {
      const date = parseTimestamp(value ?? null);
      if (!date) return value === null || value === undefined ? "–" : String(value);
      return dateTimeFormat(locale, {
        timeZone,
        month: "short",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: HOUR_CYCLE,
        timeZoneName: "short",
      }).format(date);
    },
    /** 24-hour time of day with seconds ("14:03:07"): for a status line about the last few minutes. */
    clock(value: string | number | null | undefined): string {
      const date = parseTimestamp(value ?? null);
      return date ? formatTime(date, { locale, timeZone }, { zoneName: false }) : "–";
    },
    /**
     * "3 min ago" against `now` (a {@link useTicker} value, so only screens that show ages re-render):
     * for columns an operator scans; pair it with the absolute time in a title.
     */
    relative(value: string | number | null | undefined, now: number): string {
      return value === null || value === undefined ? "–" : formatRelative(value, now, locale);
    },
    duration(ms: number | null | undefined): string {
      return ms === null || ms === undefined ? "–" : formatDuration(ms, locale);
    },
    /** Milliseconds between two server timestamps, or null when either is missing. */
    between(start: string | null | undefined, end: string | null | undefined): number | null {
      const a = parseTimestamp(start ?? null);
      const b = parseTimestamp(end ?? null);
      return a && b ? b.getTime() - a.getTime() : null;
    },
  };
}

/** Re-renders every `intervalMs` for relative labels ("due in 3 s"). */
export function useTicker(intervalMs: number): number {
  return useNow({ updateInterval: intervalMs }).getTime();
}
