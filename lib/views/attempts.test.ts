import { describe, expect, it } from "vitest";
import { attemptGap, attemptLedger, retryRules, retryVerdict, toRetryPolicy } from "./attempts";
import retryThenSuccess from "./fixtures/retry-then-success.json";
import exhausted from "./fixtures/exhausted-retries.json";
import nonRetryable from "./fixtures/non-retryable.json";
import activityTimeout from "./fixtures/activity-timeout.json";
import leaseExpiry from "./fixtures/lease-expiry.json";
import retryPending from "./fixtures/retry-pending.json";

describe("attemptLedger", () => {
  it("retry then success: the failed attempt carries its error and backoff, the next one its worker change", () => {
    const charge = attemptLedger(retryThenSuccess.history_events, retryThenSuccess.activities)[0]!;
    expect(charge).toMatchObject({
      executionId: retryThenSuccess.activities[0]!.id,
      type: "ChargeCard",
      class: "App\\Activities\\ChargeCard",
      status: "completed",
      attemptsUsed: 2,
      maxAttempts: 3,
      unlimitedAttempts: false,
      nextAttempt: null,
      nextAttemptDueAt: null,
      terminalFailure: null,
    });
    expect(charge.retryPolicy).toMatchObject({
      maxAttempts: 3,
      backoffSeconds: [5, 30],
      nonRetryableErrorTypes: ["App\\Errors\\PaymentDeclined"],
    });
    const [first, second] = charge.attempts;
    expect(first).toMatchObject({
      number: 1,
      status: "failed",
      superseded: false,
      worker: "worker-a",
      startedAt: "2026-11-30T14:00:00.200000Z",
      closedAt: "2026-11-30T14:00:01.500000Z",
      durationMs: 1300,
      failure: {
        eventType: "ActivityRetryScheduled",
        retried: true,
        failureId: null,
        failureCategory: null,
        nonRetryable: false,
        exceptionClass: "App\\Errors\\GatewayTimeout",
        message: "Payment gateway timed out after 1200 ms",
      },
      retry: { backoffSeconds: 5, nextAttempt: 2, nextAttemptDueAt: "2026-11-30T14:00:06.500000Z" },
      changes: null,
    });
    expect(second).toMatchObject({
      number: 2,
      status: "completed",
      worker: "worker-b",
      durationMs: 400,
      failure: null,
      retry: null,
      changes: { worker: true, error: false, durationDeltaMs: -900 },
    });
  });

  it("exhausted retries: every attempt failed, the last one terminally with a failure row", () => {
    const reserve = attemptLedger(exhausted.history_events, exhausted.activities)[0]!;
    expect(reserve.status).toBe("failed");
    expect(reserve.attemptsUsed).toBe(3);
    expect(reserve.maxAttempts).toBe(3);
    expect(reserve.attempts.map((attempt) => [attempt.number, attempt.status, attempt.failure?.retried])).toEqual([
      [1, "failed", true],
      [2, "failed", true],
      [3, "failed", false],
    ]);
    const last = reserve.attempts[2]!;
    expect(last.failure).toMatchObject({
      eventType: "ActivityFailed",
      failureId: exhausted.failures[0]!.id,
      failureCategory: "activity",
      nonRetryable: false,
    });
    expect(last.retry).toBeNull();
    expect(last.changes).toMatchObject({ worker: true, error: false });
    expect(reserve.attempts[1]!.changes).toMatchObject({ worker: false, error: false });
    expect(reserve.terminalFailure).toEqual(last.failure);
  });

  it("non-retryable: attempt 2 fails for good below max_attempts and is flagged", () => {
    const [charge, notify] = attemptLedger(nonRetryable.history_events, nonRetryable.activities);
    expect(charge).toMatchObject({ status: "failed", attemptsUsed: 2, maxAttempts: 5 });
    expect(charge!.attempts[1]!.failure).toMatchObject({
      retried: false,
      nonRetryable: true,
      failureCategory: "activity",
      exceptionType: "PaymentDeclined",
      message: "Card declined: insufficient funds",
    });
    expect(charge!.attempts[1]!.changes?.error).toBe(true);
    expect(charge!.attempts[1]!.changes?.worker).toBe(true);
    expect(notify).toMatchObject({ type: "NotifyCustomer", status: "completed", attemptsUsed: 1, maxAttempts: 1 });
  });

  it("activity timeout: a retried timeout, then a terminal one whose attempt reads expired (history wins over the row)", () => {
    const invoice = attemptLedger(activityTimeout.history_events, activityTimeout.activities)[0]!;
    // The enforcer writes `failed` on the attempt row; the history-rebuilt status is `expired`.
    expect(activityTimeout.activities[0]!.attempts[1]!.status).toBe("failed");
    expect(invoice.status).toBe("failed");
    expect(invoice.retryPolicy?.startToCloseTimeout).toBe(30);
    expect(invoice.attempts.map((attempt) => attempt.status)).toEqual(["failed", "expired"]);
    expect(invoice.attempts[0]!.failure).toMatchObject({
      retried: true,
      timeoutKind: "start_to_close",
      exceptionClass: "Workflow\\V2\\Exceptions\\ActivityTimeoutException",
    });
    expect(invoice.attempts[0]!.retry).toMatchObject({ backoffSeconds: 10, nextAttempt: 2 });
    expect(invoice.attempts[1]!.failure).toMatchObject({
      eventType: "ActivityTimedOut",
      failureCategory: "timeout",
      timeoutKind: "start_to_close",
      nonRetryable: false,
    });
    expect(invoice.terminalFailure?.eventType).toBe("ActivityTimedOut");
  });

  it("lease expiry: the stale attempt is expired and superseded, from the row or inferred without it", () => {
    const withRows = attemptLedger(leaseExpiry.history_events, leaseExpiry.activities)[0]!;
    expect(
      withRows.attempts.map((attempt) => [attempt.number, attempt.status, attempt.superseded, attempt.worker]),
    ).toEqual([
      [1, "expired", true, "worker-crashed"],
      [2, "completed", false, "worker-b"],
    ]);
    expect(withRows.attempts[0]!.closedAt).toBe("2026-11-30T14:05:10.000000Z");
    expect(withRows.attempts[0]!.failure).toBeNull();
    expect(withRows.status).toBe("completed");

    const historyOnly = attemptLedger(leaseExpiry.history_events)[0]!;
    expect(historyOnly.attempts[0]).toMatchObject({
      status: "expired",
      superseded: true,
      closedAt: null,
      durationMs: null,
    });
  });

  it("an open attempt that is the latest stays running without a row", () => {
    const started = leaseExpiry.history_events.filter((event) => event.sequence <= 4);
    const ship = attemptLedger(started)[0]!;
    expect(ship.status).toBe("running");
    expect(ship.attempts).toHaveLength(1);
    expect(ship.attempts[0]).toMatchObject({ status: "running", superseded: false });
  });

  it("records heartbeats on their attempt and closes attempts of a cancelled activity", () => {
    const events = leaseExpiry.history_events.filter((event) => event.sequence <= 6);
    const second = events[5]!;
    expect(second.type).toBe("ActivityStarted");
    const base = {
      activity_execution_id: second.payload.activity_execution_id,
      activity_attempt_id: second.payload.activity_attempt_id,
      activity_type: "ShipParcel",
    };
    const ship = attemptLedger([
      ...events,
      {
        id: "hb",
        sequence: 7,
        type: "ActivityHeartbeatRecorded",
        recorded_at: "2026-11-30T14:05:11.500000Z",
        payload: {
          ...base,
          attempt_number: 2,
          heartbeat_at: "2026-11-30T14:05:11.400000Z",
          progress: { current: 1, total: 3 },
        },
      },
      {
        id: "cx",
        sequence: 8,
        type: "ActivityCancelled",
        recorded_at: "2026-11-30T14:05:12.000000Z",
        payload: { ...base, attempt_number: 2, cancelled_at: "2026-11-30T14:05:12.000000Z" },
      },
    ])[0]!;
    expect(ship.status).toBe("cancelled");
    expect(ship.closedAt).toBe("2026-11-30T14:05:12.000000Z");
    expect(ship.attempts[1]).toMatchObject({
      status: "cancelled",
      lastHeartbeatAt: "2026-11-30T14:05:11.400000Z",
      durationMs: 1000,
      failure: null,
    });
  });

  it("retry pending: the next attempt and its due time are on the execution", () => {
    const charge = attemptLedger(retryPending.history_events, retryPending.activities)[0]!;
    expect(charge).toMatchObject({
      status: "pending",
      attemptsUsed: 2,
      nextAttempt: 3,
      nextAttemptDueAt: "2026-11-30T14:04:02.000000Z",
    });
    expect(charge.attempts[1]!.changes?.error).toBe(true);
  });

  it("reads the /history wire shape like the export shape", () => {
    const wire = retryThenSuccess.history_events.map((event) => ({
      sequence: event.sequence,
      event_type: event.type,
      timestamp: event.recorded_at,
      payload: event.payload,
    }));
    expect(attemptLedger(wire)).toEqual(attemptLedger(retryThenSuccess.history_events));
  });

  it("builds executions known only from rows", () => {
    const ledger = attemptLedger([], exhausted.activities);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ status: "failed", attemptsUsed: 3, type: "ReserveInventory" });
    expect(ledger[0]!.attempts.every((attempt) => attempt.failure === null)).toBe(true);
  });
});

