import { describe, expect, it } from "vitest";
import { messageText } from "./message-catalog";
import type {
  ActivityAttemptBar,
  CancellationMarker,
  ChildBar,
  FailureMarker,
  RetryMarker,
  TimelineBar,
  TimerBar,
  WorkflowBar,
} from "./timeline";
import {
  activityLabel,
  fittingAttemptLabels,
  MARKER_HALF_PX,
  laneSubject,
  markerKindsOf,
  timelineList,
  timelineRows,
} from "./timeline";
import activityTimeout from "./fixtures/activity-timeout.json";
import exhausted from "./fixtures/exhausted-retries.json";
import leaseExpiry from "./fixtures/lease-expiry.json";
import retryPending from "./fixtures/retry-pending.json";

const at = (iso: string) => Date.parse(iso);

describe("timelineRows", () => {
  it("a failed update is a failure marker on a lane of its own, named for the update, with its category and badge flag", () => {
    const payload = { workflow_command_id: "cmd-1", update_id: "u1", update_name: "approve" };
    const failed = {
      ...payload,
      failure_id: "f1",
      failure_category: "application",
      non_retryable: true,
      exception_type: "LimitExceeded",
      message: "cannot approve above the limit",
    };
    const history = [
      { sequence: 1, event_type: "WorkflowStarted", timestamp: "2026-01-15T10:00:00Z", payload: {} },
      { sequence: 2, event_type: "UpdateAccepted", timestamp: "2026-01-15T10:00:01Z", payload },
      { sequence: 3, event_type: "UpdateCompleted", timestamp: "2026-01-15T10:00:02Z", payload: failed },
      // A completed update is no failure: no marker.
      {
        sequence: 4,
        event_type: "UpdateCompleted",
        timestamp: "2026-01-15T10:00:03Z",
        payload: { ...payload, update_id: "u2", result: "x" },
      },
    ];
    const { markers } = timelineRows(history);
    expect(markers).toHaveLength(1);
    const marker = markers[0] as FailureMarker;
    expect(marker).toMatchObject({ kind: "failure", lane: "update:u1", update: "approve", sequence: 3 });
    expect(marker.failure).toMatchObject({
      failureCategory: "application",
      nonRetryable: true,
      propagationKind: "update",
    });
    const row = timelineList(history)[2];
    expect(row?.failure?.nonRetryable).toBe(true);
    expect(messageText(row!.summary)).toBe("Update approve failed: cannot approve above the limit.");
  });

  it("draws the workflow, each attempt, the timer and the child on the time axis", () => {
    const chart = timelineRows(activityTimeout.history_events, { activities: activityTimeout.activities });
    const executionId = activityTimeout.activities[0]!.id;
    expect(chart.start).toBe(at("2026-11-30T14:00:00Z"));
    expect(chart.end).toBe(at("2026-11-30T14:02:15.900Z"));

    const workflow = chart.bars.find((bar): bar is WorkflowBar => bar.kind === "workflow");
    expect(workflow).toMatchObject({
      label: "billing.monthly-invoice",
      status: "failed",
      start: chart.start,
      end: chart.end,
    });

    const attempts = chart.bars.filter((bar): bar is ActivityAttemptBar => bar.kind === "activity");
    expect(attempts.map((bar) => [bar.attempt, bar.status, bar.start, bar.end, bar.lane])).toEqual([
      [1, "failed", at("2026-11-30T14:01:05.200Z"), at("2026-11-30T14:01:35.400Z"), `activity:${executionId}`],
      [2, "expired", at("2026-11-30T14:01:45.500Z"), at("2026-11-30T14:02:15.700Z"), `activity:${executionId}`],
    ]);
    expect(attempts[1]!.failure).toMatchObject({ failureCategory: "timeout", nonRetryable: false });

    const timer = chart.bars.find((bar): bar is TimerBar => bar.kind === "timer");
    expect(timer).toMatchObject({
      status: "fired",
      delaySeconds: 60,
      start: at("2026-11-30T14:00:00.100Z"),
      end: at("2026-11-30T14:01:00.150Z"),
    });

    const child = chart.bars.find((bar): bar is ChildBar => bar.kind === "child");
    expect(child).toMatchObject({
      label: "billing.compute-tax",
      status: "completed",
      childWorkflowId: "invoice-77-tax",
      end: at("2026-11-30T14:01:04.900Z"),
    });
  });

  it("marks retries with their backoff and terminal failures with category and non_retryable", () => {
    const { markers } = timelineRows(activityTimeout.history_events);
    const executionId = activityTimeout.activities[0]!.id;
    expect(markers.map((marker) => [marker.kind, marker.lane, (marker as FailureMarker).failure.eventType])).toEqual([
      ["retry", `activity:${executionId}`, "ActivityRetryScheduled"],
      ["failure", `activity:${executionId}`, "ActivityTimedOut"],
      ["failure", "workflow", "WorkflowFailed"],
    ]);
    const retry = markers[0] as RetryMarker;
    expect(retry).toMatchObject({
      activity: "GenerateInvoice",
      afterAttempt: 1,
      backoffSeconds: 10,
      availableAt: at("2026-11-30T14:01:45.400Z"),
    });
    expect(retry.failure).toMatchObject({
      kind: "attempt",
      failureCategory: null,
      nonRetryable: false,
      timeoutKind: "start_to_close",
    });
    expect((markers[1] as FailureMarker).failure).toMatchObject({
      kind: "terminal",
      failureCategory: "timeout",
      nonRetryable: false,
    });
    expect((markers[2] as FailureMarker).failure).toMatchObject({
      failureCategory: "application",
      sourceKind: "workflow_run",
    });
  });

  it("leaves open bars open and stretches the axis to now", () => {
    const now = at("2026-11-30T14:05:00Z");
    const chart = timelineRows(retryPending.history_events, { now });
    expect(chart.bars.find((bar) => bar.kind === "workflow")?.end).toBeNull();
    expect(chart.end).toBe(now);
    // The pending retry's due time is on the axis even before now reaches it.
    expect(timelineRows(retryPending.history_events, { now: at("2026-11-30T14:01:03Z") }).end).toBe(
      at("2026-11-30T14:04:02Z"),
    );
  });

  it("shows the superseded attempt of a lease expiry as expired", () => {
    const attempts = timelineRows(leaseExpiry.history_events).bars.filter(
      (bar): bar is ActivityAttemptBar => bar.kind === "activity",
    );
    expect(attempts.map((bar) => [bar.attempt, bar.status, bar.worker])).toEqual([
      [1, "expired", "worker-crashed"],
      [2, "completed", "worker-b"],
    ]);
  });
});

