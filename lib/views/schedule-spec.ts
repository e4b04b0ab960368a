import { Cron } from "croner";
import cronstrue from "cronstrue";
import "cronstrue/locales/de";
import "cronstrue/locales/fr";
import "cronstrue/locales/ja";
import "cronstrue/locales/pt_BR";
import "cronstrue/locales/es";
import "cronstrue/locales/uk";
import "cronstrue/locales/zh_CN";
import type { ScheduleSpec } from "@/lib/dw/schemas-schedules";

/**
 * A schedule's spec in words and its fire times, computed as the engine computes them
 * (durable-workflow/workflow src/V2/Models/WorkflowSchedule.php@8dc90d64): the earliest of every
 * cron expression (in the spec's time zone, default UTC; 5-field, day-of-month OR day-of-week as
 * dragonmantank/cron-expression) and every interval (`every` an ISO-8601 duration with a year of 365
 * days and a month of 30, aligned to the Unix epoch plus `offset`). Fires are canonical: the server's
 * `next_fire` adds up to `jitter_seconds`.
 */

export type SpecPart =
  | { kind: "cron"; expression: string; words: string | null }
  | { kind: "interval"; every: string; seconds: number | null; offsetSeconds: number };

const CRONSTRUE_LOCALE: Readonly<Record<string, string>> = {
  ...{ en: "en", "pt-BR": "pt_BR", de: "de", fr: "fr", ja: "ja" },
  // cronstrue's zh_CN is written in simplified characters, as the console's zh-Hans catalog is.
  ...{ es: "es", uk: "uk", "zh-Hans": "zh_CN" },
};

/** The spec's time zone as the engine reads it: a non-empty `timezone`, else UTC. */
export function specTimezone(spec: ScheduleSpec | null | undefined): string {
  return spec?.timezone ? spec.timezone : "UTC";
}

/** Cron expressions and intervals as parts, each with what the screen says of it. */
export function specParts(spec: ScheduleSpec | null | undefined, locale: string): SpecPart[] {
  const crons = (spec?.cron_expressions ?? []).filter((expression) => expression !== "");
  const intervals = spec?.intervals ?? [];
  return [
    ...crons.map((expression): SpecPart => ({ kind: "cron", expression, words: cronWords(expression, locale) })),
    ...intervals.map((interval): SpecPart => ({
      kind: "interval",
      every: interval.every,
      seconds: durationSeconds(interval.every),
      offsetSeconds: (interval.offset ? durationSeconds(interval.offset) : 0) ?? 0,
    })),
  ];
}

/** "At 02:00, Monday through Friday" in the locale, 24-hour; null for an expression it cannot read. */
export function cronWords(expression: string, locale: string): string | null {
  try {
    return cronstrue.toString(expression, {
      locale: CRONSTRUE_LOCALE[locale] ?? "en",
      use24HourTimeFormat: true,
      throwExceptionOnParseError: true,
    });
  } catch {
    return null;
  }
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

function cronJob(expression: string, timezone: string): Cron | null {
  try {
    return new Cron(expression, { timezone, paused: true, mode: "5-part", domAndDow: false });
  } catch {
    return null;
  }
}

/** The first fire strictly after `afterMs` of one part; null when it never fires. */
function nextOfPart(part: SpecPart, afterMs: number, job: Cron | null): number | null {
  if (part.kind === "cron") return job?.nextRun(new Date(afterMs))?.getTime() ?? null;
  if (part.seconds === null || part.seconds <= 0) return null;
  const every = part.seconds;
  // The engine counts whole seconds (getTimestamp), so a fire at exactly `after` is not "after" it.
  const after = Math.floor(afterMs / 1000);
  const periods = Math.floor((after - part.offsetSeconds) / every);
  return (part.offsetSeconds + (periods + 1) * every) * 1000;
}

/** The next `count` canonical fires after `afterMs` (epoch ms), earliest first, no duplicates. */
export function nextFires(spec: ScheduleSpec | null | undefined, afterMs: number, count: number): number[] {
  const parts = specParts(spec, "en");
  const timezone = specTimezone(spec);
  const jobs = parts.map((part) => (part.kind === "cron" ? cronJob(part.expression, timezone) : null));
  const fires: number[] = [];
  let cursor = afterMs;
  while (fires.length < count) {
    let earliest: number | null = null;
    parts.forEach((part, i) => {
      const next = nextOfPart(part, cursor, jobs[i] ?? null);
      if (next !== null && (earliest === null || next < earliest)) earliest = next;
    });
    if (earliest === null) break;
    fires.push(earliest);
    cursor = earliest;
  }
  return fires;
}

/**
 * How many fires a backfill over `[startMs, endMs)` makes, as ScheduleManager::enumerateOccurrences
 * walks them (from a second before the start, each next fire while before the end), counted up to
 * `cap`; `more` says the range holds more than that. `max_runs` may stop the server sooner.
 */
export function backfillFireCount(
  spec: ScheduleSpec | null | undefined,
  startMs: number,
  endMs: number,
  cap = 1000,
): { count: number; more: boolean; first: number | null; last: number | null } {
  if (!(endMs > startMs)) return { count: 0, more: false, first: null, last: null };
  const fires = nextFires(spec, startMs - 1000, cap + 1).filter((at) => at < endMs);
  const counted = fires.slice(0, cap);
  return { count: counted.length, more: fires.length > cap, first: counted[0] ?? null, last: counted.at(-1) ?? null };
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
