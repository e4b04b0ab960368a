import { describe, expect, it } from "vitest";
import { HISTORY_EVENT_TYPES } from "@/lib/dw/enums";
import type { HistoryEventInput } from "./events";
import {
  classifyFailureEvent,
  epochMs,
  eventKind,
  eventSubject,
  historyFilter,
  toViewEvent,
  toViewEvents,
} from "./events";
import exhausted from "./fixtures/exhausted-retries.json";
import activityTimeout from "./fixtures/activity-timeout.json";
import nonRetryable from "./fixtures/non-retryable.json";
import leaseExpiry from "./fixtures/lease-expiry.json";
import retryPending from "./fixtures/retry-pending.json";
import retryThenSuccess from "./fixtures/retry-then-success.json";

const FIXTURES = [retryThenSuccess, exhausted, nonRetryable, activityTimeout, leaseExpiry, retryPending];

describe("fixtures", () => {
  it("use only documented event types, in gapless sequence order", () => {
    for (const fixture of FIXTURES) {
      fixture.history_events.forEach((event, index) => {
        expect(HISTORY_EVENT_TYPES).toContain(event.type);
        expect(event.sequence).toBe(index + 1);
      });
    }
  });

  it("record no failure for retried attempts, as the engine does", () => {
    for (const fixture of FIXTURES) {
      for (const event of fixture.history_events.filter((candidate) => candidate.type === "ActivityRetryScheduled")) {
        expect(event.payload).not.toHaveProperty("failure_id");
        expect(event.payload).not.toHaveProperty("failure_category");
        expect(event.payload).not.toHaveProperty("non_retryable");
      }
    }
  });
});

describe("toViewEvent", () => {
  it("normalises both wire shapes, microsecond timestamps and PHP's empty-array payload", () => {
    expect(
      toViewEvent({
        sequence: 3,
        event_type: "WorkflowCompleted",
        timestamp: "2026-11-30T14:00:07.200000Z",
        payload: [],
      }),
    ).toEqual({
      id: null,
      sequence: 3,
      type: "WorkflowCompleted",
      recordedAt: "2026-11-30T14:00:07.200000Z",
      at: Date.parse("2026-11-30T14:00:07.200Z"),
      payload: {},
    });
    expect(
      toViewEvent({
        id: "e1",
        sequence: 1,
        type: "StartAccepted",
        recorded_at: "2026-11-30T14:00:00+00:00",
        payload: { outcome: "started_new" },
      }),
    ).toMatchObject({
      id: "e1",
      at: Date.parse("2026-11-30T14:00:00Z"),
      payload: { outcome: "started_new" },
    });
  });

  it("orders merged pages by sequence", () => {
    const shuffled = [exhausted.history_events[2]!, exhausted.history_events[0]!, exhausted.history_events[1]!];
    expect(toViewEvents(shuffled).map((event) => event.sequence)).toEqual([1, 2, 3]);
  });
});

describe("classifyFailureEvent", () => {
  const classify = (fixture: { history_events: readonly HistoryEventInput[] }, type: string) =>
    classifyFailureEvent(toViewEvent(fixture.history_events.find((event) => event.type === type)!));

  it("a retried attempt: retryable, unclassified, no failure row", () => {
    expect(classify(exhausted, "ActivityRetryScheduled")).toMatchObject({
      kind: "attempt",
      failureId: null,
      failureCategory: null,
      nonRetryable: false,
      sourceKind: "activity_execution",
      sourceId: exhausted.activities[0]!.id,
      exceptionClass: "App\\Errors\\WarehouseUnavailable",
    });
  });

  it("terminal failures carry their category, propagation and flag", () => {
    expect(classify(nonRetryable, "ActivityFailed")).toMatchObject({
      kind: "terminal",
      failureCategory: "activity",
      propagationKind: "activity",
      nonRetryable: true,
      exceptionType: "PaymentDeclined",
    });
    expect(classify(activityTimeout, "ActivityTimedOut")).toMatchObject({
      kind: "terminal",
      failureCategory: "timeout",
      propagationKind: "timeout",
      nonRetryable: false,
      timeoutKind: "start_to_close",
    });
    expect(classify(exhausted, "WorkflowFailed")).toMatchObject({
      kind: "terminal",
      failureCategory: "application",
      propagationKind: "terminal",
      sourceKind: "workflow_run",
    });
    expect(classify(nonRetryable, "FailureHandled")).toMatchObject({
      kind: "handled",
      failureId: nonRetryable.failures[0]!.id,
    });
  });

  it("fills defaults from the event type when the payload lacks them", () => {
    const child = classifyFailureEvent(
      toViewEvent({
        sequence: 1,
        type: "ChildRunFailed",
        payload: { failure_id: "f", child_workflow_run_id: "r", message: "child broke" },
      }),
    );
    expect(child).toMatchObject({
      failureCategory: "child_workflow",
      propagationKind: "child",
      sourceKind: "child_workflow_run",
      sourceId: "r",
    });
  });

  it("does not treat successes as failures", () => {
    expect(classify(retryThenSuccess, "ActivityCompleted")).toBeNull();
    expect(
      classifyFailureEvent(
        toViewEvent({ sequence: 1, type: "UpdateCompleted", payload: { update_name: "approve", result: "x" } }),
      ),
    ).toBeNull();
    expect(
      classifyFailureEvent(
        toViewEvent({ sequence: 1, type: "UpdateCompleted", payload: { update_name: "approve", failure_id: "f" } }),
      ),
    ).toMatchObject({
      failureCategory: "application",
      propagationKind: "update",
    });
  });
});

