import type { ActivityAttemptStatus, TimelineKind } from "@/lib/dw/enums";
import type { ActivityRowInput, AttemptFailure, LedgerActivity } from "./attempts";
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
  /** The update's name when an update handler failed: its marker gets a lane of its own, as an activity's does. */
  update?: string | null;
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

/**
 * A cancellation the workflow saw as history, on the lane of what it stopped (an activity, a timer,
 * a child) or on the workflow's: cooperative cancellation, a cancellation scope's request and
 * delivery, a losing selection member, a cancelled signal or condition wait.
 */
export interface CancellationMarker {
  kind: "cancellation";
  lane: string;
  at: number | null;
  sequence: number;
  eventType: string;
  /** The cancellation scope it concerns, when the event names one other than the root. */
  scope: string | null;
  reason: string | null;
}

export type TimelineMarker = FailureMarker | RetryMarker | CancellationMarker;

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
  const update = event.type === "UpdateCompleted" ? readString(event.payload, "update_id") : null;
  if (update) return `update:${update}`;
  const child = event.type.startsWith("ChildRun") ? childKey(event) : null;
  return child ? `child:${child}` : "workflow";
}

/** Running min/max of instants: a loop, never Math.min(...spread) over 50,000 values. */
class Bounds {
  min: number | null = null;
  max: number | null = null;

  note(value: number | null): void {
    if (value === null) return;
    if (this.min === null || value < this.min) this.min = value;
    if (this.max === null || value > this.max) this.max = value;
  }
}

/** The attempt bars of one ledger activity, in attempt order. */
export function activityBars(activity: LedgerActivity): ActivityAttemptBar[] {
  return activity.attempts.map((attempt) => ({
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
  }));
}

function timerEvent(timers: Map<string, TimerBar>, event: ViewEvent): void {
  const p = event.payload;
  const timerId = readString(p, "timer_id");
  if (!timerId) return;
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
}

