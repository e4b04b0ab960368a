import type { ActivityRow, CommandRow, TaskRow, TimerRow } from "../engine/rows";
import { decodeBlob } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import { isoMicros } from "./format";
import type { Json } from "./format";

/**
 * The export's `timeline[]`: one point entry per history event, following
 * `HistoryTimeline::mapEvent` and its metadata builders (durable-workflow/workflow@8dc90d6
 * src/V2/Support/HistoryTimeline.php). The real entry has no top-level `activity_attempt_id`,
 * `attempt_number` or `timeout_kind` (those stay in the event payload), and its `failure` object
 * is built per event type — for `ActivityRetryScheduled` (no failure row) `id` and `handled` are
 * null and `source_kind` / `propagation_kind` too.
 */

export interface HistoryEventRecord {
  id: string;
  sequence: number;
  event_type: string;
  payload: Json;
  workflow_task_id: string | null;
  workflow_command_id: string | null;
  recorded_at: number;
}

/** `FailureSnapshots::forRun` fields the timeline reads (HistoryTimeline.php@8dc90d6 `failureMetadata`). */
export interface FailureSnapshot {
  id: string;
  source_kind: string | null;
  source_id: string | null;
  propagation_kind: string | null;
  failure_category: string | null;
  non_retryable: boolean;
  handled: boolean;
  exception_type: string | null;
  exception_class: string | null;
  message: string | null;
  file: string | null;
  line: number | null;
}

/** The run's rows the builders consult, keyed by id (`HistoryTimeline::fromHistory`). */
export interface TimelineContext {
  runId: string;
  commands: ReadonlyMap<string, CommandRow>;
  tasks: ReadonlyMap<string, TaskRow>;
  activities: ReadonlyMap<string, ActivityRow>;
  timers: ReadonlyMap<string, TimerRow>;
  failures: ReadonlyMap<string, FailureSnapshot>;
}

/** `HistoryTimeline::stringValue`: a non-empty string or null. */
function s(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** `HistoryTimeline::intValue`: an integer, or a numeric string as one. */
function i(v: unknown): number | null {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  return null;
}

function obj(v: unknown): Json | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
}

const has = (p: Json, key: string): boolean => Object.prototype.hasOwnProperty.call(p, key);

const COMMAND_EVENTS = new Set([
  "StartAccepted",
  "StartRejected",
  "SignalReceived",
  "UpdateAccepted",
  "UpdateRejected",
  "RepairRequested",
  "CancelRequested",
  "TerminateRequested",
  "ArchiveRequested",
]);
const CHILD_EVENTS = new Set([
  "ChildWorkflowScheduled",
  "ChildRunStarted",
  "ChildRunCompleted",
  "ChildRunFailed",
  "ChildRunCancelled",
  "ChildRunTerminated",
]);
const ACTIVITY_EVENTS = new Set([
  "ActivityScheduled",
  "ActivityStarted",
  "ActivityHeartbeatRecorded",
  "ActivityRetryScheduled",
  "ActivityCompleted",
  "ActivityFailed",
  "ActivityCancelled",
  "ActivityTimedOut",
]);
const ACTIVITY_CLOSE_EVENTS = new Set(["ActivityCompleted", "ActivityFailed", "ActivityTimedOut", "ActivityCancelled"]);

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

/** `CommandPayloadPreview::previewWithCodec`: the decoded value for display, the raw blob when it does not decode. */
function payloadPreview(blob: string | null, codec: string | null): unknown {
  if (blob === null) return null;
  if (codec !== null && codec !== "avro") return blob;
  try {
    return displayValue(decodeBlob(blob));
  } catch {
    return blob;
  }
}

function displayValue(v: PayloadValue): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return { $type: "bytes", base64: Buffer.from(v).toString("base64") };
  if (Array.isArray(v)) return v.map(displayValue);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, displayValue(x)]));
  return v;
}

function historicalCommandStatus(type: string, command: CommandRow | undefined): string | null {
  if (type === "StartRejected" || type === "UpdateRejected") return "rejected";
  if (COMMAND_EVENTS.has(type) || type === "UpdateApplied" || type === "UpdateCompleted") return "accepted";
  return command?.status ?? null;
}

