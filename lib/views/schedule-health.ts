import type { ScheduleDescription, ScheduleListItem } from "@/lib/dw/schemas-schedules";
import { timestampToEpochMs } from "@/lib/dw/timestamps";
import { fireLateness, lastAction, scheduleState } from "./schedule-state";

/**
 * The namespace's schedules that need an operator, for the Overview, Attention and the Schedules
 * list's `?show=` filter: those whose fires are late (from the list answer alone: `next_fire` against
 * now) and those whose last fire's run failed. The real server's list item has no run status
 * (WorkflowSchedule::toListItem, durable-workflow/workflow src/V2/Models/WorkflowSchedule.php@8dc90d64),
 * so the last run is found by describing the schedule (its newest `recent_actions` entry) and then the
 * run by its workflow id: two reads a schedule, made for at most {@link HEALTH_CHECK_LIMIT} schedules,
 * those that fired most recently. What was not read is counted as unknown, never as healthy.
 */

/** Schedules whose last run is read (two reads each); beyond them the count says "not checked". */
export const HEALTH_CHECK_LIMIT = 50;

/** The Schedules list's `?show=` values: the schedules a count on Overview or Attention names. */
export const HEALTH_FILTERS = ["late", "failed"] as const;
export type HealthFilter = (typeof HEALTH_FILTERS)[number];

export function parseHealthFilter(value: string | null | undefined): HealthFilter | null {
  return (HEALTH_FILTERS as readonly string[]).includes(value ?? "") ? (value as HealthFilter) : null;
}

/** A read's state, as a query gives it. */
export type Read<T> = { state: "pending" } | { state: "error" } | { state: "ok"; data: T };

/** What is known of a schedule's last run. */
export type LastRun =
  | { kind: "never_fired" }
  | { kind: "failed"; workflowId: string | null; status: string | null }
  | { kind: "ok"; status: string }
  | { kind: "unknown"; why: "pending" | "unreadable" | "not_checked" };

const FAILED = new Set(["failed", "terminated"]);

/**
 * The last run of one schedule from its description and the run its newest action started. A fire
 * whose start itself failed (the server recorded a failure and started nothing) counts as failed.
 * `run` is the read of that action's workflow (ignored when the action started none).
 */
export function lastRunOf(
  item: ScheduleListItem,
  detail: Read<ScheduleDescription>,
  run: Read<{ status?: string | null }> | null,
): LastRun {
  if (detail.state === "pending") return { kind: "unknown", why: "pending" };
  if (detail.state === "error") return { kind: "unknown", why: "unreadable" };
  const last = lastAction(detail.data);
  if (last === null) return item.last_fire ? { kind: "unknown", why: "unreadable" } : { kind: "never_fired" };
  if (last.kind === "start_failed") return { kind: "failed", workflowId: null, status: null };
  // A fire that was buffered or skipped started nothing: its last run is an older one we did not read.
  if (last.kind === "other") return { kind: "unknown", why: "unreadable" };
  if (run === null || run.state === "pending") return { kind: "unknown", why: "pending" };
  if (run.state === "error") return { kind: "unknown", why: "unreadable" };
  const status = run.data.status ?? null;
  if (status === null) return { kind: "unknown", why: "unreadable" };
  return FAILED.has(status) ? { kind: "failed", workflowId: last.workflowId, status } : { kind: "ok", status };
}

/**
 * The schedules whose last run is worth reading, most recently fired first, at most `limit`: only
 * those that ever fired (a schedule with no `last_fire` has no run to fail).
 */
export function healthCandidates(items: readonly ScheduleListItem[], limit = HEALTH_CHECK_LIMIT): ScheduleListItem[] {
  return items
    .filter((item) => timestampToEpochMs(item.last_fire) !== null)
    .sort((a, b) => (timestampToEpochMs(b.last_fire) ?? 0) - (timestampToEpochMs(a.last_fire) ?? 0))
    .slice(0, limit);
}

export type ScheduleHealth =
  | { state: "pending" }
  | { state: "unreadable" }
  | {
      state: "ok";
      /** Ids of active schedules whose next fire is late. */
      late: string[];
      /** Ids of schedules whose last run failed (or whose last fire could not start one). */
      failed: string[];
      /** Ids of schedules that fired but whose last run's status is not known (yet). */
      unknown: string[];
      /** How many of `unknown` were past {@link HEALTH_CHECK_LIMIT} and never read. */
      notChecked: number;
      total: number;
    };

/**
 * The health of every schedule in the list answer. `list` null while it loads; `lastRuns` holds what
 * was read for the candidates (lastRunOf); a fired schedule missing from it was not checked.
 */
export function scheduleHealth(
  list: Read<readonly ScheduleListItem[]>,
  lastRuns: ReadonlyMap<string, LastRun>,
  nowMs: number,
): ScheduleHealth {
  if (list.state === "pending") return { state: "pending" };
  if (list.state === "error") return { state: "unreadable" };
  const late: string[] = [];
  const failed: string[] = [];
  const unknown: string[] = [];
  let notChecked = 0;
  for (const item of list.data) {
    const state = scheduleState(item.status, item.paused);
    if (fireLateness(state, item.next_fire, nowMs).late) late.push(item.schedule_id);
    const last =
      lastRuns.get(item.schedule_id) ??
      (timestampToEpochMs(item.last_fire) === null
        ? ({ kind: "never_fired" } as const)
        : ({ kind: "unknown", why: "not_checked" } as const));
    if (last.kind === "failed") failed.push(item.schedule_id);
    else if (last.kind === "unknown") {
      unknown.push(item.schedule_id);
      if (last.why === "not_checked") notChecked += 1;
    }
  }
  return { state: "ok", late, failed, unknown, notChecked, total: list.data.length };
}

/** The ids a `?show=` filter keeps, or null when the health is not known (the list then says so). */
export function healthFilterIds(health: ScheduleHealth, filter: HealthFilter): ReadonlySet<string> | null {
  if (health.state !== "ok") return null;
  return new Set(filter === "late" ? health.late : health.failed);
}
