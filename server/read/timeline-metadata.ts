import type { ActivityRow, CommandRow, TaskRow, TimerRow } from "../engine/rows";
import { commandAttribution } from "../engine/command-context";
import { decodeBlob } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import { isoMicros } from "./format";
import type { Json } from "./format";

/**
 * The metadata objects of a `timeline[]` entry — command, task, activity, timer, child, failure —
 * each built from the event's payload snapshot and the run's current row, following
 * `HistoryTimeline`'s builders (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryTimeline.php).
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

export interface Metadata {
  command: Json | null;
  task: Json | null;
  activity: Json | null;
  timer: Json | null;
  child: Json | null;
  failure: Json | null;
}

/** `HistoryTimeline::stringValue`: a non-empty string or null. */
export function s(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** `HistoryTimeline::intValue`: an integer, or a numeric string as one. */
export function i(v: unknown): number | null {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  return null;
}

export function obj(v: unknown): Json | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
}

export const has = (p: Json, key: string): boolean => Object.prototype.hasOwnProperty.call(p, key);

export const COMMAND_EVENTS = new Set([
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

export const CHILD_EVENTS = new Set([
  "ChildWorkflowScheduled",
  "ChildRunStarted",
  "ChildRunCompleted",
  "ChildRunFailed",
  "ChildRunCancelled",
  "ChildRunTerminated",
]);

export const ACTIVITY_EVENTS = new Set([
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

/**
 * `HistoryTimeline::commandMetadata` (HistoryTimeline.php@8dc90d6): the snapshot first, then the row's
 * stored context (caller, auth, request; engine/command-context.ts). This server records no principal.
 */
export function commandMetadata(
  type: string,
  command: CommandRow | undefined,
  p: Json,
  commandId: string | null,
): Json | null {
  const snap = obj(p.command);
  const who = command ? commandAttribution(command) : null;
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
    caller_label: s(snap?.caller_label) ?? who?.caller_label ?? null,
    principal_type: s(snap?.principal_type),
    principal_id: s(snap?.principal_id),
    principal_label: s(snap?.principal_label),
    auth_status: s(snap?.auth_status) ?? who?.auth_status ?? null,
    auth_method: s(snap?.auth_method) ?? who?.auth_method ?? null,
    request_method: s(snap?.request_method) ?? who?.request_method ?? null,
    request_path: s(snap?.request_path) ?? who?.request_path ?? null,
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
export function taskMetadata(type: string, task: TaskRow | undefined, p: Json, taskId: string | null): Json | null {
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
export function activityMetadata(
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
export function timerMetadata(type: string, timer: TimerRow | undefined, p: Json, timerId: string | null): Json | null {
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
export function childMetadata(type: string, p: Json): Json | null {
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
export function failureMetadata(
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
