import { describe, expect, it } from "vitest";
import type { SendResult } from "../confirm/bulk";
import type { AcceptedRetry, RetryFollow } from "./bulk-retry";
import { bulkFollow, bulkRetryOutcome, bulkRetryPlan, retryItems, retrySendResult } from "./bulk-retry";
import type { ExecutableTask, Incident } from "./schemas";

const incident = (id: string, over: Partial<Incident> = {}): Incident => ({
  id,
  type: "FAILED_JOB",
  status: "OPEN",
  executionId: "task-1",
  createdAt: "2026-12-07T10:00:00.000Z",
  ...over,
});
const targets = [
  { processInstanceId: "p1", incidentId: "i1" },
  { processInstanceId: "p2", incidentId: "i2" },
  { processInstanceId: "p3", incidentId: "i3" },
  { processInstanceId: "p4", incidentId: "i4" },
];
const answer = (over: Partial<AcceptedRetry> = {}): AcceptedRetry => ({
  result: "accepted",
  incidentId: "i1",
  instanceId: "p1",
  taskId: "task-1",
  incidentCreatedAt: "2026-12-07T10:00:00.000Z",
  verdict: {
    phase: "confirmed",
    how: "pending",
    incidentStatus: "RESOLVED",
    taskStatus: "PENDING",
    retries: 3,
    executions: 1,
  },
  elapsedMs: 12,
  ...over,
});
const task = { id: "task-1", status: "PENDING" } as ExecutableTask;

describe("bulk retry plan", () => {
  it("retries only incidents the dry run still read OPEN; resolved, missing and unreadable ones are skipped", () => {
    const plan = bulkRetryPlan(targets, [
      [incident("i1")],
      [incident("i2", { status: "RESOLVED" })],
      [incident("other")],
      null,
    ]);
    expect(plan.items.map((item) => item.bucket)).toEqual([
      "retry",
      "skip_not_open",
      "skip_not_open",
      "skip_unreadable",
    ]);
    expect(plan.counts).toEqual({ retry: 1, skip_not_open: 2, skip_unreadable: 1 });
    expect(retryItems(plan)).toEqual([{ processInstanceId: "p1", incidentId: "i1" }]);
  });
});

describe("bulk retry sends and follow-up", () => {
  it("tallies the route's verdict, its 409 as already retried, and a failure as an error", () => {
    expect(retrySendResult({ ok: true, answer: answer() })).toEqual({ kind: "accepted", outcome: "confirmed" });
    expect(retrySendResult({ ok: false, status: 409, reason: "conflict" })).toEqual({
      kind: "rejected",
      reason: "already_retried",
    });
    expect(retrySendResult({ ok: false, status: 403, reason: "read_only" })).toEqual({
      kind: "error",
      reason: "read_only",
    });
  });

  it("follows each instance by the single retry's rule: a newer incident on the task is a failure again", () => {
    const again = incident("i9", { createdAt: "2026-12-07T10:00:03.000Z", message: "again" });
    expect(bulkFollow(answer(), [incident("i1", { status: "RESOLVED" }), again], [task])).toEqual({
      kind: "failed_again",
      incident: again,
    });
    expect(bulkFollow(answer(), [incident("i1", { status: "RESOLVED" })], [task])).toEqual({ kind: "holding" });
    expect(bulkFollow(answer(), [], [])).toEqual({ kind: "moved_on", finished: false });
    expect(bulkFollow(answer(), [], "gone")).toEqual({ kind: "moved_on", finished: true });
  });

  it("says per instance what happened and settles only once none is still waiting to be seen", () => {
    const plan = bulkRetryPlan(targets, [[incident("i1")], [incident("i2")], [incident("i3")], [incident("i4")]]);
    const again = incident("i9", { processInstanceId: "p1" });
    const sends: SendResult[] = [
      { kind: "accepted", outcome: "confirmed" },
      { kind: "accepted", outcome: "confirmed" },
      { kind: "rejected", reason: "already_retried" },
      { kind: "error", reason: "server_unavailable" },
    ];
    const holding: (RetryFollow | null)[] = [
      { kind: "failed_again", incident: again },
      { kind: "holding" },
      null,
      null,
    ];
    const first = bulkRetryOutcome(plan, sends, holding);
    expect(first.rows.map((row) => row.state)).toEqual(["failed_again", "confirmed", "already_retried", "error"]);
    expect(first.rows[0]).toMatchObject({ processInstanceId: "p1", incident: again });
    expect(first.settled).toBe(false);

    const later = bulkRetryOutcome(plan, sends, [
      { kind: "failed_again", incident: again },
      { kind: "moved_on", finished: true },
      null,
      null,
    ]);
    expect(later.counts).toMatchObject({ failed_again: 1, moved_on: 1, confirmed: 0, already_retried: 1, error: 1 });
    expect(later.settled).toBe(true);
  });

  it("keeps an instance whose confirmation timed out unsettled, never as confirmed", () => {
    const plan = bulkRetryPlan(targets.slice(0, 1), [[incident("i1")]]);
    const outcome = bulkRetryOutcome(plan, [{ kind: "accepted", outcome: "timed_out" }], [null]);
    expect(outcome.rows[0]?.state).toBe("unconfirmed");
    expect(outcome.settled).toBe(false);
  });
});