describe("timelineList", () => {
  it("projects every event with kind, summary, source and failure details", () => {
    const rows = timelineList(exhausted.history_events);
    expect(rows).toHaveLength(exhausted.history_events.length);
    expect(rows[0]).toMatchObject({
      sequence: 1,
      type: "StartAccepted",
      kind: "command",
      sourceKind: "workflow_command",
      failure: null,
    });
    expect(messageText(rows[0]!.summary)).toBe("Start accepted as started_new.");

    const retry = rows.find((row) => row.type === "ActivityRetryScheduled");
    expect(retry?.summary).toMatchObject({
      id: "views.timeline.ActivityRetryScheduled",
      values: { activity: "ReserveInventory", attempt: 2 },
    });
    expect(messageText(retry?.summary)).toBe("Scheduled retry 2 for ReserveInventory.");
    expect(retry?.failure).toMatchObject({ kind: "attempt", failureCategory: null });

    const failed = rows.find((row) => row.type === "ActivityFailed");
    expect(messageText(failed?.summary)).toBe("Failed ReserveInventory: Warehouse eu-1 unavailable.");
    expect(failed).toMatchObject({
      kind: "activity",
      sourceKind: "activity_execution",
      sourceId: exhausted.activities[0]!.id,
    });
    expect(failed?.failure).toMatchObject({
      failureCategory: "activity",
      nonRetryable: false,
      failureId: exhausted.failures[0]!.id,
    });

    expect(messageText(rows.at(-1)?.summary)).toBe("Workflow failed: Warehouse eu-1 unavailable.");
  });

  it("summarises repair, timers and children", () => {
    const repair = timelineList(leaseExpiry.history_events).find((row) => row.type === "RepairRequested");
    expect(repair).toMatchObject({ kind: "command", sourceKind: "workflow_command" });
    expect(messageText(repair?.summary)).toBe("Repair recreated activity task.");

    const texts = timelineList(activityTimeout.history_events).map((row) => messageText(row.summary));
    expect(texts).toContain("Scheduled timer for 60 s.");
    expect(texts).toContain("Timer fired after 60 s.");
    expect(texts).toContain("Child workflow billing.compute-tax completed.");
    // One period, although both the template and the engine's message end with one.
    expect(texts).toContain(
      "Timed out GenerateInvoice: Activity GenerateInvoice start-to-close deadline expired at 2026-11-30T14:02:15+00:00.",
    );
  });

  it("renders unknown event types verbatim", () => {
    const row = timelineList([
      {
        sequence: 1,
        event_type: "NexusOperationBridged",
        timestamp: null,
        payload: { failure_id: "f1", message: "boom" },
      },
    ])[0]!;
    expect(row).toMatchObject({ kind: "workflow" });
    expect(messageText(row?.summary)).toBe("NexusOperationBridged");
    expect(row.failure).toMatchObject({ kind: "terminal", failureId: "f1", failureCategory: null });
  });

  // The types sdk-python 2.12.0 writes and replays at protocol 1.20, and the engine's service calls
  // (durable-workflow/workflow src/V2/Enums/HistoryEventType.php@8dc90d64).
  const at = "2026-12-07T10:00:00.000000Z";
  const newer: [string, Record<string, unknown>, string, string][] = [
    ["CancellationScopeOpened", { scope_id: "checkout" }, "workflow", "Opened cancellation scope checkout."],
    ["CancellationScopeRequested", { scope_id: "checkout" }, "workflow", "Cancellation requested for scope checkout."],
    [
      "CancellationScopeDeliveryPrepared",
      { scope_id: "checkout" },
      "workflow",
      "Prepared cancellation of scope checkout.",
    ],
    ["CancellationScopeDelivered", { scope_id: "checkout" }, "workflow", "Cancellation delivered to scope checkout."],
    [
      "CancellationScopeRequestConflicted",
      { scope_id: "checkout" },
      "workflow",
      "Conflicting cancellation request for scope checkout.",
    ],
    [
      "CooperativeCancellationRequested",
      { reason: "customer left" },
      "command",
      "Cooperative cancellation requested: customer left.",
    ],
    ["CooperativeCancellationRequested", {}, "command", "Cooperative cancellation requested."],
    ["CooperativeCancellationDelivered", {}, "workflow", "Cooperative cancellation delivered to the workflow."],
    ["SelectionResolved", { selection_group_id: "g" }, "workflow", "Selection resolved."],
    [
      "SelectionOperationCancelled",
      { selection_group_id: "g" },
      "workflow",
      "Cancelled an operation that lost the selection.",
    ],
    ["ConditionWaitCancelled", { condition_wait_id: "c" }, "condition", "Condition wait cancelled."],
    ["SignalWaitReceived", { signal_name: "approve" }, "signal", "Signal approve ended its wait."],
    ["SignalWaitTimedOut", { signal_name: "approve" }, "signal", "Wait for signal approve timed out."],
    ["SignalWaitTimedOut", {}, "signal", "Signal wait timed out."],
    ["SignalWaitCancelled", { signal_name: "approve" }, "signal", "Wait for signal approve cancelled."],
    [
      "ServiceCallStarted",
      { service_name: "billing", operation_name: "charge" },
      "workflow",
      "Started service call billing.charge.",
    ],
    [
      "ServiceCallCompleted",
      { service_name: "billing", operation_name: "charge" },
      "workflow",
      "Completed service call billing.charge.",
    ],
    [
      "ServiceCallFailed",
      { service_name: "billing", operation_name: "charge", message: "card declined" },
      "workflow",
      "Service call billing.charge failed: card declined.",
    ],
    ["ServiceCallCancelled", { operation_name: "charge" }, "workflow", "Service call charge cancelled."],
    [
      "ParentClosePolicyFailed",
      { policy: "terminate", child_instance_id: "child-1", error: "already closed" },
      "workflow",
      "Failed to apply parent-close policy terminate to child child-1: already closed.",
    ],
  ];
  it.each(newer)("gives %s a readable row (%o)", (type, payload, kind, text) => {
    const row = timelineList([{ sequence: 1, event_type: type, timestamp: at, payload }])[0]!;
    expect(row.kind).toBe(kind);
    expect(messageText(row.summary)).toBe(text);
  });
});

