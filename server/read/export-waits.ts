import type { TaskRow } from "../engine/rows";
import type { ActivityExport, TimerExport } from "./export-sections";
import type { Json } from "./format";

/**
 * The bundle's `waits`: `RunWaitView::activityWait` / `timerWait` (RunWaitView.php@8dc90d64), over
 * the exported activity and timer rows: every key, the engine's summaries, and the row's own group
 * and row status.
 */

/** Activity and timer waits name no command (`RunWaitView`, RunWaitView.php@8dc90d64). */
const NO_WAIT_COMMAND = {
  command_id: null,
  command_sequence: null,
  command_status: null,
  command_outcome: null,
} as const;

/** A wait row's parallel-group keys, copied from its activity row as `RunWaitView::activityWait` does. */
function waitGroup(a: ActivityExport): Json {
  return {
    parallel_group_kind: a.parallel_group_kind,
    parallel_group_id: a.parallel_group_id,
    parallel_group_base_sequence: a.parallel_group_base_sequence,
    parallel_group_size: a.parallel_group_size,
    parallel_group_index: a.parallel_group_index,
    parallel_group_path: a.parallel_group_path,
  };
}

/** A timer belongs to no parallel group. */
const NO_WAIT_GROUP = {
  parallel_group_kind: null,
  parallel_group_id: null,
  parallel_group_base_sequence: null,
  parallel_group_size: null,
  parallel_group_index: null,
} as const;

/** The task keys of a wait: the open task that will resume it, when there is one. */
function waitTask(task: TaskRow | undefined) {
  return {
    task_id: task?.id ?? null,
    task_type: task?.task_type ?? null,
    task_status: task?.status ?? null,
  };
}

function activityWaitStatus(a: ActivityExport): "open" | "cancelled" | "resolved" {
  if (a.status === "pending" || a.status === "running") return "open";
  return a.status === "cancelled" ? "cancelled" : "resolved";
}

function activityWaitSummary(a: ActivityExport, status: string, type: string): string {
  if (status === "open") return `Waiting for activity ${type}.`;
  if (status === "cancelled") return `Activity wait for ${type} was cancelled.`;
  return a.status === "failed" ? `Activity ${type} failed.` : `Activity ${type} completed.`;
}

/** The wait row of one exported activity; `task` is its open activity task, if any. */
export function activityWait(a: ActivityExport, task: TaskRow | undefined): Json {
  const status = activityWaitStatus(a);
  const type = a.activity_type ?? a.activity_class ?? "activity";
  return {
    id: `activity:${a.id}`,
    kind: "activity",
    sequence: a.sequence,
    status,
    source_status: a.status,
    summary: activityWaitSummary(a, status, type),
    opened_at: a.started_at ?? a.created_at,
    deadline_at: null,
    resolved_at: a.closed_at,
    target_name: null,
    target_type: type,
    diagnostic_only: a.diagnostic_only,
    task_backed: task !== undefined,
    external_only: false,
    resume_source_kind: "activity_execution",
    resume_source_id: a.id,
    ...waitTask(task),
    ...NO_WAIT_COMMAND,
    history_authority: a.history_authority,
    history_unsupported_reason: a.history_unsupported_reason,
    row_status: a.row_status,
    ...waitGroup(a),
  };
}

const TIMER_WAIT_SUMMARY = {
  open: "Waiting for timer.",
  cancelled: "Timer wait was cancelled.",
  resolved: "Timer fired.",
} as const;

/** The wait row of one exported timer; `task` is its open timer task, if any. */
export function timerWait(t: TimerExport, task: TaskRow | undefined): Json {
  const status = t.status === "pending" ? "open" : t.status === "cancelled" ? "cancelled" : "resolved";
  return {
    id: `timer:${t.id}`,
    kind: "timer",
    sequence: t.sequence,
    status,
    source_status: t.source_status,
    summary: TIMER_WAIT_SUMMARY[status],
    opened_at: t.created_at,
    deadline_at: t.fire_at,
    resolved_at: t.fired_at ?? t.cancelled_at,
    target_name: null,
    target_type: "timer",
    diagnostic_only: t.diagnostic_only,
    task_backed: task !== undefined,
    external_only: false,
    resume_source_kind: "timer",
    resume_source_id: t.id,
    ...waitTask(task),
    ...NO_WAIT_COMMAND,
    history_authority: t.history_authority,
    history_unsupported_reason: t.history_unsupported_reason,
    row_status: t.row_status,
    ...NO_WAIT_GROUP,
    parallel_group_path: [],
  };
}
