import { randomInt } from "node:crypto";
import { Cron } from "croner";

/**
 * When a schedule fires, after the engine's WorkflowSchedule (durable-workflow/workflow
 * src/V2/Models/WorkflowSchedule.php@797aa6f): the earliest next occurrence over every cron
 * expression (in the spec's time zone, default UTC) and every ISO-8601 interval (`every`, optional
 * `offset`, counted from the Unix epoch in whole seconds), strictly after a given instant.
 */
export interface ScheduleSpec {
  cron_expressions?: string[] | null;
  intervals?: { every: string; offset?: string | null }[] | null;
  timezone?: string | null;
}

/** The platform's cron library (dragonmantank/cron-expression) takes five fields or one of these macros. */
const CRON_MACROS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

const cronCache = new Map<string, Cron>();

function cronFor(expression: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expression}`;
  let cron = cronCache.get(key);
  if (!cron) {
    const pattern = expression.trim() === "@midnight" ? "@daily" : expression.trim();
    cron = new Cron(pattern, { timezone, paused: true });
    if (cronCache.size > 10_000) cronCache.clear();
    cronCache.set(key, cron);
  }
  return cron;
}

/** `CronExpression::isValidExpression`: five whitespace-separated fields (or a macro) the parser accepts. */
export function isValidCron(expression: unknown): expression is string {
  if (typeof expression !== "string" || expression.trim() === "") return false;
  const trimmed = expression.trim();
  if (!CRON_MACROS.has(trimmed) && trimmed.split(/\s+/).length !== 5) return false;
  try {
    cronFor(trimmed, "UTC");
    return true;
  } catch {
    return false;
  }
}

const zoneValidity = new Map<string, boolean>();

/** An IANA zone the runtime knows; PHP's `new DateTimeZone()` throws on the rest. Remembered: a formatter per check is costly. */
export function isValidTimezone(tz: string): boolean {
  let valid = zoneValidity.get(tz);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      valid = true;
    } catch {
      valid = false;
    }
    if (zoneValidity.size < 1_000) zoneValidity.set(tz, valid);
  }
  return valid;
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * `WorkflowSchedule::dateIntervalToSeconds(new DateInterval($spec))`: a year is 365 days and a
 * month 30, whatever the calendar says; null for what PHP's DateInterval refuses.
 */
export function durationSeconds(spec: unknown): number | null {
  if (typeof spec !== "string") return null;
  const m = DURATION.exec(spec);
  if (!m || spec === "P" || spec.endsWith("T")) return null;
  const [y, mo, w, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  return y! * 365 * 86400 + mo! * 30 * 86400 + (w! * 7 + d!) * 86400 + h! * 3600 + mi! * 60 + s!;
}

/**
 * The last answer per expression and zone, by the whole second asked after: cron times are whole
 * seconds and croner starts its search at the next whole second, so every instant of one second has
 * the same next occurrence. A thousand schedules sharing `* * * * *` that fire in the same second
 * then search once (decision 0054; the fire-lateness figure in docs/performance.md).
 */
const lastNext = new Map<string, { second: number; next: number | null }>();

/** Next cron occurrence strictly after `afterMs`, as epoch ms; null when the expression never fires again. */
export function nextCronOccurrence(expression: string, afterMs: number, timezone: string): number | null {
  const key = `${timezone}\u0000${expression}`;
  const second = Math.floor(afterMs / 1000);
  const known = lastNext.get(key);
  if (known !== undefined && known.second === second) return known.next;
  const found = cronFor(expression, timezone).nextRun(new Date(afterMs));
  const next = found ? found.getTime() : null;
  if (lastNext.size > 10_000) lastNext.clear();
  lastNext.set(key, { second, next });
  return next;
}

/** `nextIntervalOccurrence`: offset + (floor((after - offset) / every) + 1) * every, in whole seconds. */
export function nextIntervalOccurrence(
  interval: { every?: unknown; offset?: unknown },
  afterMs: number,
): number | null {
  const every = durationSeconds(interval.every);
  if (every === null || every <= 0) return null;
  const offset =
    typeof interval.offset === "string" && interval.offset !== "" ? (durationSeconds(interval.offset) ?? 0) : 0;
  const after = Math.floor(afterMs / 1000);
  const periods = Math.floor((after - offset) / every);
  return (offset + (periods + 1) * every) * 1000;
}

export function specTimezone(spec: ScheduleSpec): string {
  return typeof spec.timezone === "string" && spec.timezone !== "" ? spec.timezone : "UTC";
}

/** An occurrence and the zone it was computed in: cron times carry the spec's zone, intervals UTC. */
export interface Occurrence {
  at: number;
  zone: string;
}

/** `computeNextFireAt`: the earliest upcoming occurrence across all cron expressions and intervals. */
export function nextOccurrence(spec: ScheduleSpec, afterMs: number): Occurrence | null {
  const tz = specTimezone(spec);
  let earliest: Occurrence | null = null;
  for (const expression of spec.cron_expressions ?? []) {
    if (typeof expression !== "string" || expression === "") continue;
    const at = nextCronOccurrence(expression, afterMs, tz);
    if (at !== null && (earliest === null || at < earliest.at)) earliest = { at, zone: tz };
  }
  for (const interval of spec.intervals ?? []) {
    if (!interval || typeof interval !== "object") continue;
    const at = nextIntervalOccurrence(interval, afterMs);
    if (at !== null && (earliest === null || at < earliest.at)) earliest = { at, zone: "UTC" };
  }
  return earliest;
}

export function computeNextFireAt(spec: ScheduleSpec, afterMs: number): number | null {
  return nextOccurrence(spec, afterMs)?.at ?? null;
}

/** Picks a jitter in [0, max] whole seconds; replaceable so tests can pin the draw. */
export type JitterSource = (maxSeconds: number) => number;
export const randomJitter: JitterSource = (max) => randomInt(0, max + 1);

/** `computeNextFireAtWithJitter`: the canonical time plus a random [0, jitter_seconds] seconds. */
export function computeNextFireAtWithJitter(
  spec: ScheduleSpec,
  afterMs: number,
  jitterSeconds: number,
  jitter: JitterSource,
): number | null {
  const next = computeNextFireAt(spec, afterMs);
  if (next === null || jitterSeconds <= 0) return next;
  return next + jitter(jitterSeconds) * 1000;
}

/**
 * `ScheduleManager::assertValidSpec`: arrays, at least one cron expression or interval, every cron
 * expression valid. The message is the engine's LogicException text.
 */
export function specProblem(spec: ScheduleSpec): string | null {
  const crons = spec.cron_expressions ?? [];
  const intervals = spec.intervals ?? [];
  if (!Array.isArray(crons) || !Array.isArray(intervals))
    return "Schedule spec cron_expressions/intervals must be arrays.";
  if (crons.length === 0 && intervals.length === 0)
    return "Schedule spec must include at least one cron_expression or interval.";
  for (const expression of crons)
    if (!isValidCron(expression)) return `Invalid cron expression: [${String(expression)}].`;
  if (!isValidTimezone(specTimezone(spec))) return `Unknown or bad timezone (${specTimezone(spec)})`;
  return null;
}

/**
 * The occurrences of `[fromMs, toMs)`, as `ScheduleManager::enumerateOccurrences` walks them (from
 * one second before `from`). The engine has no bound; the twin stops at `cap` (docs/contract.md).
 */
export function occurrencesBetween(spec: ScheduleSpec, fromMs: number, toMs: number, cap = 10_000): Occurrence[] {
  const out: Occurrence[] = [];
  let cursor = fromMs - 1000;
  while (out.length < cap) {
    const next = nextOccurrence(spec, cursor);
    if (next === null || next.at >= toMs) break;
    out.push(next);
    cursor = next.at;
  }
  return out;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC of `zone` at `ms`. */
function offsetMinutes(ms: number, zone: string): number {
  if (zone === "UTC") return 0;
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    if (zoneFormats.size < 1_000) zoneFormats.set(zone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * PHP's `format('Y-m-d\\TH:i:sP')` (and with `.u` when `micros`) of an instant in `zone`; Carbon's
 * `toIso8601String()` is the UTC case the schedule columns come back in.
 */
export function phpIso(ms: number, zone = "UTC", micros = false): string {
  const offset = offsetMinutes(ms, zone);
  const local = new Date(ms + offset * 60_000).toISOString();
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  const frac = micros ? `.${local.slice(20, 23)}000` : "";
  return `${local.slice(0, 19)}${frac}${sign}${hh}:${mm}`;
}