describe("cancellation on the chart", () => {
  const event = (sequence: number, type: string, payload: Record<string, unknown>) => ({
    sequence,
    event_type: type,
    timestamp: `2026-12-07T10:00:0${sequence}.000000Z`,
    payload,
  });

  it("marks a cancellation on the lane of what it stopped, never as a failure, and the legend names it", () => {
    const chart = timelineRows([
      event(1, "WorkflowStarted", { workflow_type: "checkout" }),
      event(2, "ActivityScheduled", { activity_execution_id: "a1", activity_type: "charge" }),
      event(3, "CooperativeCancellationRequested", { reason: "customer left" }),
      event(4, "CancellationScopeDelivered", { scope_id: "payment", activity_execution_id: "a1" }),
      event(5, "SignalWaitCancelled", { signal_name: "approve" }),
      event(6, "CancellationScopeOpened", { scope_id: "payment" }),
    ]);
    const marks = chart.markers as CancellationMarker[];
    expect(marks.map((m) => [m.kind, m.lane, m.eventType, m.scope, m.reason])).toEqual([
      ["cancellation", "workflow", "CooperativeCancellationRequested", null, "customer left"],
      ["cancellation", "activity:a1", "CancellationScopeDelivered", "payment", null],
      ["cancellation", "workflow", "SignalWaitCancelled", null, null],
    ]);
    expect(markerKindsOf(chart.markers)).toEqual(["cancellation"]);
  });

  it("a failed service call is a failure mark but no exception row without a failure row", () => {
    const chart = timelineRows([
      event(1, "WorkflowStarted", {}),
      event(2, "ServiceCallFailed", { service_call_id: "s1", operation_name: "charge", message: "declined" }),
    ]);
    expect(chart.markers).toEqual([expect.objectContaining({ kind: "failure", lane: "workflow", sequence: 2 })]);
    expect((chart.markers[0] as FailureMarker).failure).toMatchObject({
      sourceKind: "service_call",
      sourceId: "s1",
      message: "declined",
    });
  });
});

