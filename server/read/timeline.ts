import { isoMicros, num, str } from "./format";
import type { FailureRow } from "../engine/rows";
import type { Json } from "./format";

export interface HistoryEventRecord {
  id: string;
  sequence: number;
  event_type: string;
  payload: Json;
  workflow_task_id: string | null;
  workflow_command_id: string | null;
  recorded_at: number;
}

const COMMAND_EVENTS = new Set([
  "StartAccepted", "StartRejected", "SignalReceived", "UpdateAccepted", "UpdateRejected", "RepairRequested",
  "CancelRequested", "TerminateRequested", "ArchiveRequested",
]);

/** `HistoryTimeline` kind of an event type (v2-model §4.2). */
export function timelineKind(type: string): string {
  if (COMMAND_EVENTS.has(type)) return "command";
  if (type === "SignalWaitOpened" || type === "SignalApplied") return "signal";
  if (type === "UpdateApplied" || type === "UpdateCompleted") return "update";
  if (type === "ChildWorkflowScheduled" || type.startsWith("ChildRun")) return "child";
  if (type.startsWith("ConditionWait")) return "condition";
  if (type.startsWith("Activity")) return "activity";
  if (type === "FailureHandled") return "failure";
  if (type === "SideEffectRecorded") return "side_effect";
  if (type === "VersionMarkerRecorded") return "version";
  if (type.startsWith("Timer")) return "timer";
  return "workflow";
}

function sourceOf(e: HistoryEventRecord, runId: string): [string, string | null] {
  const p = e.payload;
  switch (timelineKind(e.event_type)) {
    case "command":
      return ["workflow_command", e.workflow_command_id ?? str(p.workflow_command_id)];
    case "update":
      return ["workflow_command", e.workflow_command_id ?? str(p.workflow_command_id)];
    case "signal":
      return ["signal_wait", str(p.signal_wait_id)];
    case "child":
      return ["child_workflow_run", str(p.child_workflow_run_id)];
    case "condition":
      return ["condition_wait", str(p.condition_wait_id)];
    case "activity":
      return ["activity_execution", str(p.activity_execution_id)];
    case "failure":
      return ["workflow_failure", str(p.failure_id)];
    case "version":
      return ["version_marker", str(p.change_id)];
    case "timer":
      return ["timer", str(p.timer_id)];
    default:
      return ["workflow_run", runId];
  }
}

function label(p: Json): string {
  const t = str(p.activity_type) ?? str(p.activity_class) ?? "activity";
  const parts = t.split(/[\\/]/);
  return parts[parts.length - 1] ?? t;
}

