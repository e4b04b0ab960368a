import type { ActivityRow, CommandRow, TaskRow, TimerRow } from "../engine/rows";
import { isoMicros } from "./format";
import type { Json } from "./format";
import type { FailureSnapshot, HistoryEventRecord, Metadata } from "./timeline-metadata";
import {
  activityMetadata,
  ACTIVITY_EVENTS,
  CHILD_EVENTS,
  childMetadata,
  COMMAND_EVENTS,
  commandMetadata,
  failureMetadata,
  i,
  obj,
  s,
  taskMetadata,
  timerMetadata,
} from "./timeline-metadata";
import { timelineSummary } from "./timeline-summary";

/**
 * The export's `timeline[]`: one point entry per history event, following
 * `HistoryTimeline::mapEvent` and its metadata builders (durable-workflow/workflow@8dc90d6
 * src/V2/Support/HistoryTimeline.php). The real entry has no top-level `activity_attempt_id`,
 * `attempt_number` or `timeout_kind` (those stay in the event payload), and its `failure` object
 * is built per event type — for `ActivityRetryScheduled` (no failure row) `id` and `handled` are
 * null and `source_kind` / `propagation_kind` too. The metadata builders are timeline-metadata.ts,
 * the summary sentences timeline-summary.ts.
 */

export type { FailureSnapshot, HistoryEventRecord } from "./timeline-metadata";

/** The run's rows the builders consult, keyed by id (`HistoryTimeline::fromHistory`). */
export interface TimelineContext {
  runId: string;
  commands: ReadonlyMap<string, CommandRow>;
  tasks: ReadonlyMap<string, TaskRow>;
  activities: ReadonlyMap<string, ActivityRow>;
  timers: ReadonlyMap<string, TimerRow>;
  failures: ReadonlyMap<string, FailureSnapshot>;
}

/** `HistoryTimeline::kindFor` (HistoryTimeline.php@8dc90d6). */
export function timelineKind(type: string): string {
  if (COMMAND_EVENTS.has(type)) return "command";
  if (type === "SignalWaitOpened" || type === "SignalApplied") return "signal";
  if (type === "UpdateApplied" || type === "UpdateCompleted") return "update";
  if (CHILD_EVENTS.has(type)) return "child";
  if (type === "ConditionWaitOpened" || type === "ConditionWaitSatisfied" || type === "ConditionWaitTimedOut")
    return "condition";
  if (ACTIVITY_EVENTS.has(type)) return "activity";
  if (type === "FailureHandled") return "failure";
  if (type === "SideEffectRecorded") return "side_effect";
  if (type === "VersionMarkerRecorded") return "version";
  if (type === "TimerScheduled" || type === "TimerFired" || type === "TimerCancelled") return "timer";
  return "workflow";
}

/** `HistoryTimeline::sourceKindFor`: update applied/completed point at their command. */
function sourceKindFor(type: string): string {
  if (COMMAND_EVENTS.has(type) || type === "UpdateApplied" || type === "UpdateCompleted") return "workflow_command";
  const kind = timelineKind(type);
  const byKind: Record<string, string> = {
    signal: "signal_wait",
    child: "child_workflow_run",
    condition: "condition_wait",
    activity: "activity_execution",
    failure: "workflow_failure",
    version: "version_marker",
    timer: "timer",
  };
  return byKind[kind] ?? "workflow_run";
}

/** `HistoryTimeline::sourceIdFor` (HistoryTimeline.php@8dc90d6). */
function sourceIdFor(
  e: HistoryEventRecord,
  runId: string,
  m: { command: Json | null; activity: Json | null; timer: Json | null; child: Json | null; failure: Json | null },
): string | null {
  const p = e.payload;
  switch (sourceKindFor(e.event_type)) {
    case "workflow_command":
      return s(m.command?.id);
    case "signal_wait":
      return s(p.signal_wait_id);
    case "condition_wait":
      return s(p.condition_wait_id);
    case "version_marker":
      return s(p.change_id);
    case "child_workflow_run":
      return s(m.child?.run_id) ?? s(m.child?.instance_id);
    case "activity_execution":
      return s(m.activity?.id) ?? (m.failure?.source_kind === "activity_execution" ? s(m.failure.source_id) : null);
    case "workflow_failure":
      return s(m.failure?.id) ?? s(p.failure_id);
    case "timer":
      return s(m.timer?.id);
    default:
      return runId;
  }
}