describe("activityLabel", () => {
  it("uses the class basename the engine shows", () => {
    expect(activityLabel(null, "App\\Activities\\ChargeCard")).toBe("ChargeCard");
    expect(activityLabel("orders.send-confirmation")).toBe("orders.send-confirmation");
  });
});

describe("lane labels, legend and attempt labels", () => {
  const timer = (label: string | null, delaySeconds: number | null): TimelineBar => ({
    kind: "timer",
    lane: "timer:t1",
    label,
    timerId: "t1",
    start: 0,
    end: 1,
    status: "fired",
    fireAt: 1,
    delaySeconds,
  });

  it("a plain timer is not 'timer timer': its kind shows only for timeouts", () => {
    // The embedded server writes timer_kind "timer" (server/engine/workflow-tasks.ts), the engine null or a timeout kind.
    expect(laneSubject(timer("timer", 60))).toEqual({ kind: "timer", timeout: null, otherKind: null, seconds: 60 });
    expect(laneSubject(timer(null, 60))).toEqual({ kind: "timer", timeout: null, otherKind: null, seconds: 60 });
    expect(laneSubject(timer("signal_timeout", 30))).toMatchObject({ timeout: "signal", seconds: 30 });
    expect(laneSubject(timer("condition_timeout", null))).toMatchObject({ timeout: "condition" });
    expect(laneSubject(timer("schedule_guard", 5))).toMatchObject({ timeout: null, otherKind: "schedule_guard" });
  });

  it("the legend lists only marker kinds the run has", () => {
    const chart = timelineRows(activityTimeout.history_events, { activities: activityTimeout.activities });
    expect(markerKindsOf(chart.markers)).toEqual(["failure", "retry"]);
    expect(markerKindsOf(chart.markers.filter((marker) => marker.kind === "failure"))).toEqual(["failure"]);
    expect(markerKindsOf([])).toEqual([]);
  });

  it("labels an attempt only where the label has room before the next bar", () => {
    const axis = { start: 0, end: 1000, span: 1000 };
    // On a 500 px lane 100 ms is 50 px; a label is 22 px. Bar 0 is followed 5 px later by bar 1: no room.
    // Bar 2 is narrow (10 px) but the lane is empty for 100 px after it: its label runs past it.
    const bars = [
      { start: 0, end: 100 },
      { start: 10, end: 110 },
      { start: 200, end: 220 },
      { start: 400, end: 500 },
      { start: 980, end: null },
    ];
    expect([...fittingAttemptLabels(bars, axis, 500).keys()].sort()).toEqual([1, 2, 3]);
    // On a 5,000 px lane bar 0 has 50 px before bar 1, and the last bar 200 px before the lane's end.
    expect([...fittingAttemptLabels(bars, axis, 5000).keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(fittingAttemptLabels(bars, axis, 500).get(2)).toBe(0);
  });

  it("moves a label right of the retry diamond at its bar's end, or drops it when that leaves no room", () => {
    const axis = { start: 0, end: 1000, span: 1000 };
    // A 2 px attempt at 0 with its diamond at 4 px; the next attempt 150 px later (a short run's 1 s backoff).
    const bars = [
      { start: 0, end: 4 },
      { start: 300, end: 320 },
    ];
    const labels = fittingAttemptLabels(bars, axis, 500, [8, null]);
    expect(labels.get(0)).toBe(4 + MARKER_HALF_PX);
    expect(labels.get(1)).toBe(0);
    // With the next attempt 30 px on, the label fits only where no diamond pushes it 11 px right.
    const close = [
      { start: 0, end: 4 },
      { start: 60, end: 80 },
    ];
    expect(fittingAttemptLabels(close, axis, 500).get(0)).toBe(0);
    expect(fittingAttemptLabels(close, axis, 500, [8]).has(0)).toBe(false);
  });
});
