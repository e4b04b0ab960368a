import type { ActivityAttemptStatus, TimelineKind } from "@/lib/dw/enums";
import type { ActivityRowInput, AttemptFailure } from "./attempts";
import { ledgerFromEvents } from "./attempts";
import type { FailureInfo, HistoryEventInput, ViewEvent } from "./events";
import { classifyFailureEvent, epochMs, eventKind, readNumber, readString, toViewEvents } from "./events";
import type { Message, ViewMessageId } from "./message";
import { message } from "./message";

/**
 * The run timeline in two projections of the same history: bars and markers on a time axis, and
 * the event list (Seq, Type, Summary, Recorded, Source). Times are epoch milliseconds; open bars
 * end at null and the screen draws them to "now".
 */

interface BarBase {
  /** Bars sharing a lane are drawn on one row. */
  lane: string;
  label: string | null;
  start: number | null;
  end: number | null;
}

export interface WorkflowBar extends BarBase {
  kind: "workflow";
  status: "running" | "completed" | "failed" | "timed_out" | "cancelled" | "terminated" | "continued";
}

export interface ActivityAttemptBar extends BarBase {
  kind: "activity";
  executionId: string;
  attemptId: string;
  attempt: number;
  status: ActivityAttemptStatus;
  worker: string | null;
  failure: AttemptFailure | null;
}

export interface TimerBar extends BarBase {
  kind: "timer";
  timerId: string;
  status: "pending" | "fired" | "cancelled";
  fireAt: number | null;
  delaySeconds: number | null;
}

export interface ChildBar extends BarBase {
  kind: "child";
  childCallId: string;
  childWorkflowId: string | null;
  childRunId: string | null;
  status: string;
}

export type TimelineBar = WorkflowBar | ActivityAttemptBar | TimerBar | ChildBar;

export interface FailureMarker {
  kind: "failure";
  lane: string;
  at: number | null;
  sequence: number;
  failure: FailureInfo;
}

export interface RetryMarker {
  kind: "retry";
  lane: string;
  at: number | null;
  sequence: number;
  executionId: string;
  activity: string | null;
  afterAttempt: number | null;
  backoffSeconds: number | null;
  /** When the next attempt becomes available. */
  availableAt: number | null;
  failure: FailureInfo;
}

export type TimelineMarker = FailureMarker | RetryMarker;

export interface TimelineChart {
  start: number | null;
  /** Latest known instant; `now` while the run is open. */
  end: number | null;
  bars: TimelineBar[];
  markers: TimelineMarker[];
}

export interface TimelineOptions {
  /** Export `activities[]`, which knows attempts that expired without an event. */
  activities?: readonly ActivityRowInput[];
  /** Epoch ms; stretches the axis to now while bars are still open. */
  now?: number;
}

const WORKFLOW_CLOSE: Readonly<Record<string, WorkflowBar["status"]>> = {
  WorkflowCompleted: "completed",
  WorkflowFailed: "failed",
  WorkflowTimedOut: "timed_out",
  WorkflowCancelled: "cancelled",
  WorkflowTerminated: "terminated",
  WorkflowContinuedAsNew: "continued",
};

const CHILD_CLOSE: Readonly<Record<string, string>> = {
  ChildRunCompleted: "completed",
  ChildRunFailed: "failed",
  ChildRunCancelled: "cancelled",
  ChildRunTerminated: "terminated",
};

const ACTIVITY_LANE = (executionId: string) => `activity:${executionId}`;

function childKey(event: ViewEvent): string | null {
  const p = event.payload;
  return (
    readString(p, "child_call_id") ?? readString(p, "workflow_link_id") ?? readString(p, "child_workflow_instance_id")
  );
}

function markerLane(event: ViewEvent, failure: FailureInfo): string {
  if (failure.activityExecutionId) return ACTIVITY_LANE(failure.activityExecutionId);
  const child = event.type.startsWith("ChildRun") ? childKey(event) : null;
  return child ? `child:${child}` : "workflow";
}