/** One `timeline[]` entry (`HistoryTimeline::mapEvent`, HistoryTimeline.php@8dc90d6), keys in its order. */
export function timelineEntry(e: HistoryEventRecord, ctx: TimelineContext): Json {
  const p = e.payload;
  const commandId = s(e.workflow_command_id) ?? s(p.workflow_command_id);
  const taskId = s(e.workflow_task_id);
  const activityId = s(p.activity_execution_id);
  const timerId = s(p.timer_id);
  const failureId = s(p.failure_id);
  const command = commandId === null ? undefined : ctx.commands.get(commandId);
  const failureRow = failureId === null ? undefined : ctx.failures.get(failureId);
  const m: Metadata = {
    command: commandMetadata(e.event_type, command, p, commandId),
    task: taskMetadata(e.event_type, taskId === null ? undefined : ctx.tasks.get(taskId), p, taskId),
    activity: activityMetadata(
      e,
      activityId === null ? undefined : ctx.activities.get(activityId),
      activityId,
      failureRow,
    ),
    timer: timerMetadata(e.event_type, timerId === null ? undefined : ctx.timers.get(timerId), p, timerId),
    child: childMetadata(e.event_type, p),
    failure: failureMetadata(e.event_type, failureRow, p, failureId),
  };
  const parallel = (key: string) =>
    key === "parallel_group_kind" || key === "parallel_group_id" ? s(p[key]) : i(p[key]);
  return {
    id: e.id,
    sequence: e.sequence,
    type: e.event_type,
    kind: timelineKind(e.event_type),
    entry_kind: "point",
    source_kind: sourceKindFor(e.event_type),
    source_id: sourceIdFor(e, ctx.runId, m),
    summary: timelineSummary(e, m),
    recorded_at: isoMicros(e.recorded_at),
    command_id: commandId,
    command_sequence: m.command?.sequence ?? null,
    requested_run_id: m.command?.requested_run_id ?? null,
    resolved_run_id: m.command?.resolved_run_id ?? null,
    task_id: taskId,
    command_type: m.command?.type ?? null,
    command_status: m.command?.status ?? null,
    command_outcome: m.command?.outcome ?? null,
    command_rejection_reason: m.command?.rejection_reason ?? null,
    workflow_sequence: i(p.sequence),
    signal_id: s(p.signal_id),
    signal_wait_id: s(p.signal_wait_id),
    condition_wait_id: s(p.condition_wait_id),
    condition_key: s(p.condition_key),
    condition_definition_fingerprint: s(p.condition_definition_fingerprint),
    signal_name: s(m.command?.target_name) ?? s(p.signal_name),
    update_name: s(m.command?.target_name) ?? s(p.update_name),
    version_change_id: s(p.change_id),
    version: i(p.version),
    version_min_supported: i(p.min_supported),
    version_max_supported: i(p.max_supported),
    activity_execution_id: m.activity?.id ?? null,
    activity_type: m.activity?.type ?? null,
    activity_class: m.activity?.class ?? null,
    activity_status: m.activity?.status ?? null,
    retry_task_id: s(p.retry_task_id),
    retry_available_at: s(p.retry_available_at),
    retry_backoff_seconds: i(p.retry_backoff_seconds),
    retry_max_attempts: i(p.max_attempts),
    retry_policy: obj(p.retry_policy),
    retry_after_attempt_id: s(p.retry_after_attempt_id),
    retry_after_attempt: i(p.retry_after_attempt),
    timer_id: m.timer?.id ?? null,
    delay_seconds: i(p.timeout_seconds) ?? m.timer?.delay_seconds ?? null,
    child_call_id: m.child?.child_call_id ?? null,
    child_workflow_instance_id: m.child?.instance_id ?? null,
    child_workflow_run_id: m.child?.run_id ?? null,
    child_workflow_type: m.child?.type ?? null,
    child_workflow_class: m.child?.class ?? null,
    child_status: m.child?.status ?? null,
    parallel_group_kind: parallel("parallel_group_kind"),
    parallel_group_id: parallel("parallel_group_id"),
    parallel_group_base_sequence: parallel("parallel_group_base_sequence"),
    parallel_group_size: parallel("parallel_group_size"),
    parallel_group_index: parallel("parallel_group_index"),
    parallel_group_path: Array.isArray(p.parallel_group_path) ? p.parallel_group_path : [],
    failure_id: m.failure?.id ?? null,
    exception_type: m.failure?.exception_type ?? null,
    exception_class: m.failure?.exception_class ?? null,
    exception_resolved_class: m.failure?.exception_resolved_class ?? null,
    exception_resolution_source: m.failure?.exception_resolution_source ?? null,
    exception_resolution_error: m.failure?.exception_resolution_error ?? null,
    message: m.failure?.message ?? null,
    closed_reason: p.closed_reason ?? null,
    command: m.command,
    task: m.task,
    activity: m.activity,
    timer: m.timer,
    child: m.child,
    failure: m.failure,
  };
}
