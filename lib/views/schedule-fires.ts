import { Cron } from "croner";
import type { ScheduleSpec } from "@/lib/dw/schemas-schedules";
import type { SpecPart } from "@/lib/views/schedule-spec";
import { specParts, specTimezone } from "@/lib/views/schedule-spec";

/**
 * A spec's fire times, computed as the engine computes them (see schedule-spec.ts). Apart from the
 * spec's words so that croner is loaded only by the screens that show fire times (a schedule's page
 * and its backfill form), never by the schedules list.
 */

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
  const parts = specParts(spec);
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