function childEvent(children: Map<string, ChildBar>, event: ViewEvent): void {
  const p = event.payload;
  const key = childKey(event);
  if (!key) return;
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

function failureMarker(event: ViewEvent): TimelineMarker | null {
  const failure = classifyFailureEvent(event);
  if (!failure || failure.kind === "handled") return null;
  const p = event.payload;
  if (failure.kind === "attempt") {
    return {
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
    };
  }
  const marker: FailureMarker = {
    kind: "failure",
    lane: markerLane(event, failure),
    at: event.at,
    sequence: event.sequence,
    failure,
  };
  if (event.type === "UpdateCompleted") marker.update = readString(p, "update_name");
  return marker;
}

/** Cancellation events that get a {@link CancellationMarker} (the requests, deliveries and cancelled waits). */
const CANCELLATION_EVENTS = new Set([
  "CooperativeCancellationRequested",
  "CooperativeCancellationDelivered",
  "CancellationScopeRequested",
  "CancellationScopeDelivered",
  "SelectionOperationCancelled",
  "SignalWaitCancelled",
  "ConditionWaitCancelled",
]);

function cancellationLane(event: ViewEvent): string {
  const p = event.payload;
  const activity = readString(p, "activity_execution_id");
  if (activity) return ACTIVITY_LANE(activity);
  const timer = readString(p, "timer_id");
  if (timer) return `timer:${timer}`;
  const child = readString(p, "child_call_id") ?? readString(p, "child_workflow_instance_id");
  return child ? `child:${child}` : "workflow";
}

function cancellationMarker(event: ViewEvent): CancellationMarker | null {
  if (!CANCELLATION_EVENTS.has(event.type)) return null;
  const p = event.payload;
  const scope = readString(p, "scope_id") ?? readString(p, "cancellation_scope_id");
  return {
    kind: "cancellation",
    lane: cancellationLane(event),
    at: event.at,
    sequence: event.sequence,
    eventType: event.type,
    scope: scope === "root" ? null : scope,
    reason: readString(p, "reason"),
  };
}

/**
 * The chart as a fold over events in sequence order (issue 14), without keeping the events. Activity
 * bars come from ledger activities ({@link activityBars}); the caller says which were handed out in
 * chunks ({@link TimelineFold.settleBars}) so the axis still spans them. Markers never change once
 * made (one per failure event), so {@link TimelineFold.takeMarkers} can hand every one out at once.
 * {@link timelineRows} is this fold over a whole history.
 */
export class TimelineFold {
  private readonly workflow: WorkflowBar = {
    kind: "workflow",
    lane: "workflow",
    label: null,
    start: null,
    end: null,
    status: "running",
  };
  private readonly timers = new Map<string, TimerBar>();
  private readonly children = new Map<string, ChildBar>();
  private markers: TimelineMarker[] = [];
  /** Event instants, every marker's instant, and the bars already handed out. */
  private readonly bounds = new Bounds();
  private settledOpenBar = false;

  add(event: ViewEvent): void {
    const p = event.payload;
    this.bounds.note(event.at);
    if (event.type === "WorkflowStarted") {
      this.workflow.start = event.at;
      this.workflow.label = readString(p, "workflow_type") ?? readString(p, "workflow_class");
    } else if (event.type in WORKFLOW_CLOSE) {
      this.workflow.end = event.at;
      this.workflow.status = WORKFLOW_CLOSE[event.type] ?? this.workflow.status;
    } else if (event.type.startsWith("Timer")) {
      timerEvent(this.timers, event);
    } else if (event.type === "ChildWorkflowScheduled" || event.type.startsWith("ChildRun")) {
      childEvent(this.children, event);
    }
    const marker = failureMarker(event) ?? cancellationMarker(event);
    if (!marker) return;
    this.bounds.note(marker.kind === "retry" ? marker.availableAt : marker.at);
    this.markers.push(marker);
  }

  /** Markers made since the last call; they are the caller's from now on. */
  takeMarkers(): TimelineMarker[] {
    const taken = this.markers;
    this.markers = [];
    return taken;
  }

  /** Bars handed out in chunks: the axis keeps their instants, the fold forgets the bars. */
  settleBars(bars: readonly TimelineBar[]): void {
    for (const bar of bars) {
      this.bounds.note(bar.start);
      this.bounds.note(bar.end);
      if (bar.end === null) this.settledOpenBar = true;
    }
  }

  /**
   * The chart as of the events so far: the workflow, `activities` (those not handed out), timers and
   * children as bars, the markers not taken, and the axis over everything. Non-destructive.
   */
  chart(activities: readonly LedgerActivity[], now?: number): TimelineChart {
    const bars: TimelineBar[] = [
      ...(this.workflow.start !== null ? [{ ...this.workflow }] : []),
      ...activities.flatMap(activityBars),
      ...[...this.timers.values()].map((timer) => ({ ...timer })),
      ...[...this.children.values()].map((child) => ({ ...child })),
    ];
    const bounds = new Bounds();
    bounds.note(this.bounds.min);
    bounds.note(this.bounds.max);
    let anyOpen = this.settledOpenBar;
    for (const bar of bars) {
      bounds.note(bar.start);
      bounds.note(bar.end);
      if (bar.end === null) anyOpen = true;
    }
    const { max } = bounds;
    return {
      start: bounds.min,
      end: anyOpen && now !== undefined ? Math.max(now, max ?? now) : max,
      bars,
      markers: [...this.markers],
    };
  }
}

export function timelineRows(history: readonly HistoryEventInput[], options: TimelineOptions = {}): TimelineChart {
  const events = toViewEvents(history);
  const fold = new TimelineFold();
  for (const event of events) fold.add(event);
  return fold.chart(ledgerFromEvents(events, options.activities), options.now);
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
  if (event.type.startsWith("ServiceCall"))
    return { sourceKind: "service_call", sourceId: readString(p, "service_call_id") };
  if (event.type.startsWith("CancellationScope"))
    return { sourceKind: "cancellation_scope", sourceId: readString(p, "scope_id") };
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
  "ConditionWaitCancelled",
  "SelectionResolved",
  "SelectionOperationCancelled",
  "CooperativeCancellationDelivered",
]);

/** `service.operation` of a service-call event, as far as it names them. */
function serviceOperation(p: ViewEvent["payload"]): string {
  const service = readString(p, "service_name");
  const operation = readString(p, "operation_name");
  if (service && operation) return `${service}.${operation}`;
  return operation ?? service ?? readString(p, "endpoint_name") ?? readString(p, "service_call_id") ?? "";
}

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
    case "ParentClosePolicyFailed":
      return message(id("ParentClosePolicyFailed"), {
        policy: s("policy"),
        child: s("child_instance_id"),
        error: sentence("error"),
      });
    case "ServiceCallStarted":
    case "ServiceCallCompleted":
    case "ServiceCallCancelled":
      return message(id(event.type), { operation: serviceOperation(p) });
    case "ServiceCallFailed":
      return message(id("ServiceCallFailed"), { operation: serviceOperation(p), message: sentence("message") });
    case "SignalWaitReceived":
    case "SignalWaitTimedOut":
    case "SignalWaitCancelled":
      // A wait may be recorded without its signal's name; the sentence then names no signal.
      return readString(p, "signal_name")
        ? message(id(event.type), { name: s("signal_name") })
        : message(id(`${event.type}Unnamed`));
    case "CancellationScopeOpened":
    case "CancellationScopeRequested":
    case "CancellationScopeDeliveryPrepared":
    case "CancellationScopeDelivered":
    case "CancellationScopeRequestConflicted":
      return message(id(event.type), { scope: s("scope_id") || s("cancellation_scope_id") });
    case "CooperativeCancellationRequested":
      return readString(p, "reason")
        ? message(id("CooperativeCancellationRequestedReason"), { reason: sentence("reason") })
        : message(id("CooperativeCancellationRequested"));
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