/** A loop, not Math.min(...spread): a 50,000-event history would overflow the argument list. */
function bounds(values: readonly (number | null)[]): { min: number | null; max: number | null } {
  let min: number | null = null;
  let max: number | null = null;
  for (const value of values) {
    if (value === null) continue;
    if (min === null || value < min) min = value;
    if (max === null || value > max) max = value;
  }
  return { min, max };
}

export function timelineRows(history: readonly HistoryEventInput[], options: TimelineOptions = {}): TimelineChart {
  const events = toViewEvents(history);
  const workflow: WorkflowBar = {
    kind: "workflow",
    lane: "workflow",
    label: null,
    start: null,
    end: null,
    status: "running",
  };
  const timers = new Map<string, TimerBar>();
  const children = new Map<string, ChildBar>();
  const markers: TimelineMarker[] = [];

  for (const event of events) {
    const p = event.payload;
    if (event.type === "WorkflowStarted") {
      workflow.start = event.at;
      workflow.label = readString(p, "workflow_type") ?? readString(p, "workflow_class");
    } else if (event.type in WORKFLOW_CLOSE) {
      workflow.end = event.at;
      workflow.status = WORKFLOW_CLOSE[event.type] ?? workflow.status;
    } else if (event.type.startsWith("Timer")) {
      const timerId = readString(p, "timer_id");
      if (!timerId) continue;
      const timer: TimerBar = timers.get(timerId) ?? {
        kind: "timer",
        lane: `timer:${timerId}`,
        label: readString(p, "timer_kind"),
        timerId,
        start: event.at,
        end: null,
        status: "pending",
        fireAt: epochMs(readString(p, "fire_at")),
        delaySeconds: readNumber(p, "delay_seconds"),
      };
      timers.set(timerId, timer);
      if (event.type === "TimerFired") {
        timer.status = "fired";
        timer.end = epochMs(readString(p, "fired_at")) ?? event.at;
      } else if (event.type === "TimerCancelled") {
        timer.status = "cancelled";
        timer.end = epochMs(readString(p, "cancelled_at")) ?? event.at;
      }
    } else if (event.type === "ChildWorkflowScheduled" || event.type.startsWith("ChildRun")) {
      const key = childKey(event);
      if (!key) continue;
      const child: ChildBar = children.get(key) ?? {
        kind: "child",
        lane: `child:${key}`,
        label: readString(p, "child_workflow_type") ?? readString(p, "child_workflow_class"),
        childCallId: key,
        childWorkflowId: null,
        childRunId: null,
        start: event.at,
        end: null,
        status: "scheduled",
      };
      children.set(key, child);
      child.childWorkflowId = readString(p, "child_workflow_instance_id") ?? child.childWorkflowId;
      child.childRunId = readString(p, "child_workflow_run_id") ?? child.childRunId;
      if (event.type === "ChildRunStarted") child.status = readString(p, "child_status") ?? "started";
      const closed = CHILD_CLOSE[event.type];
      if (closed) {
        child.status = readString(p, "child_status") ?? closed;
        child.end = epochMs(readString(p, "closed_at")) ?? event.at;
      }
    }

    const failure = classifyFailureEvent(event);
    if (!failure || failure.kind === "handled") continue;
    if (failure.kind === "attempt") {
      markers.push({
        kind: "retry",
        lane: markerLane(event, failure),
        at: event.at,
        sequence: event.sequence,
        executionId: failure.activityExecutionId ?? "",
        activity: readString(p, "activity_type") ?? readString(p, "activity_class"),
        afterAttempt: readNumber(p, "retry_after_attempt"),
        backoffSeconds: readNumber(p, "retry_backoff_seconds"),
        availableAt: epochMs(readString(p, "retry_available_at")),
        failure,
      });
    } else {
      markers.push({
        kind: "failure",
        lane: markerLane(event, failure),
        at: event.at,
        sequence: event.sequence,
        failure,
      });
    }
  }

  const activityBars = ledgerFromEvents(events, options.activities).flatMap((activity) =>
    activity.attempts.map((attempt): ActivityAttemptBar => ({
      kind: "activity",
      lane: ACTIVITY_LANE(activity.executionId),
      label: activity.type ?? activity.class,
      executionId: activity.executionId,
      attemptId: attempt.id,
      attempt: attempt.number,
      start: epochMs(attempt.startedAt),
      end: epochMs(attempt.closedAt),
      status: attempt.status,
      worker: attempt.worker,
      failure: attempt.failure,
    })),
  );

  const bars: TimelineBar[] = [
    ...(workflow.start !== null ? [workflow] : []),
    ...activityBars,
    ...timers.values(),
    ...children.values(),
  ];
  const instants: (number | null)[] = events.map((event) => event.at);
  for (const bar of bars) instants.push(bar.start, bar.end);
  for (const marker of markers) instants.push(marker.kind === "retry" ? marker.availableAt : marker.at);
  const { min, max } = bounds(instants);
  const anyOpen = bars.some((bar) => bar.end === null);
  return {
    start: min,
    end: anyOpen && options.now !== undefined ? Math.max(options.now, max ?? options.now) : max,
    bars,
    markers,
  };
}

