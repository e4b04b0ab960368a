import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoMicros } from "../clock";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, failuresOf, historyOf, runRow, ScriptedWorker, startHarness, typesOf } from "../http/test-support";

type Outcome = "ok" | { type: string; non_retryable?: boolean };

interface RetryCase {
  name: string;
  retryPolicy: Record<string, unknown> | null;
  outcomes: Outcome[];
  expectedBackoffs: number[];
  /** What the workflow does when it sees ActivityFailed. */
  onFailure: "fail_workflow" | "complete_workflow";
  expected: { activityFailed: boolean; nonRetryable: boolean; runStatus: string; closedReason: string };
}

const cases: RetryCase[] = [
  {
    name: "3 tries with backoff [5, 30]: fails twice, then succeeds",
    retryPolicy: { max_attempts: 3, backoff_seconds: [5, 30] },
    outcomes: [{ type: "TransientError" }, { type: "TransientError" }, "ok"],
    expectedBackoffs: [5, 30],
    onFailure: "fail_workflow",
    expected: { activityFailed: false, nonRetryable: false, runStatus: "completed", closedReason: "completed" },
  },
  {
    name: "backoff list shorter than the retries reuses its last entry",
    retryPolicy: { max_attempts: 4, backoff_seconds: [2] },
    outcomes: [{ type: "TransientError" }, { type: "TransientError" }, { type: "TransientError" }, "ok"],
    expectedBackoffs: [2, 2, 2],
    onFailure: "fail_workflow",
    expected: { activityFailed: false, nonRetryable: false, runStatus: "completed", closedReason: "completed" },
  },
  {
    name: "exhausted attempts, unhandled: ActivityFailed and a failed run",
    retryPolicy: { max_attempts: 2, backoff_seconds: [1] },
    outcomes: [{ type: "TransientError" }, { type: "TransientError" }],
    expectedBackoffs: [1],
    onFailure: "fail_workflow",
    expected: { activityFailed: true, nonRetryable: false, runStatus: "failed", closedReason: "failed" },
  },
  {
    name: "exhausted attempts, caught by the workflow: a completed run",
    retryPolicy: { max_attempts: 2, backoff_seconds: [1] },
    outcomes: [{ type: "TransientError" }, { type: "TransientError" }],
    expectedBackoffs: [1],
    onFailure: "complete_workflow",
    expected: { activityFailed: true, nonRetryable: false, runStatus: "completed", closedReason: "completed" },
  },
  {
    name: "a policy without backoff_seconds retries at once, like the engine's [] (not the PHP class default)",
    retryPolicy: { max_attempts: 3 },
    outcomes: [{ type: "TransientError" }, { type: "TransientError" }, "ok"],
    expectedBackoffs: [0, 0],
    onFailure: "fail_workflow",
    expected: { activityFailed: false, nonRetryable: false, runStatus: "completed", closedReason: "completed" },
  },
  {
    name: "default policy is a single attempt",
    retryPolicy: null,
    outcomes: [{ type: "TransientError" }],
    expectedBackoffs: [],
    onFailure: "fail_workflow",
    expected: { activityFailed: true, nonRetryable: false, runStatus: "failed", closedReason: "failed" },
  },
  {
    name: "non-retryable by the worker flag: terminal on the first attempt",
    retryPolicy: { max_attempts: 5, backoff_seconds: [1] },
    outcomes: [{ type: "TransientError", non_retryable: true }],
    expectedBackoffs: [],
    onFailure: "fail_workflow",
    expected: { activityFailed: true, nonRetryable: true, runStatus: "failed", closedReason: "failed" },
  },
  {
    name: "non-retryable by type listed in non_retryable_error_types",
    retryPolicy: { max_attempts: 5, backoff_seconds: [1], non_retryable_error_types: ["FatalError"] },
    outcomes: [{ type: "FatalError" }],
    expectedBackoffs: [],
    onFailure: "fail_workflow",
    expected: { activityFailed: true, nonRetryable: true, runStatus: "failed", closedReason: "failed" },
  },
];