function historicalCommandOutcome(type: string, command: CommandRow | undefined, p: Json): string | null {
  const fromPayload = s(p.outcome);
  if (fromPayload !== null) return fromPayload;
  switch (type) {
    case "SignalReceived":
      return "signal_received";
    case "UpdateAccepted":
    case "UpdateApplied":
      return null;
    case "UpdateCompleted":
      return has(p, "failure_id") ? "update_failed" : "update_completed";
    case "CancelRequested":
      return "cancelled";
    case "TerminateRequested":
      return "terminated";
    case "ArchiveRequested":
      return "archived";
    default:
      return command?.outcome ?? null;
  }
}

/** `HistoryTimeline::commandMetadata` (HistoryTimeline.php@8dc90d6). This server records no caller, principal or request metadata. */
function commandMetadata(
  type: string,
  command: CommandRow | undefined,
  p: Json,
  commandId: string | null,
): Json | null {
  const snap = obj(p.command);
  const id = command?.id ?? commandId ?? s(snap?.id);
  if (!command && id === null && !snap && !has(p, "outcome") && !has(p, "rejection_reason") && !has(p, "command_type"))
    return null;
  const codec = s(snap?.payload_codec) ?? command?.payload_codec ?? null;
  const blob = s(snap?.payload) ?? s(command?.payload);
  return {
    id,
    sequence: i(snap?.sequence) ?? command?.command_sequence ?? null,
    type: s(snap?.type) ?? command?.command_type ?? s(p.command_type),
    target_scope: s(snap?.target_scope) ?? command?.target_scope ?? null,
    requested_run_id: s(snap?.requested_run_id) ?? command?.requested_workflow_run_id ?? null,
    resolved_run_id: s(snap?.resolved_run_id) ?? command?.resolved_workflow_run_id ?? null,
    target_name: s(snap?.target_name) ?? s(command?.target_name) ?? s(p.signal_name) ?? s(p.update_name),
    payload_codec: codec,
    payload_available: blob !== null,
    payload: payloadPreview(blob, codec),
    source: s(snap?.source) ?? command?.source ?? null,
    context: obj(snap?.context),
    caller_label: s(snap?.caller_label),
    principal_type: s(snap?.principal_type),
    principal_id: s(snap?.principal_id),
    principal_label: s(snap?.principal_label),
    auth_status: s(snap?.auth_status),
    auth_method: s(snap?.auth_method),
    request_method: s(snap?.request_method) ?? commandRequest(command, "method"),
    request_path: s(snap?.request_path) ?? commandRequest(command, "path"),
    request_route_name: s(snap?.request_route_name),
    request_fingerprint: s(snap?.request_fingerprint),
    status: historicalCommandStatus(type, command),
    outcome: historicalCommandOutcome(type, command, p),
    rejection_reason: s(snap?.rejection_reason) ?? command?.rejection_reason ?? s(p.rejection_reason),
    accepted_at: s(snap?.accepted_at) ?? isoMicros(command?.accepted_at),
    applied_at: s(snap?.applied_at) ?? isoMicros(command?.applied_at),
    rejected_at: s(snap?.rejected_at) ?? isoMicros(command?.rejected_at),
  };
}

/** `$command?->requestMethod()` / `requestPath()`: the `request` part of the stored command context. */
function commandRequest(command: CommandRow | undefined, key: "method" | "path"): string | null {
  if (!command?.context) return null;
  try {
    const request = (JSON.parse(command.context) as { request?: Record<string, unknown> } | null)?.request;
    return s(request?.[key]);
  } catch {
    return null;
  }
}

function historicalTaskType(type: string): string {
  if (ACTIVITY_EVENTS.has(type) && type !== "ActivityScheduled") return "activity";
  return type === "TimerFired" ? "timer" : "workflow";
}

function historicalTaskStatus(type: string): string {
  if (type === "ActivityStarted" || type === "ActivityHeartbeatRecorded") return "leased";
  if (type === "ActivityCancelled") return "cancelled";
  return type === "WorkflowFailed" ? "failed" : "completed";
}

/** `HistoryTimeline::taskMetadata` (HistoryTimeline.php@8dc90d6). */
function taskMetadata(type: string, task: TaskRow | undefined, p: Json, taskId: string | null): Json | null {
  const snap = obj(p.task);
  const id = task?.id ?? taskId ?? s(snap?.id);
  if (!task && id === null && !snap) return null;
  const times = {
    available_at: s(snap?.available_at) ?? isoMicros(task?.available_at),
    leased_at: s(snap?.leased_at) ?? isoMicros(task?.leased_at),
    lease_expires_at: s(snap?.lease_expires_at) ?? isoMicros(task?.lease_expires_at),
  };
  if (type === "RepairRequested") {
    return {
      id,
      type: s(p.task_type) ?? s(snap?.type) ?? task?.task_type ?? null,
      status: id === null ? null : "ready",
      ...times,
      attempt_count: null,
    };
  }
  return {
    id,
    type: (id !== null ? historicalTaskType(type) : null) ?? s(snap?.type) ?? task?.task_type ?? null,
    status: (id !== null ? historicalTaskStatus(type) : null) ?? s(snap?.status) ?? task?.status ?? null,
    ...times,
    attempt_count: snap && has(snap, "attempt_count") ? i(snap.attempt_count) : (task?.attempt_count ?? null),
  };
}