/** The verbatim summary templates of `HistoryTimeline` (v2-model §4.3). */
export function timelineSummary(e: HistoryEventRecord): string {
  const p = e.payload;
  const msg = str(p.message) ?? "";
  switch (e.event_type) {
    case "StartAccepted":
      return `Start accepted as ${str(p.outcome) ?? "started_new"}.`;
    case "StartRejected":
      return `Start rejected: ${str(p.rejection_reason) ?? "unknown"}.`;
    case "WorkflowStarted":
      return "Workflow run started.";
    case "WorkflowContinuedAsNew":
      return `Continued as new on run ${str(p.continued_to_run_id) ?? ""}.`;
    case "WorkflowCompleted":
      return "Workflow completed.";
    case "WorkflowFailed":
      return `Workflow failed: ${msg}.`;
    case "WorkflowTimedOut":
      return p.timeout_kind === "run_timeout" ? "Workflow run deadline expired." : "Workflow execution deadline expired.";
    case "CancelRequested":
      return "Cancel requested.";
    case "WorkflowCancelled":
      return "Workflow cancelled.";
    case "TerminateRequested":
      return "Terminate requested.";
    case "WorkflowTerminated":
      return "Workflow terminated.";
    case "ArchiveRequested":
      return p.outcome === "archive_not_needed" ? "Archive accepted; the run was already archived." : "Archive requested.";
    case "WorkflowArchived":
      return "Workflow archived.";
    case "ActivityScheduled":
      return `Scheduled ${label(p)}.`;
    case "ActivityStarted":
      return `Started ${label(p)}.`;
    case "ActivityHeartbeatRecorded":
      return `Recorded heartbeat for ${label(p)}.`;
    case "ActivityRetryScheduled":
      return `Scheduled retry ${(num(p.retry_after_attempt) ?? 0) + 1} for ${label(p)}.`;
    case "ActivityCompleted":
      return `Completed ${label(p)}.`;
    case "ActivityFailed":
      return `Failed ${label(p)}: ${msg}.`;
    case "ActivityCancelled":
      return `Cancelled ${label(p)}.`;
    case "ActivityTimedOut":
      return `Timed out ${label(p)}: ${msg}.`;
    case "FailureHandled":
      return `Handled failure: ${msg}.`;
    case "TimerScheduled":
      return `Scheduled timer for ${num(p.delay_seconds) ?? 0} seconds.`;
    case "TimerFired":
      return `Timer fired after ${num(p.delay_seconds) ?? 0} seconds.`;
    case "TimerCancelled":
      return "Timer cancelled.";
    case "SignalWaitOpened":
      return `Waiting for signal ${str(p.signal_name) ?? ""}.`;
    case "SignalReceived":
      return `Signal ${str(p.signal_name) ?? ""} received.`;
    case "SignalApplied":
      return `Applied signal ${str(p.signal_name) ?? ""}.`;
    case "ConditionWaitOpened":
      return p.timeout_seconds != null
        ? `Waiting for condition${p.condition_key ? ` ${String(p.condition_key)}` : ""} or timeout after ${String(p.timeout_seconds)} seconds.`
        : `Waiting for condition${p.condition_key ? ` ${String(p.condition_key)}` : ""}.`;
    case "ConditionWaitSatisfied":
      return "Condition satisfied.";
    case "ConditionWaitTimedOut":
      return `Condition timed out after ${String(p.timeout_seconds ?? 0)} seconds.`;
    case "RepairRequested":
      return p.outcome === "repair_dispatched"
        ? `Repair recreated ${str(p.task_type) ?? "workflow"} task.`
        : "Repair accepted; the run already had a durable resume source.";
    case "ChildWorkflowScheduled":
      return `Scheduled child workflow ${str(p.child_workflow_type) ?? ""}.`;
    case "ChildRunStarted":
      return `Child workflow ${str(p.child_workflow_type) ?? ""} started.`;
    case "ChildRunCompleted":
      return `Child workflow ${str(p.child_workflow_type) ?? ""} completed.`;
    case "ChildRunFailed":
      return `Child workflow ${str(p.child_workflow_type) ?? ""} failed: ${msg}.`;
    case "ChildRunCancelled":
      return `Child workflow ${str(p.child_workflow_type) ?? ""} cancelled.`;
    case "ChildRunTerminated":
      return `Child workflow ${str(p.child_workflow_type) ?? ""} terminated.`;
    case "SideEffectRecorded":
      return "Recorded side effect.";
    case "VersionMarkerRecorded":
      return `Recorded version marker ${str(p.change_id) ?? ""} = ${String(p.version ?? "")}.`;
    case "SearchAttributesUpserted":
      return "Search attributes upserted.";
    case "MemoUpserted":
      return "Memo upserted.";
    case "MessageCursorAdvanced":
      return `Message cursor advanced to ${String(p.new_position ?? "")}.`;
    default:
      return `${e.event_type}.`;
  }
}

/** Failure defaults per event type (v2-model §4.1 table). */
const FAILURE_DEFAULTS: Record<string, [string, string, boolean]> = {
  ActivityFailed: ["activity", "activity", false],
  ActivityTimedOut: ["timeout", "timeout", false],
  ChildRunFailed: ["child", "child_workflow", false],
  ChildRunCancelled: ["cancelled", "cancelled", false],
  WorkflowCancelled: ["cancelled", "cancelled", false],
  ChildRunTerminated: ["terminated", "terminated", false],
  WorkflowTerminated: ["terminated", "terminated", false],
  WorkflowTimedOut: ["timeout", "timeout", false],
  WorkflowFailed: ["terminal", "application", false],
  UpdateCompleted: ["update", "application", false],
  FailureHandled: ["", "", true],
};

function failureObject(e: HistoryEventRecord, failures: Map<string, FailureRow>, runId: string): Json | null {
  const p = e.payload;
  if (!("failure_id" in p || "message" in p || "exception_class" in p || "source_kind" in p || "source_id" in p)) return null;
  const failureId = str(p.failure_id);
  const row = failureId ? failures.get(failureId) : undefined;
  const def = FAILURE_DEFAULTS[e.event_type];
  const [, defaultSourceId] = sourceOf(e, runId);
  return {
    id: failureId,
    source_kind: row?.source_kind ?? str(p.source_kind) ?? (timelineKind(e.event_type) === "activity" ? "activity_execution" : def ? "workflow_run" : null),
    source_id: row?.source_id ?? str(p.source_id) ?? defaultSourceId,
    propagation_kind: row?.propagation_kind ?? str(p.propagation_kind) ?? (def && def[0] ? def[0] : null),
    failure_category: row?.failure_category ?? str(p.failure_category) ?? (def && def[1] ? def[1] : null),
    non_retryable: row ? row.non_retryable === 1 : p.non_retryable === true,
    handled: row ? row.handled === 1 : e.event_type === "FailureHandled" || p.handled === true,
    exception_type: row?.exception_type ?? str(p.exception_type),
    exception_class: row?.exception_class ?? str(p.exception_class),
    exception_resolved_class: null,
    exception_resolution_source: null,
    exception_resolution_error: null,
    exception_replay_blocked: false,
    message: row?.message ?? str(p.message),
    file: row?.file ?? null,
    line: row?.line ?? null,
  };
}