/**
 * What a lane is, for its label (issue 15 item 16: a plain timer read "timer timer", its
 * `timer_kind` being "timer"). A timer lane says its kind only when it is a timeout
 * (`signal_timeout`, `condition_timeout`; durable-workflow/workflow@8dc90d649ec00f92291fa6377c45fac60ebe5de0
 * src/V2/Support/DefaultWorkflowTaskBridge.php), and its delay.
 */
export type LaneSubject =
  | { kind: "workflow" | "activity"; name: string }
  | { kind: "timer"; timeout: "signal" | "condition" | null; otherKind: string | null; seconds: number | null }
  | { kind: "child"; name: string | null };

export function laneSubject(bar: TimelineBar): LaneSubject {
  switch (bar.kind) {
    case "workflow":
      return { kind: "workflow", name: bar.label ?? "workflow" };
    case "activity":
      return { kind: "activity", name: bar.label ?? bar.executionId };
    case "timer": {
      const timerKind = bar.label;
      const timeout =
        timerKind === "signal_timeout" ? "signal" : timerKind === "condition_timeout" ? "condition" : null;
      const otherKind = timeout === null && timerKind !== null && timerKind !== "timer" ? timerKind : null;
      return { kind: "timer", timeout, otherKind, seconds: bar.delaySeconds };
    }
    case "child":
      return { kind: "child", name: bar.label ?? bar.childWorkflowId };
  }
}

/** Marker kinds the chart draws, so the legend explains only those (in a fixed order). */
export function markerKindsOf(markers: readonly TimelineMarker[]): TimelineMarker["kind"][] {
  const present = new Set(markers.map((marker) => marker.kind));
  return (["failure", "retry", "cancellation"] as const).filter((kind) => present.has(kind));
}

/** Width an attempt label ("#12") takes on the lane, in px, with its padding. */
export const ATTEMPT_LABEL_PX = 22;

/** Half the width a lane marker (failure dot, retry diamond) covers, in px, plus a pixel of air. */
export const MARKER_HALF_PX = 7;

/**
 * Where each attempt bar of one lane draws its "#n" label, as px from the bar's start; a bar left
 * out gets none (its number stays in the bar's title). A label starts at its bar, moved right past
 * any marker it would cover (a failed attempt's retry diamond sits at the bar's end), and may run
 * past a narrow bar into the empty lane, but only up to the next bar and the lane's end: retries a
 * second apart on a day-long axis would otherwise stack their labels. `widthPx` is the lane's width.
 */
export function fittingAttemptLabels(
  bars: readonly Pick<TimelineBar, "start" | "end">[],
  axis: { start: number; span: number; end: number },
  widthPx: number,
  markerTimes: readonly (number | null)[] = [],
  labelPx: number = ATTEMPT_LABEL_PX,
): Map<number, number> {
  const fits = new Map<number, number>();
  const px = (value: number) => ((value - axis.start) / Math.max(axis.span, 1)) * widthPx;
  const markers = markerTimes
    .filter((at): at is number => at !== null)
    .map(px)
    .sort((a, b) => a - b);
  const order = bars
    .map((bar, index) => ({ index, left: bar.start === null ? null : px(bar.start) }))
    .filter((bar): bar is { index: number; left: number } => bar.left !== null)
    .sort((a, b) => a.left - b.left);
  for (const [i, bar] of order.entries()) {
    let x = bar.left;
    // Markers are sorted, so one pass moves the label past each one it would still cover.
    for (const marker of markers)
      if (marker + MARKER_HALF_PX > x && marker - MARKER_HALF_PX < x + labelPx) x = marker + MARKER_HALF_PX;
    const limit = Math.min(order[i + 1]?.left ?? widthPx, widthPx);
    if (x + labelPx <= limit) fits.set(bar.index, x - bar.left);
  }
  return fits;
}