const ACTIVITY_STATUS_FOR_EVENT: Record<string, string> = {
  ActivityScheduled: "pending",
  ActivityStarted: "running",
  ActivityHeartbeatRecorded: "running",
  ActivityRetryScheduled: "pending",
  ActivityCompleted: "completed",
  ActivityFailed: "failed",
  ActivityTimedOut: "failed",
  ActivityCancelled: "cancelled",
};

/** `HistoryTimeline::activityMetadata` over `ActivitySnapshot::fromEvent` (both @8dc90d6). */
function activityMetadata(
  e: HistoryEventRecord,
  activity: ActivityRow | undefined,
  activityId: string | null,
  failure: FailureSnapshot | undefined,
): Json | null {
  const p = e.payload;
  const snap = obj(p.activity) ?? {};
  const snapId = s(snap.id) ?? activityId;
  const fromEvent =
    snapId !== null || Object.keys(snap).length > 0 || has(p, "activity_type") || has(p, "activity_class");
  if (!fromEvent && !activity && activityId === null) return null;
  const resolvedId =
    activity?.id ?? activityId ?? (failure?.source_kind === "activity_execution" ? failure.source_id : null);
  const scheduled = e.event_type === "ActivityScheduled";
  const progress = obj(snap.last_heartbeat_progress) ?? obj(p.progress);
  return {
    id: snapId ?? resolvedId,
    idempotency_key: s(snap.idempotency_key) ?? s(p.idempotency_key) ?? resolvedId,
    sequence: i(snap.sequence) ?? i(p.sequence) ?? activity?.sequence ?? null,
    type: s(snap.type) ?? s(p.activity_type) ?? activity?.activity_type ?? null,
    class: s(snap.class) ?? s(p.activity_class) ?? activity?.activity_class ?? null,
    parallel_group_path: Array.isArray(p.parallel_group_path) ? p.parallel_group_path : [],
    attempt_id: s(snap.attempt_id) ?? (scheduled ? null : s(activity?.current_attempt_id)),
    status:
      (fromEvent ? (s(snap.status) ?? ACTIVITY_STATUS_FOR_EVENT[e.event_type]) : null) ?? activity?.status ?? null,
    attempt_count:
      i(snap.attempt_count) ??
      (scheduled
        ? activity?.status === "pending" && activity.started_at === null
          ? 0
          : (activity?.attempt_count ?? 1)
        : (activity?.attempt_count ?? null)),
    retry_policy:
      obj(snap.retry_policy) ??
      obj(p.retry_policy) ??
      (activity?.retry_policy ? (JSON.parse(activity.retry_policy) as unknown) : null),
    connection: s(snap.connection) ?? activity?.connection ?? null,
    queue: s(snap.queue) ?? activity?.queue ?? null,
    started_at: scheduled
      ? null
      : (s(snap.started_at) ??
        (e.event_type === "ActivityStarted" ? isoMicros(e.recorded_at) : null) ??
        isoMicros(activity?.started_at)),
    closed_at: ACTIVITY_CLOSE_EVENTS.has(e.event_type)
      ? (s(snap.closed_at) ?? isoMicros(e.recorded_at) ?? isoMicros(activity?.closed_at))
      : null,
    last_heartbeat_at: s(snap.last_heartbeat_at) ?? isoMicros(activity?.last_heartbeat_at),
    last_heartbeat_progress: progress,
  };
}

