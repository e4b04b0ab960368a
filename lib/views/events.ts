import type { FailureCategory, HistoryEventType, TimelineKind } from "@/lib/dw/enums";
import { epochMs } from "./epoch-ms";

/**
 * History events as the views read them.
 *
 * Two wire shapes carry the same events: `GET …/history` (`event_type`, `timestamp`) and the export
 * bundle's `history_events[]` (`id`, `type`, `recorded_at`). Both normalise to {@link ViewEvent}.
 * Payload values stay as the server sent them: codec blobs are decoded by lib/dw, not here.
 */

export type Payload = Readonly<Record<string, unknown>>;

export interface HistoryEventInput {
  id?: string | null;
  sequence: number;
  event_type?: string;
  type?: string;
  timestamp?: string | null;
  recorded_at?: string | null;
  /** PHP renders an empty payload as `[]`. */
  payload?: unknown;
}

export interface ViewEvent {
  id: string | null;
  sequence: number;
  type: HistoryEventType;
  recordedAt: string | null;
  /** `recordedAt` in epoch milliseconds. */
  at: number | null;
  payload: Payload;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toViewEvent(event: HistoryEventInput): ViewEvent {
  const recordedAt = event.recorded_at ?? event.timestamp ?? null;
  return {
    id: event.id ?? null,
    sequence: event.sequence,
    type: event.type ?? event.event_type ?? "",
    recordedAt,
    at: epochMs(recordedAt),
    payload: isRecord(event.payload) ? event.payload : {},
  };
}

/** Normalised events in sequence order (pages may arrive out of order after a long-poll merge). */
export function toViewEvents(events: readonly HistoryEventInput[]): ViewEvent[] {
  return events.map(toViewEvent).sort((a, b) => a.sequence - b.sequence);
}

export function readString(payload: Payload | null | undefined, key: string): string | null {
  const value = payload?.[key];
  if (typeof value === "string") return value;
  return typeof value === "number" ? String(value) : null;
}

export function readNumber(payload: Payload | null | undefined, key: string): number | null {
  const value = payload?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function readBoolean(payload: Payload | null | undefined, key: string): boolean | null {
  const value = payload?.[key];
  return typeof value === "boolean" ? value : null;
}

export function readObject(payload: Payload | null | undefined, key: string): Payload | null {
  const value = payload?.[key];
  return isRecord(value) ? value : null;
}

export function readArray(payload: Payload | null | undefined, key: string): readonly unknown[] {
  const value = payload?.[key];
  return Array.isArray(value) ? value : [];
}

export { epochMs } from "./epoch-ms";

/** Timeline `kind` of an event type (v2-model §4.2); unknown types fall in `workflow` as the engine does. */
export function eventKind(type: HistoryEventType): TimelineKind {
  if (type.startsWith("Activity")) return "activity";
  if (type.startsWith("Timer")) return "timer";
  if (type.startsWith("ConditionWait")) return "condition";
  if (type === "ChildWorkflowScheduled" || type.startsWith("ChildRun")) return "child";
  switch (type) {
    case "StartAccepted":
    case "StartRejected":
    case "SignalReceived":
    case "UpdateAccepted":
    case "UpdateRejected":
    case "RepairRequested":
    case "CancelRequested":
    case "TerminateRequested":
    case "ArchiveRequested":
      return "command";
    case "CooperativeCancellationRequested":
      return "command";
    case "SignalWaitOpened":
    case "SignalApplied":
    case "SignalWaitReceived":
    case "SignalWaitTimedOut":
    case "SignalWaitCancelled":
      return "signal";
    case "UpdateApplied":
    case "UpdateCompleted":
      return "update";
    case "FailureHandled":
      return "failure";
    case "SideEffectRecorded":
      return "side_effect";
    case "VersionMarkerRecorded":
      return "version";
    default:
      return "workflow";
  }
}

/**
 * `attempt`: one try failed and a retry was scheduled (no failure row exists).
 * `terminal`: a failure row exists (the run or the failing activity/child/update closed on it).
 * `handled`: workflow code caught an earlier terminal failure.
 */
export type FailureEventKind = "attempt" | "terminal" | "handled";

export interface FailureInfo {
  kind: FailureEventKind;
  eventType: HistoryEventType;
  failureId: string | null;
  /** null for retried attempts (the engine classifies only terminal failures) and unclassified old rows. */
  failureCategory: FailureCategory | null;
  nonRetryable: boolean;
  propagationKind: string | null;
  sourceKind: string | null;
  sourceId: string | null;
  exceptionType: string | null;
  exceptionClass: string | null;
  message: string | null;
  code: string | null;
  timeoutKind: string | null;
  activityExecutionId: string | null;
  activityAttemptId: string | null;
}

interface FailureDefaults {
  kind: FailureEventKind;
  category: FailureCategory | null;
  propagationKind: string | null;
  sourceKind: string | null;
  sourceIdKey: string | null;
}

/** Defaults per event type (v2-model §4.1 failure table) for keys an event does not carry. */
const FAILURE_DEFAULTS: Readonly<Record<string, FailureDefaults>> = {
  ActivityRetryScheduled: {
    kind: "attempt",
    category: null,
    propagationKind: null,
    sourceKind: "activity_execution",
    sourceIdKey: "activity_execution_id",
  },
  ActivityFailed: {
    kind: "terminal",
    category: "activity",
    propagationKind: "activity",
    sourceKind: "activity_execution",
    sourceIdKey: "activity_execution_id",
  },
  ActivityTimedOut: {
    kind: "terminal",
    category: "timeout",
    propagationKind: "timeout",
    sourceKind: "activity_execution",
    sourceIdKey: "activity_execution_id",
  },
  ChildRunFailed: {
    kind: "terminal",
    category: "child_workflow",
    propagationKind: "child",
    sourceKind: "child_workflow_run",
    sourceIdKey: "child_workflow_run_id",
  },
  ChildRunCancelled: {
    kind: "terminal",
    category: "cancelled",
    propagationKind: "cancelled",
    sourceKind: "child_workflow_run",
    sourceIdKey: "child_workflow_run_id",
  },
  ChildRunTerminated: {
    kind: "terminal",
    category: "terminated",
    propagationKind: "terminated",
    sourceKind: "child_workflow_run",
    sourceIdKey: "child_workflow_run_id",
  },
  WorkflowFailed: {
    kind: "terminal",
    category: "application",
    propagationKind: "terminal",
    sourceKind: "workflow_run",
    sourceIdKey: "workflow_run_id",
  },
  WorkflowTimedOut: {
    kind: "terminal",
    category: "timeout",
    propagationKind: "timeout",
    sourceKind: "workflow_run",
    sourceIdKey: "workflow_run_id",
  },
  WorkflowCancelled: {
    kind: "terminal",
    category: "cancelled",
    propagationKind: "cancelled",
    sourceKind: "workflow_run",
    sourceIdKey: "workflow_run_id",
  },
  WorkflowTerminated: {
    kind: "terminal",
    category: "terminated",
    propagationKind: "terminated",
    sourceKind: "workflow_run",
    sourceIdKey: "workflow_run_id",
  },
  UpdateCompleted: {
    kind: "terminal",
    category: "application",
    propagationKind: "update",
    sourceKind: "workflow_command",
    sourceIdKey: "workflow_command_id",
  },
  // A service operation's failure or cancellation carries the exception keys but, unlike the
  // events above, no failure row (DefaultWorkflowTaskBridge.php@8dc90d64 `serviceOperationEventPayload`;
  // FailureSnapshots::supportsEvent leaves it out), so it marks the timeline but makes no exception row.
  ServiceCallFailed: {
    kind: "terminal",
    category: null,
    propagationKind: "service_call",
    sourceKind: "service_call",
    sourceIdKey: "service_call_id",
  },
  ServiceCallCancelled: {
    kind: "terminal",
    category: "cancelled",
    propagationKind: "cancelled",
    sourceKind: "service_call",
    sourceIdKey: "service_call_id",
  },
  FailureHandled: { kind: "handled", category: null, propagationKind: null, sourceKind: null, sourceIdKey: null },
};

const GENERIC_FAILURE: FailureDefaults = {
  kind: "terminal",
  category: null,
  propagationKind: null,
  sourceKind: null,
  sourceIdKey: null,
};

function carriesFailure(event: ViewEvent): boolean {
  const p = event.payload;
  if (event.type === "UpdateCompleted")
    return readString(p, "failure_id") !== null || readString(p, "exception_class") !== null;
  if (event.type in FAILURE_DEFAULTS) return true;
  // Event types newer than this list (e.g. ServiceCallFailed) are failures when they name a failure row.
  return readString(p, "failure_id") !== null;
}

/** The failure an event records, or null when it records none. */
export function classifyFailureEvent(event: ViewEvent): FailureInfo | null {
  if (!carriesFailure(event)) return null;
  const p = event.payload;
  const defaults = FAILURE_DEFAULTS[event.type] ?? GENERIC_FAILURE;
  const exception = readObject(p, "exception");
  return {
    kind: defaults.kind,
    eventType: event.type,
    failureId: readString(p, "failure_id"),
    failureCategory: readString(p, "failure_category") ?? defaults.category,
    // ActivityRetryScheduled and ActivityTimedOut never carry the flag: both are retryable by definition.
    nonRetryable: readBoolean(p, "non_retryable") ?? readBoolean(exception, "non_retryable") ?? false,
    propagationKind: readString(p, "propagation_kind") ?? defaults.propagationKind,
    sourceKind: readString(p, "source_kind") ?? defaults.sourceKind,
    sourceId: readString(p, "source_id") ?? (defaults.sourceIdKey ? readString(p, defaults.sourceIdKey) : null),
    exceptionType: readString(p, "exception_type") ?? readString(exception, "type"),
    exceptionClass: readString(p, "exception_class") ?? readString(exception, "class"),
    message: readString(p, "message") ?? readString(exception, "message"),
    code: readString(p, "code") ?? readString(exception, "code"),
    timeoutKind: readString(p, "timeout_kind"),
    activityExecutionId: readString(p, "activity_execution_id"),
    activityAttemptId: readString(p, "activity_attempt_id") ?? readString(p, "retry_after_attempt_id"),
  };
}

export interface HistoryFilter {
  /** Event types to keep; empty or absent keeps all. */
  types?: readonly string[];
  /** Timeline kinds to keep (v2-model §4.2); empty or absent keeps all. */
  kinds?: readonly TimelineKind[];
  /** Keep only events that record a failure, retried attempts included. */
  failuresOnly?: boolean;
}

export function historyFilter(events: readonly HistoryEventInput[], filter: HistoryFilter = {}): ViewEvent[] {
  const types = filter.types?.length ? new Set(filter.types) : null;
  const kinds = filter.kinds?.length ? new Set<string>(filter.kinds) : null;
  return toViewEvents(events).filter(
    (event) =>
      (!types || types.has(event.type)) &&
      (!kinds || kinds.has(eventKind(event.type))) &&
      (!filter.failuresOnly || carriesFailure(event)),
  );
}

/**
 * What a history row is about (issue 15 item 10: rows showed only type and time): the activity,
 * timer, signal, child workflow, update or condition it names, read from the keys the engine writes
 * on those events (activity_type/activity_class and the `activity` snapshot, timer_id with
 * delay_seconds and timer_kind, signal_name, child_workflow_type/child_workflow_instance_id,
 * update_name, condition_key; durable-workflow/workflow@8dc90d649ec00f92291fa6377c45fac60ebe5de0
 * src/V2/Support/HistoryTimeline.php reads the same keys for its entry labels).
 */
export type EventSubject =
  | { kind: "activity" | "signal" | "child" | "update" | "condition"; name: string }
  /** A timer names no value of its own: its delay, and the signal or condition whose timeout it is. */
  | { kind: "timer"; seconds: number | null; timeoutOf: string | null }
  | null;

export function eventSubject(event: Pick<ViewEvent, "type" | "payload">): EventSubject {
  const p = event.payload;
  const type = event.type;
  if (type.startsWith("Activity")) {
    const snapshot = readObject(p, "activity");
    const name =
      readString(p, "activity_type") ??
      readString(p, "activity_class") ??
      readString(snapshot, "type") ??
      readString(snapshot, "class");
    return name ? { kind: "activity", name } : null;
  }
  if (type.startsWith("Timer")) {
    const timeoutOf = readString(p, "signal_name") ?? readString(p, "condition_key");
    return { kind: "timer", seconds: readNumber(p, "delay_seconds"), timeoutOf };
  }
  if (type === "ChildWorkflowScheduled" || type.startsWith("ChildRun")) {
    const name =
      readString(p, "child_workflow_type") ??
      readString(p, "child_workflow_class") ??
      readString(p, "child_workflow_instance_id");
    return name ? { kind: "child", name } : null;
  }
  const signal = readString(p, "signal_name");
  if (signal && type.startsWith("Signal")) return { kind: "signal", name: signal };
  const update = readString(p, "update_name");
  if (update && type.startsWith("Update")) return { kind: "update", name: update };
  const condition = readString(p, "condition_key");
  if (condition && type.startsWith("ConditionWait")) return { kind: "condition", name: condition };
  return null;
}