describe("toRetryPolicy", () => {
  it("treats a null max_attempts as unlimited and an int backoff as a one-entry list", () => {
    expect(toRetryPolicy({ max_attempts: null, backoff_seconds: 7 })).toMatchObject({
      maxAttempts: null,
      backoffSeconds: [7],
    });
    expect(toRetryPolicy(null)).toBeNull();
  });

  it("marks unlimited attempts only when a policy says so", () => {
    const unlimited = retryPending.history_events.map((event) =>
      event.type === "ActivityScheduled"
        ? {
            ...event,
            payload: {
              ...event.payload,
              activity: { ...event.payload.activity, retry_policy: { max_attempts: null } },
            },
          }
        : event.type === "ActivityRetryScheduled"
          ? { ...event, payload: { ...event.payload, max_attempts: null, retry_policy: { max_attempts: null } } }
          : event,
    );
    const [charge] = attemptLedger(unlimited);
    expect(charge).toMatchObject({ maxAttempts: null, unlimitedAttempts: true });
  });
});

/*
 * The fixtures are history exports shaped like the engine's (HistoryExport.php@8dc90d64): a
 * terminal failure after every allowed attempt, a non-retryable one, a lease expiry and a timeout.
 */
describe("retryVerdict", () => {
  it("says retries are exhausted when every allowed attempt failed", () => {
    const reserve = attemptLedger(exhausted.history_events, exhausted.activities)[0]!;
    expect(retryVerdict(reserve)).toEqual({ kind: "exhausted", used: 3, max: 3 });
  });

  it("names the non-retryable type rather than the policy's list", () => {
    const charge = attemptLedger(nonRetryable.history_events, nonRetryable.activities)[0]!;
    expect(retryVerdict(charge)).toMatchObject({ kind: "non_retryable" });
    expect(retryVerdict(charge)).not.toMatchObject({ kind: "exhausted" });
  });

  it("has no verdict for an execution that did not fail, or failed before its limit for another reason", () => {
    expect(retryVerdict(attemptLedger(retryThenSuccess.history_events, retryThenSuccess.activities)[0]!)).toBeNull();
    expect(retryVerdict(attemptLedger(retryPending.history_events, retryPending.activities)[0]!)).toBeNull();
    expect(retryVerdict({ status: "failed", terminalFailure: null, attemptsUsed: 1, maxAttempts: 3 })).toBeNull();
  });
});