/** `HistoryTimeline::timerMetadata` (HistoryTimeline.php@8dc90d6). */
function timerMetadata(type: string, timer: TimerRow | undefined, p: Json, timerId: string | null): Json | null {
  if (
    !timer &&
    timerId === null &&
    !has(p, "delay_seconds") &&
    !has(p, "fire_at") &&
    !has(p, "fired_at") &&
    !has(p, "cancelled_at")
  )
    return null;
  const status: Record<string, string> = {
    TimerScheduled: "pending",
    TimerFired: "fired",
    TimerCancelled: "cancelled",
  };
  return {
    id: timerId ?? timer?.id ?? null,
    sequence: i(p.sequence) ?? timer?.sequence ?? null,
    status: status[type] ?? timer?.status ?? null,
    delay_seconds: i(p.delay_seconds) ?? timer?.delay_seconds ?? null,
    fire_at: s(p.fire_at) ?? isoMicros(timer?.fire_at),
    fired_at: type === "TimerScheduled" ? null : (s(p.fired_at) ?? isoMicros(timer?.fired_at)),
    cancelled_at: type === "TimerCancelled" ? (s(p.cancelled_at) ?? isoMicros(timer?.cancelled_at)) : null,
  };
}

/** `HistoryTimeline::childMetadata` (HistoryTimeline.php@8dc90d6). */
function childMetadata(type: string, p: Json): Json | null {
  const keys = [
    "child_call_id",
    "child_workflow_instance_id",
    "child_workflow_run_id",
    "child_workflow_type",
    "child_workflow_class",
  ];
  if (!keys.some((k) => has(p, k)) && !CHILD_EVENTS.has(type)) return null;
  const closed: Record<string, string> = {
    ChildRunCompleted: "completed",
    ChildRunFailed: "failed",
    ChildRunCancelled: "cancelled",
    ChildRunTerminated: "terminated",
  };
  const legacyCallId = type === "ChildWorkflowScheduled" || type === "ChildRunStarted" ? s(p.workflow_link_id) : null;
  return {
    child_call_id: s(p.child_call_id) ?? legacyCallId,
    instance_id: s(p.child_workflow_instance_id),
    run_id: s(p.child_workflow_run_id),
    type: s(p.child_workflow_type),
    class: s(p.child_workflow_class),
    status: s(p.child_status) ?? closed[type] ?? null,
    run_number: i(p.child_run_number),
    parallel_group_path: Array.isArray(p.parallel_group_path) ? p.parallel_group_path : [],
  };
}

const PROPAGATION_FOR_EVENT: Record<string, string> = {
  ActivityFailed: "activity",
  ActivityTimedOut: "timeout",
  ChildRunFailed: "child",
  ChildRunCancelled: "cancelled",
  WorkflowCancelled: "cancelled",
  ChildRunTerminated: "terminated",
  WorkflowTerminated: "terminated",
  WorkflowTimedOut: "timeout",
  WorkflowFailed: "terminal",
};
const CATEGORY_FOR_EVENT: Record<string, string> = {
  ActivityFailed: "activity",
  ActivityTimedOut: "timeout",
  ChildRunFailed: "child_workflow",
  ChildRunCancelled: "cancelled",
  WorkflowCancelled: "cancelled",
  ChildRunTerminated: "terminated",
  WorkflowTerminated: "terminated",
  WorkflowTimedOut: "timeout",
  WorkflowFailed: "application",
};
const UNHANDLED_EVENTS = new Set(["ActivityFailed", "ActivityTimedOut", "WorkflowTimedOut", "WorkflowFailed"]);

/**
 * `HistoryTimeline::failureMetadata` (HistoryTimeline.php@8dc90d6): built whenever the payload
 * names a failure id, a message, an exception class or a source; `handled` is true for
 * FailureHandled, false for the four failing events, and otherwise the failure row's flag — null
 * when there is no row (ActivityRetryScheduled has none).
 */