// ---------------------------------------------------------------- event list

export interface TimelineListRow {
  sequence: number;
  type: string;
  kind: TimelineKind;
  recordedAt: string | null;
  summary: Message;
  sourceKind: string;
  sourceId: string | null;
  /** Present on failure-bearing events; carries failure_category and non_retryable. */
  failure: FailureInfo | null;
}

/** `class_basename(type ?? class)`: the label the engine uses for activities. */
export function activityLabel(type: string | null, klass: string | null = null): string {
  const name = type ?? klass ?? "";
  return name.slice(name.lastIndexOf("\\") + 1);
}

function eventSource(event: ViewEvent, kind: TimelineKind): { sourceKind: string; sourceId: string | null } {
  const p = event.payload;
  if (kind === "command" || event.type === "UpdateApplied" || event.type === "UpdateCompleted")
    return { sourceKind: "workflow_command", sourceId: readString(p, "workflow_command_id") };
  switch (kind) {
    case "signal":
      return { sourceKind: "signal_wait", sourceId: readString(p, "signal_wait_id") };
    case "child":
      return { sourceKind: "child_workflow_run", sourceId: readString(p, "child_workflow_run_id") };
    case "condition":
      return { sourceKind: "condition_wait", sourceId: readString(p, "condition_wait_id") };
    case "activity":
      return { sourceKind: "activity_execution", sourceId: readString(p, "activity_execution_id") };
    case "failure":
      return { sourceKind: "workflow_failure", sourceId: readString(p, "failure_id") };
    case "version":
      return { sourceKind: "version_marker", sourceId: readString(p, "change_id") };
    case "timer":
      return { sourceKind: "timer", sourceId: readString(p, "timer_id") };
    default:
      return { sourceKind: "workflow_run", sourceId: readString(p, "workflow_run_id") };
  }
}

const PLAIN_SUMMARIES = new Set([
  "WorkflowStarted",
  "WorkflowCompleted",
  "CancelRequested",
  "WorkflowCancelled",
  "TerminateRequested",
  "WorkflowTerminated",
  "WorkflowArchived",
  "TimerCancelled",
  "ConditionWaitSatisfied",
  "SideEffectRecorded",
  "SearchAttributesUpserted",
  "MemoUpserted",
]);