describe("attemptGap", () => {
  it("a lease expiry names the lease and the wait until the redelivered attempt", () => {
    const ship = attemptLedger(leaseExpiry.history_events, leaseExpiry.activities)[0]!;
    const [first, second] = ship.attempts;
    expect(first!.leaseExpiresAt).toBe("2026-11-30T14:05:00.200000Z");
    // Lease ran out at 14:05:00.2; attempt 2 started at 14:05:11.0.
    expect(attemptGap(ship, first!)).toEqual({
      kind: "lease",
      leaseExpiresAt: "2026-11-30T14:05:00.200000Z",
      lastHeartbeatAt: null,
      nextAttempt: 2,
      gapMs: 10_800,
    });
    expect(attemptGap(ship, second!)).toBeNull();
  });

  it("a timeout names its kind and the policy's limit", () => {
    const invoice = attemptLedger(activityTimeout.history_events, activityTimeout.activities).find(
      (activity) => activity.type === "GenerateInvoice",
    )!;
    const gaps = invoice.attempts.map((attempt) => attemptGap(invoice, attempt));
    expect(gaps[0]).toMatchObject({ kind: "timeout", timeoutKind: "start_to_close", limitSeconds: 30, nextAttempt: 2 });
    expect(gaps[1]).toMatchObject({
      kind: "timeout",
      timeoutKind: "start_to_close",
      limitSeconds: 30,
      nextAttempt: null,
    });
  });
});

describe("retryRules", () => {
  const policy = (maxAttempts: number | null, backoffSeconds: number[], nonRetryableErrorTypes: string[] = []) => ({
    maxAttempts,
    backoffSeconds,
    nonRetryableErrorTypes,
    startToCloseTimeout: null,
    scheduleToStartTimeout: null,
    scheduleToCloseTimeout: null,
    heartbeatTimeout: null,
  });

  it("shows no backoff and no stop list for an activity that can never retry", () => {
    expect(retryRules({ maxAttempts: 1, retryPolicy: policy(1, [1, 2, 5, 120], ["Declined"]) })).toEqual({
      backoffSeconds: [],
      nonRetryableErrorTypes: [],
    });
  });

  it("shows only the backoffs a retry can use: one fewer than the attempts", () => {
    expect(retryRules({ maxAttempts: 3, retryPolicy: policy(3, [1, 2, 5, 120], ["Declined"]) })).toEqual({
      backoffSeconds: [1, 2],
      nonRetryableErrorTypes: ["Declined"],
    });
  });

  it("keeps the whole list when attempts are unlimited, and nothing without a policy", () => {
    expect(retryRules({ maxAttempts: null, retryPolicy: policy(null, [1, 2, 5]) }).backoffSeconds).toEqual([1, 2, 5]);
    expect(retryRules({ maxAttempts: 3, retryPolicy: null })).toEqual({
      backoffSeconds: [],
      nonRetryableErrorTypes: [],
    });
  });
});