function failureMetadata(
  type: string,
  failure: FailureSnapshot | undefined,
  p: Json,
  failureId: string | null,
): Json | null {
  if (
    !failure &&
    failureId === null &&
    !has(p, "message") &&
    !has(p, "exception_class") &&
    !has(p, "source_kind") &&
    !has(p, "source_id")
  )
    return null;
  const id = failure?.id ?? failureId;
  let propagation: string | null;
  if (type === "FailureHandled") propagation = s(p.propagation_kind) ?? failure?.propagation_kind ?? null;
  else if (type === "UpdateCompleted") propagation = id === null ? null : "update";
  else propagation = PROPAGATION_FOR_EVENT[type] ?? failure?.propagation_kind ?? null;
  let handled: boolean | null;
  if (type === "FailureHandled") handled = true;
  else if (UNHANDLED_EVENTS.has(type)) handled = false;
  else if (type === "UpdateCompleted") handled = id === null ? null : false;
  else handled = failure ? failure.handled : null;
  const updateCategory = type === "UpdateCompleted" && id !== null ? "application" : null;
  return {
    id,
    source_kind: s(p.source_kind) ?? failure?.source_kind ?? null,
    source_id: s(p.source_id) ?? failure?.source_id ?? null,
    propagation_kind: propagation,
    failure_category: s(p.failure_category) ?? failure?.failure_category ?? CATEGORY_FOR_EVENT[type] ?? updateCategory,
    non_retryable: typeof p.non_retryable === "boolean" ? p.non_retryable : (failure?.non_retryable ?? false),
    handled,
    exception_type: s(p.exception_type) ?? failure?.exception_type ?? null,
    exception_class: s(p.exception_class) ?? failure?.exception_class ?? null,
    exception_resolved_class: null,
    exception_resolution_source: null,
    exception_resolution_error: null,
    exception_replay_blocked: false,
    message: s(p.message) ?? failure?.message ?? null,
    file: s(failure?.file),
    line: failure?.line ?? null,
  };
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

function displayLabel(v: string): string {
  return v.includes("\\") ? (v.split("\\").pop() ?? v) : v;
}

function durationLabel(seconds: number): string {
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

function conditionLabel(p: Json): string {
  const key = s(p.condition_key);
  return key === null ? "" : ` ${key}`;
}

interface Metadata {
  command: Json | null;
  task: Json | null;
  activity: Json | null;
  timer: Json | null;
  child: Json | null;
  failure: Json | null;
}

/** `HistoryTimeline::summaryFor`: the summary sentences, verbatim (HistoryTimeline.php@8dc90d6). */
export function timelineSummary(e: HistoryEventRecord, m: Metadata): string {
  const p = e.payload;
  const activity = displayLabel(s(m.activity?.type) ?? s(m.activity?.class) ?? "activity");
  const delay = i(m.timer?.delay_seconds);
  const message = s(m.failure?.message);
  const outcome = s(m.command?.outcome);
  const rejection = s(m.command?.rejection_reason);
  const signal = s(m.command?.target_name) ?? s(p.signal_name);
  const update = s(m.command?.target_name) ?? s(p.update_name);
  const child = displayLabel(s(m.child?.type) ?? s(m.child?.class) ?? s(m.child?.run_id) ?? "child workflow");
  const timeout = i(p.timeout_seconds);
  const timerKind = s(p.timer_kind);
  const or = (withValue: string | null, without: string): string => withValue ?? without;
  switch (e.event_type) {
    case "StartAccepted":
      return or(outcome && `Start accepted as ${outcome}.`, "Start accepted.");
    case "StartRejected":
      return or(rejection && `Start rejected: ${rejection}.`, "Start rejected.");
    case "WorkflowStarted":
      return "Workflow run started.";
    case "WorkflowContinuedAsNew":
      return `Continued as new on run ${s(p.continued_to_run_id) ?? "unknown"}.`;
    case "ChildWorkflowScheduled":
      return `Scheduled child workflow ${child}.`;
    case "ChildRunStarted":
      return `Child workflow ${child} started.`;
    case "ChildRunCompleted":
      return `Child workflow ${child} completed.`;
    case "ChildRunFailed":
      return or(message && `Child workflow ${child} failed: ${message}.`, `Child workflow ${child} failed.`);
    case "ChildRunCancelled":
      return `Child workflow ${child} cancelled.`;
    case "ChildRunTerminated":
      return `Child workflow ${child} terminated.`;
    case "ConditionWaitOpened":
      return p.timeout_seconds == null
        ? `Waiting for condition${conditionLabel(p)}.`
        : `Waiting for condition${conditionLabel(p)} or timeout after ${durationLabel(timeout ?? 0)}.`;
    case "ConditionWaitSatisfied":
      return "Condition satisfied.";
    case "ConditionWaitTimedOut":
      return `Condition timed out after ${durationLabel(timeout ?? delay ?? 0)}.`;
    case "SignalWaitOpened":
      if (signal === null) return "Waiting for signal.";
      return p.timeout_seconds == null
        ? `Waiting for signal ${signal}.`
        : `Waiting for signal ${signal} or timeout after ${durationLabel(timeout ?? 0)}.`;
    case "SignalReceived":
      return or(signal && `Signal ${signal} received.`, "Signal received.");
    case "SignalApplied":
      return or(signal && `Applied signal ${signal}.`, "Signal applied.");
    case "UpdateAccepted":
      return or(update && `Accepted update ${update}.`, "Update accepted.");
    case "UpdateRejected":
      if (update !== null && rejection !== null) return `Rejected update ${update}: ${rejection}.`;
      if (update !== null) return `Rejected update ${update}.`;
      return or(rejection && `Update rejected: ${rejection}.`, "Update rejected.");
    case "UpdateApplied":
      return or(update && `Applied update ${update}.`, "Update applied.");
    case "UpdateCompleted":
      if (message === null) return or(update && `Completed update ${update}.`, "Update completed.");
      return update === null ? `Update failed: ${message}.` : `Update ${update} failed: ${message}.`;
    case "RepairRequested":
      if (outcome === "repair_dispatched")
        return `Repair recreated ${displayLabel(s(m.task?.type) ?? "workflow")} task.`;
      return outcome === "repair_not_needed"
        ? "Repair accepted; the run already had a durable resume source."
        : "Repair accepted.";
    case "CancelRequested":
      return "Cancel requested.";
    case "WorkflowCancelled":
      return "Workflow cancelled.";
    case "TerminateRequested":
      return "Terminate requested.";
    case "WorkflowTerminated":
      return "Workflow terminated.";
    case "ArchiveRequested":
      return outcome === "archive_not_needed"
        ? "Archive accepted; the run was already archived."
        : outcome === "archived"
          ? "Archive requested."
          : "Archive accepted.";
    case "WorkflowArchived":
      return "Workflow archived.";
    case "ActivityScheduled":
      return `Scheduled ${activity}.`;
    case "ActivityStarted":
      return `Started ${activity}.`;
    case "ActivityHeartbeatRecorded":
      return `Recorded heartbeat for ${activity}.`;
    case "ActivityRetryScheduled":
      return `Scheduled retry ${(i(p.retry_after_attempt) ?? 0) + 1} for ${activity}.`;
    case "ActivityCompleted":
      return `Completed ${activity}.`;
    case "ActivityFailed":
      return or(message && `Failed ${activity}: ${message}.`, `Failed ${activity}.`);
    case "ActivityCancelled":
      return `Cancelled ${activity}.`;
    case "ActivityTimedOut":
      return or(message && `Timed out ${activity}: ${message}.`, `Timed out ${activity}.`);
    case "FailureHandled":
      return or(message && `Handled failure: ${message}.`, "Failure handled.");
    case "SideEffectRecorded":
      return "Recorded side effect.";
    case "SearchAttributesUpserted":
      return "Search attributes upserted.";
    case "MemoUpserted":
      return "Memo upserted.";
    case "VersionMarkerRecorded": {
      const change = s(p.change_id);
      const version = i(p.version);
      if (change !== null && version !== null) return `Recorded version marker ${change} = ${version}.`;
      if (change !== null) return `Recorded version marker ${change}.`;
      return version !== null ? `Recorded version marker ${version}.` : "Recorded version marker.";
    }
    case "TimerScheduled":
      if (timerKind === "condition_timeout")
        return delay === null
          ? "Scheduled condition timeout."
          : `Scheduled condition timeout for ${durationLabel(delay)}.`;
      if (timerKind === "signal_timeout")
        return delay === null ? "Scheduled signal timeout." : `Scheduled signal timeout for ${durationLabel(delay)}.`;
      return delay === null ? "Scheduled timer." : `Scheduled timer for ${durationLabel(delay)}.`;
    case "TimerFired":
      if (timerKind === "condition_timeout")
        return delay === null ? "Condition timeout fired." : `Condition timeout fired after ${durationLabel(delay)}.`;
      if (timerKind === "signal_timeout")
        return delay === null ? "Signal timeout fired." : `Signal timeout fired after ${durationLabel(delay)}.`;
      return delay === null ? "Timer fired." : `Timer fired after ${durationLabel(delay)}.`;
    case "TimerCancelled":
      return timerKind === "condition_timeout"
        ? "Condition timeout cancelled."
        : timerKind === "signal_timeout"
          ? "Signal timeout cancelled."
          : "Timer cancelled.";
    case "MessageCursorAdvanced":
      return `Message cursor advanced to ${i(p.new_position) ?? 0}.`;
    case "WorkflowCompleted":
      return "Workflow completed.";
    case "WorkflowTimedOut":
      if (p.timeout_kind === "execution_timeout") return "Workflow execution deadline expired.";
      if (p.timeout_kind === "run_timeout") return "Workflow run deadline expired.";
      return or(message && `Workflow timed out: ${message}.`, "Workflow timed out.");
    case "WorkflowFailed":
      return or(message && `Workflow failed: ${message}.`, "Workflow failed.");
    default:
      return `${e.event_type}.`;
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