describe("historyFilter", () => {
  it("keeps failures only, retried attempts included", () => {
    expect(historyFilter(exhausted.history_events, { failuresOnly: true }).map((event) => event.type)).toEqual([
      "ActivityRetryScheduled",
      "ActivityRetryScheduled",
      "ActivityFailed",
      "WorkflowFailed",
    ]);
    expect(historyFilter(nonRetryable.history_events, { failuresOnly: true }).map((event) => event.type)).toContain(
      "FailureHandled",
    );
  });

  it("filters by type and by timeline kind, and keeps everything by default", () => {
    expect(historyFilter(activityTimeout.history_events, { types: ["TimerScheduled", "TimerFired"] })).toHaveLength(2);
    expect(historyFilter(activityTimeout.history_events, { kinds: ["child"] }).map((event) => event.type)).toEqual([
      "ChildWorkflowScheduled",
      "ChildRunStarted",
      "ChildRunCompleted",
    ]);
    expect(
      historyFilter(activityTimeout.history_events, { kinds: ["activity"], failuresOnly: true }).map(
        (event) => event.type,
      ),
    ).toEqual(["ActivityRetryScheduled", "ActivityTimedOut"]);
    expect(historyFilter(activityTimeout.history_events)).toHaveLength(activityTimeout.history_events.length);
  });
});

describe("eventKind", () => {
  it.each([
    ["RepairRequested", "command"],
    ["SignalApplied", "signal"],
    ["UpdateCompleted", "update"],
    ["ChildWorkflowScheduled", "child"],
    ["ConditionWaitTimedOut", "condition"],
    ["ActivityHeartbeatRecorded", "activity"],
    ["FailureHandled", "failure"],
    ["SideEffectRecorded", "side_effect"],
    ["VersionMarkerRecorded", "version"],
    ["TimerCancelled", "timer"],
    ["WorkflowContinuedAsNew", "workflow"],
    ["ServiceCallStarted", "workflow"],
  ])("%s → %s", (type, kind) => {
    expect(eventKind(type)).toBe(kind);
  });
});

describe("epochMs", () => {
  it.each([
    ["2026-04-13T12:00:00.000000Z", Date.parse("2026-04-13T12:00:00Z")],
    ["2026-04-13T12:00:00.123999Z", Date.parse("2026-04-13T12:00:00.123Z")],
    ["2026-04-13T12:00:00.5Z", Date.parse("2026-04-13T12:00:00.500Z")],
    ["2026-04-13T12:00:01+00:00", Date.parse("2026-04-13T12:00:01Z")],
    ["2026-04-13T14:00:01+02:00", Date.parse("2026-04-13T12:00:01Z")],
    ["2026-04-13T07:30:01-0430", Date.parse("2026-04-13T12:00:01Z")],
    ["2026-04-13T12:00:00Z", Date.parse("2026-04-13T12:00:00Z")],
  ])("%s", (text, expected) => {
    expect(epochMs(text)).toBe(expected);
  });

  it.each(["", "yesterday", "2026-04-13 12:00:00", "2026-04-13T12:00:00+2", "2026-04-13T12:00:00.000000"])(
    "rejects %j",
    (text) => {
      expect(epochMs(text)).toBeNull();
    },
  );
});

describe("eventSubject", () => {
  it("names the activity, timer, child and signal of the fixtures' events", () => {
    const subjects = toViewEvents(activityTimeout.history_events).map((event) => [event.type, eventSubject(event)]);
    expect(subjects).toContainEqual(["TimerScheduled", { kind: "timer", seconds: 60, timeoutOf: null }]);
    expect(subjects).toContainEqual(["ChildRunCompleted", { kind: "child", name: "billing.compute-tax" }]);
    expect(subjects).toContainEqual(["ActivityTimedOut", { kind: "activity", name: "GenerateInvoice" }]);
    expect(subjects).toContainEqual(["WorkflowFailed", null]);
  });

  it("names a signal, and the signal a timeout timer belongs to", () => {
    const opened = toViewEvent({
      sequence: 2,
      type: "SignalWaitOpened",
      payload: { signal_name: "approve", signal_wait_id: "wait-1", sequence: 1, timeout_seconds: 30 },
    });
    expect(eventSubject(opened)).toEqual({ kind: "signal", name: "approve" });
    const timeout = toViewEvent({
      sequence: 3,
      type: "TimerScheduled",
      payload: { timer_id: "t1", delay_seconds: 30, timer_kind: "signal_timeout", signal_name: "approve" },
    });
    expect(eventSubject(timeout)).toEqual({ kind: "timer", seconds: 30, timeoutOf: "approve" });
  });
});
