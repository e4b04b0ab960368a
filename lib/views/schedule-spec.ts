import type { ScheduleSpec } from "@/lib/dw/schemas-schedules";

/**
 * A schedule's spec in words and its fire times, computed as the engine computes them
 * (durable-workflow/workflow src/V2/Models/WorkflowSchedule.php@8dc90d64): the earliest of every
 * cron expression (in the spec's time zone, default UTC; 5-field, day-of-month OR day-of-week as
 * dragonmantank/cron-expression) and every interval (`every` an ISO-8601 duration with a year of 365
 * days and a month of 30, aligned to the Unix epoch plus `offset`). Fires are canonical: the server's
 * `next_fire` adds up to `jitter_seconds`. The words (cronstrue) live in cron-words.ts and the fire
 * times (croner) in schedule-fires.ts, each loaded only where it is used: neither is in a list's first load.
 */

export type SpecPart =
  | { kind: "cron"; expression: string; words: string | null }
  | { kind: "interval"; every: string; seconds: number | null; offsetSeconds: number };

/** The spec's time zone as the engine reads it: a non-empty `timezone`, else UTC. */
export function specTimezone(spec: ScheduleSpec | null | undefined): string {
  return spec?.timezone ? spec.timezone : "UTC";
}

/** An expression in words, or null when it cannot be read (or the words are not loaded yet). */
export type CronDescriber = (expression: string) => string | null;

/** Cron expressions and intervals as parts, each with what the screen says of it. */
export function specParts(spec: ScheduleSpec | null | undefined, words: CronDescriber = () => null): SpecPart[] {
  const crons = (spec?.cron_expressions ?? []).filter((expression) => expression !== "");
  const intervals = spec?.intervals ?? [];
  return [
    ...crons.map((expression): SpecPart => ({ kind: "cron", expression, words: words(expression) })),
    ...intervals.map((interval): SpecPart => ({
      kind: "interval",
      every: interval.every,
      seconds: durationSeconds(interval.every),
      offsetSeconds: (interval.offset ? durationSeconds(interval.offset) : 0) ?? 0,
    })),
  ];
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** PHP DateInterval seconds as WorkflowSchedule::dateIntervalToSeconds counts them; null if unreadable. */
export function durationSeconds(iso: string): number | null {
  const match = DURATION.exec(iso);
  if (!match || iso === "P" || iso.endsWith("T")) return null;
  const [y, mo, w, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return y * 365 * 86_400 + mo * 30 * 86_400 + (d + w * 7) * 86_400 + h * 3600 + mi * 60 + s;
}

/** The largest unit that divides the interval evenly: 900 s → {15, "minute"}. */
export function intervalUnit(seconds: number): { count: number; unit: "day" | "hour" | "minute" | "second" } {
  if (seconds % 86_400 === 0) return { count: seconds / 86_400, unit: "day" };
  if (seconds % 3600 === 0) return { count: seconds / 3600, unit: "hour" };
  if (seconds % 60 === 0) return { count: seconds / 60, unit: "minute" };
  return { count: seconds, unit: "second" };
}

/**
 * "2026-01-05 02:00" (a `T` also accepted) read as UTC, sent as ISO-8601 with `Z` (the backfill form: a text field rather
 * than `datetime-local`, whose picker shows the browser's 12-hour clock (decision 0021: one 24-hour clock)).
 */
export function utcIso(text: string): string | null {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?$/.exec(text.trim());
  if (!match) return null;
  const iso = `${match[1]}T${match[2]}${match[3] ?? ":00"}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) + "Z" !== iso ? null : iso;
}