/** The summary templates of v2-model §4.3, as catalog descriptors. */
export function eventSummary(event: ViewEvent): Message {
  const p = event.payload;
  const s = (key: string) => readString(p, key) ?? "";
  // Templates end in a period; engine messages often do too ("…expired at {iso}.").
  const sentence = (key: string) => s(key).replace(/\.$/, "");
  const activity = activityLabel(readString(p, "activity_type"), readString(p, "activity_class"));
  const child = activityLabel(readString(p, "child_workflow_type"), readString(p, "child_workflow_class"));
  const id = (suffix: string) => `views.timeline.${suffix}` as ViewMessageId;
  if (PLAIN_SUMMARIES.has(event.type)) return message(id(event.type));
  switch (event.type) {
    case "StartAccepted":
      return message(id("StartAccepted"), { outcome: s("outcome") });
    case "StartRejected":
      return message(id("StartRejected"), { reason: s("rejection_reason") });
    case "WorkflowContinuedAsNew":
      return message(id("WorkflowContinuedAsNew"), { runId: s("continued_to_run_id") });
    case "WorkflowFailed":
      return message(id("WorkflowFailed"), { message: sentence("message") });
    case "WorkflowTimedOut":
      return message(id(s("timeout_kind") === "run_timeout" ? "WorkflowTimedOutRun" : "WorkflowTimedOutExecution"));
    case "ArchiveRequested":
      return message(id(s("outcome") === "archive_not_needed" ? "ArchiveRequestedNotNeeded" : "ArchiveRequested"));
    case "ActivityScheduled":
    case "ActivityStarted":
    case "ActivityHeartbeatRecorded":
    case "ActivityCompleted":
    case "ActivityCancelled":
      return message(id(event.type), { activity });
    case "ActivityFailed":
    case "ActivityTimedOut":
      return message(id(event.type), { activity, message: sentence("message") });
    case "ActivityRetryScheduled":
      return message(id("ActivityRetryScheduled"), {
        activity,
        attempt: (readNumber(p, "retry_after_attempt") ?? 0) + 1,
      });
    case "FailureHandled":
      return message(id("FailureHandled"), { message: sentence("message") });
    case "TimerScheduled":
    case "TimerFired":
      return message(id(event.type), { seconds: readNumber(p, "delay_seconds") ?? 0 });
    case "SignalWaitOpened":
    case "SignalReceived":
    case "SignalApplied":
      return message(id(event.type), { name: s("signal_name") });
    case "UpdateAccepted":
    case "UpdateRejected":
    case "UpdateApplied":
      return message(id(event.type), { name: s("update_name") });
    case "UpdateCompleted":
      return readString(p, "failure_id") || readString(p, "exception_class")
        ? message(id("UpdateCompletedFailed"), { name: s("update_name"), message: sentence("message") })
        : message(id("UpdateCompleted"), { name: s("update_name") });
    case "ConditionWaitOpened": {
      const seconds = readNumber(p, "timeout_seconds");
      return seconds === null
        ? message(id("ConditionWaitOpened"))
        : message(id("ConditionWaitOpenedTimeout"), { seconds });
    }
    case "ConditionWaitTimedOut":
      return message(id("ConditionWaitTimedOut"), { seconds: readNumber(p, "timeout_seconds") ?? 0 });
    case "RepairRequested":
      return s("outcome") === "repair_dispatched"
        ? message(id("RepairRequestedDispatched"), { taskType: s("task_type") })
        : message(id("RepairRequestedNotNeeded"));
    case "ChildWorkflowScheduled":
    case "ChildRunStarted":
    case "ChildRunCompleted":
    case "ChildRunCancelled":
    case "ChildRunTerminated":
      return message(id(event.type), { name: child });
    case "ChildRunFailed":
      return message(id("ChildRunFailed"), { name: child, message: sentence("message") });
    case "VersionMarkerRecorded":
      return message(id("VersionMarkerRecorded"), { changeId: s("change_id"), version: s("version") });
    case "ParentClosePolicyApplied":
      return message(id("ParentClosePolicyApplied"), { policy: s("policy"), child: s("child_instance_id") });
    case "MessageCursorAdvanced":
      return message(id("MessageCursorAdvanced"), { position: s("new_position") });
    default:
      return message("views.timeline.other", { type: event.type });
  }
}

export function toListRow(event: ViewEvent): TimelineListRow {
  const kind = eventKind(event.type);
  return {
    sequence: event.sequence,
    type: event.type,
    kind,
    recordedAt: event.recordedAt,
    summary: eventSummary(event),
    ...eventSource(event, kind),
    failure: classifyFailureEvent(event),
  };
}

/** The Event List projection, one row per event in sequence order. */
export function timelineList(history: readonly HistoryEventInput[]): TimelineListRow[] {
  return toViewEvents(history).map(toListRow);
}