/** One enriched `timeline[]` entry per history event (`HistoryTimeline::mapEvent`). */
export function timelineEntry(e: HistoryEventRecord, runId: string, failures: Map<string, FailureRow>): Json {
  const p = e.payload;
  const [sourceKind, sourceId] = sourceOf(e, runId);
  const command = p.command && typeof p.command === "object" ? (p.command as Json) : null;
  const activity = p.activity && typeof p.activity === "object" ? (p.activity as Json) : null;
  const task = p.task && typeof p.task === "object" ? (p.task as Json) : null;
  const failure = failureObject(e, failures, runId);
  return {
    id: e.id,
    sequence: e.sequence,
    type: e.event_type,
    kind: timelineKind(e.event_type),
    entry_kind: "point",
    source_kind: sourceKind,
    source_id: sourceId,
    summary: timelineSummary(e),
    recorded_at: isoMicros(e.recorded_at),
    command_id: e.workflow_command_id ?? str(p.workflow_command_id),
    command_sequence: command ? num(command.sequence) : null,
    requested_run_id: command ? str(command.requested_run_id) : null,
    resolved_run_id: command ? str(command.resolved_run_id) : null,
    task_id: e.workflow_task_id ?? (task ? str(task.id) : str(p.task_id)),
    command_type: str(p.command_type) ?? (command ? str(command.type) : null),
    command_status: command ? str(command.status) : null,
    command_outcome: str(p.outcome) ?? (command ? str(command.outcome) : null),
    command_rejection_reason: str(p.rejection_reason),
    workflow_sequence: num(p.sequence),
    signal_id: str(p.signal_id),
    signal_wait_id: str(p.signal_wait_id),
    condition_wait_id: str(p.condition_wait_id),
    condition_key: str(p.condition_key),
    condition_definition_fingerprint: str(p.condition_definition_fingerprint),
    signal_name: str(p.signal_name),
    update_name: str(p.update_name),
    version_change_id: str(p.change_id),
    version: num(p.version),
    version_min_supported: num(p.min_supported),
    version_max_supported: num(p.max_supported),
    activity_execution_id: str(p.activity_execution_id),
    activity_type: str(p.activity_type),
    activity_class: str(p.activity_class),
    activity_status: activity ? str(activity.status) : null,
    retry_task_id: str(p.retry_task_id),
    retry_available_at: str(p.retry_available_at),
    retry_backoff_seconds: num(p.retry_backoff_seconds),
    retry_max_attempts: num(p.max_attempts),
    retry_policy: p.retry_policy ?? null,
    retry_after_attempt_id: str(p.retry_after_attempt_id),
    retry_after_attempt: num(p.retry_after_attempt),
    activity_attempt_id: str(p.activity_attempt_id),
    attempt_number: num(p.attempt_number),
    timer_id: str(p.timer_id),
    delay_seconds: num(p.delay_seconds) ?? num(p.timeout_seconds),
    child_call_id: str(p.child_call_id),
    child_workflow_instance_id: str(p.child_workflow_instance_id),
    child_workflow_run_id: str(p.child_workflow_run_id),
    child_workflow_type: str(p.child_workflow_type),
    child_workflow_class: str(p.child_workflow_class),
    child_status: str(p.child_status),
    parallel_group_kind: str(p.parallel_group_kind),
    parallel_group_id: str(p.parallel_group_id),
    parallel_group_base_sequence: num(p.parallel_group_base_sequence),
    parallel_group_size: num(p.parallel_group_size),
    parallel_group_index: num(p.parallel_group_index),
    parallel_group_path: Array.isArray(p.parallel_group_path) ? p.parallel_group_path : [],
    failure_id: str(p.failure_id),
    exception_type: str(p.exception_type),
    exception_class: str(p.exception_class),
    exception_resolved_class: null,
    exception_resolution_source: null,
    exception_resolution_error: null,
    message: str(p.message),
    closed_reason: str(p.closed_reason),
    timeout_kind: str(p.timeout_kind),
    command,
    task,
    activity,
    timer: str(p.timer_id)
      ? { id: str(p.timer_id), sequence: num(p.sequence), delay_seconds: num(p.delay_seconds), fire_at: str(p.fire_at), fired_at: str(p.fired_at), cancelled_at: str(p.cancelled_at) }
      : null,
    child: str(p.child_call_id)
      ? { child_call_id: str(p.child_call_id), instance_id: str(p.child_workflow_instance_id), run_id: str(p.child_workflow_run_id), type: str(p.child_workflow_type), status: str(p.child_status) }
      : null,
    failure,
  };
}