describe("activity retries over the HTTP worker plane", () => {
  let h: Harness;
  let worker: Worker;

  beforeEach(async () => {
    h = await startHarness();
    worker = new ScriptedWorker(h.url);
    expect((await worker.register()).status).toBe(201);
  });
  afterEach(async () => h.close());

  it.each(cases)("$name", async (c) => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_type: "orders.process",
      task_queue: "default",
      input: blob(["order-1"]),
    });
    expect(start.outcome).toBe("started_new");
    const runId = start.run_id as string;

    const first = await worker.mustPollWorkflow();
    expect(first.history_events.map((e) => e.event_type)).toEqual(["StartAccepted", "WorkflowStarted"]);
    const schedule: Record<string, unknown> = {
      type: "schedule_activity",
      activity_type: "charge-card",
      arguments: blob([42]),
    };
    if (c.retryPolicy) schedule.retry_policy = c.retryPolicy;
    expect((await worker.completeWorkflow(first, [schedule])).status).toBe(200);
    expect(runRow(h.db, runId).status).toBe("waiting");

    const seenBackoffs: number[] = [];
    for (const [i, outcome] of c.outcomes.entries()) {
      const task = await worker.mustPollActivity();
      expect(task.attempt_number).toBe(i + 1);
      if (outcome === "ok") {
        const r = await worker.completeActivity(task, blob("charged"));
        expect(r.body).toMatchObject({ outcome: "completed", recorded: true });
        continue;
      }
      const failedAt = h.clock.now();
      const r = await worker.failActivity(task, {
        message: `boom ${i + 1}`,
        type: outcome.type,
        non_retryable: outcome.non_retryable ?? false,
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ outcome: "failed", recorded: true });
      const retry = historyOf(h.db, runId)
        .filter((e) => e.event_type === "ActivityRetryScheduled")
        .at(-1);
      const isLast = i === c.outcomes.length - 1;
      if (retry && retry.payload.retry_after_attempt_id === task.activity_attempt_id) {
        const backoff = retry.payload.retry_backoff_seconds as number;
        seenBackoffs.push(backoff);
        expect(retry.payload).toMatchObject({
          activity_attempt_id: task.activity_attempt_id,
          retry_after_attempt: i + 1,
          retry_available_at: isoMicros(failedAt + backoff * 1000),
          exception_type: outcome.type,
          message: `boom ${i + 1}`,
        });
        expect(retry.payload).not.toHaveProperty("failure_id");
        const retryTask = h.db
          .prepare("SELECT * FROM workflow_tasks WHERE id = ?")
          .get(retry.payload.retry_task_id) as { payload: string; available_at: number; status: string };
        expect(retryTask.available_at).toBe(failedAt + backoff * 1000);
        expect(JSON.parse(retryTask.payload)).toMatchObject({
          retry_of_task_id: task.task_id,
          retry_after_attempt_id: task.activity_attempt_id,
          retry_after_attempt: i + 1,
          retry_backoff_seconds: backoff,
        });
        // Not claimable before its backoff ends, claimable right at it; the workflow stays parked.
        expect(
          h.db
            .prepare(
              "SELECT COUNT(*) AS n FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status = 'ready'",
            )
            .get(runId),
        ).toEqual({ n: 0 });
        if (backoff > 0) {
          h.advance(backoff - 0.001);
          expect(await worker.pollActivity()).toBeNull();
        }
        h.advance(0.001);
      } else {
        expect(isLast).toBe(true);
      }
    }
    expect(seenBackoffs).toEqual(c.expectedBackoffs);

    const resume = await worker.mustPollWorkflow();
    const types = resume.history_events.map((e) => e.event_type);
    expect(types.filter((t) => t === "ActivityStarted")).toHaveLength(c.outcomes.length);
    expect(types.filter((t) => t === "ActivityRetryScheduled")).toHaveLength(c.expectedBackoffs.length);
    const failures = failuresOf(h.db, runId);
    if (c.expected.activityFailed) {
      const failed = resume.history_events.find((e) => e.event_type === "ActivityFailed");
      expect(failed?.payload).toMatchObject({
        failure_category: "activity",
        non_retryable: c.expected.nonRetryable,
        attempt_number: c.outcomes.length,
      });
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({
        source_kind: "activity_execution",
        propagation_kind: "activity",
        failure_category: "activity",
        non_retryable: c.expected.nonRetryable ? 1 : 0,
      });
      const decision =
        c.onFailure === "fail_workflow"
          ? { type: "fail_workflow", message: "charge failed", exception_type: "ChargeFailed" }
          : { type: "complete_workflow", result: blob("refunded") };
      expect((await worker.completeWorkflow(resume, [decision])).status).toBe(200);
      // Caught by the workflow → FailureHandled and handled = 1; unhandled → WorkflowFailed and handled = 0.
      const handled = c.onFailure === "complete_workflow";
      expect(typesOf(h.db, runId).includes("FailureHandled")).toBe(handled);
      expect(
        (
          h.db
            .prepare(
              "SELECT handled FROM workflow_failures WHERE workflow_run_id = ? AND source_kind = 'activity_execution'",
            )
            .get(runId) as { handled: number }
        ).handled,
      ).toBe(handled ? 1 : 0);
      if (handled)
        expect(historyOf(h.db, runId).find((e) => e.event_type === "FailureHandled")?.payload).toMatchObject({
          failure_id: failed?.payload.failure_id,
          propagation_kind: "activity",
          handled: true,
        });
    } else {
      expect(types).toContain("ActivityCompleted");
      expect(types).not.toContain("ActivityFailed");
      expect(failures).toHaveLength(0);
      expect(
        (await worker.completeWorkflow(resume, [{ type: "complete_workflow", result: blob("done") }])).status,
      ).toBe(200);
    }
    const run = runRow(h.db, runId);
    expect(run.status).toBe(c.expected.runStatus);
    expect(run.closed_reason).toBe(c.expected.closedReason);
    const finalTypes = typesOf(h.db, runId);
    expect(finalTypes.at(-1)).toBe(c.expected.runStatus === "completed" ? "WorkflowCompleted" : "WorkflowFailed");
    // Attempts: all but the last closed `failed` on retry; the row count equals the attempts made.
    const attempts = h.db
      .prepare("SELECT status FROM activity_attempts WHERE workflow_run_id = ? ORDER BY attempt_number")
      .all(runId) as { status: string }[];
    expect(attempts.map((a) => a.status)).toEqual(c.outcomes.map((o) => (o === "ok" ? "completed" : "failed")));
  });
});
