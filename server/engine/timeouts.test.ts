import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker, WorkflowTaskWire } from "../http/test-support";
import { blob, failuresOf, historyOf, runRow, startWorkerHarness, typesOf } from "../http/test-support";

let h: Harness;
let worker: Worker;

beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

async function startWith(
  commands: Record<string, unknown>[],
  opts: { execution_timeout_seconds?: number; run_timeout_seconds?: number } = {},
): Promise<string> {
  const start = h.engine.startWorkflow({
    namespace: "default",
    workflow_type: "timeouts.wf",
    task_queue: "default",
    ...opts,
  });
  const task = await worker.mustPollWorkflow();
  expect((await worker.completeWorkflow(task, commands)).status).toBe(200);
  return start.run_id as string;
}

describe("activity timeouts (sweep-enforced)", () => {
  const cases = [
    { kind: "schedule_to_start", options: { schedule_to_start_timeout: 10 }, claim: false, steps: [10] },
    { kind: "start_to_close", options: { start_to_close_timeout: 30 }, claim: true, steps: [30] },
    { kind: "schedule_to_close", options: { schedule_to_close_timeout: 60, max: 3 }, claim: true, steps: [60] },
    {
      kind: "heartbeat",
      options: { heartbeat_timeout: 10, start_to_close_timeout: 100 },
      claim: true,
      heartbeatAfter: 5,
      steps: [9, 1],
    },
  ] as const;

  it.each(cases)("$kind deadline → ActivityTimedOut, timeout failure row, workflow resumed", async (c) => {
    const { max, ...timeouts } = { max: undefined, ...c.options };
    const runId = await startWith([
      { type: "schedule_activity", activity_type: "slow", retry_policy: { max_attempts: max ?? 1 }, ...timeouts },
    ]);
    const task = c.claim ? await worker.mustPollActivity() : null;
    if (task && "heartbeatAfter" in c) {
      h.advance(c.heartbeatAfter);
      const hb = await worker.heartbeatActivity(task, { message: "half way" });
      expect(hb.body).toMatchObject({ can_continue: true, heartbeat_recorded: true });
    }
    for (const [i, step] of c.steps.entries()) {
      const before = typesOf(h.db, runId).length;
      h.advance(step);
      if (i < c.steps.length - 1) expect(typesOf(h.db, runId)).toHaveLength(before);
    }
    const timedOut = historyOf(h.db, runId).find((e) => e.event_type === "ActivityTimedOut");
    expect(timedOut?.payload).toMatchObject({
      timeout_kind: c.kind,
      failure_category: "timeout",
      exception_class: "Workflow\\V2\\Exceptions\\ActivityTimeoutException",
    });
    expect(failuresOf(h.db, runId)).toEqual([
      expect.objectContaining({
        source_kind: "activity_execution",
        propagation_kind: "timeout",
        failure_category: "timeout",
        non_retryable: 0,
      }),
    ]);
    if (task) {
      const late = await worker.completeActivity(task);
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ recorded: false, reason: "stale_attempt" });
      expect(historyOf(h.db, runId).filter((e) => e.event_type === "ActivityCompleted")).toHaveLength(0);
    }
    const resume = await worker.mustPollWorkflow();
    expect(resume.history_events.at(-1)?.event_type).toBe("ActivityTimedOut");
  });

  it("a start-to-close timeout with attempts left is retried (ActivityRetryScheduled with timeout_kind)", async () => {
    const runId = await startWith([
      {
        type: "schedule_activity",
        activity_type: "slow",
        start_to_close_timeout: 20,
        retry_policy: { max_attempts: 2, backoff_seconds: [3] },
      },
    ]);
    const first = await worker.mustPollActivity();
    h.advance(20);
    const retry = historyOf(h.db, runId).find((e) => e.event_type === "ActivityRetryScheduled");
    expect(retry?.payload).toMatchObject({
      timeout_kind: "start_to_close",
      retry_backoff_seconds: 3,
      retry_after_attempt_id: first.activity_attempt_id,
      retry_after_attempt: 1,
    });
    expect(failuresOf(h.db, runId)).toHaveLength(0);
    h.advance(3);
    const second = await worker.mustPollActivity();
    expect(second.attempt_number).toBe(2);
    expect((await worker.completeActivity(second)).body).toMatchObject({ recorded: true });
  });
});

describe("workflow execution and run timeouts", () => {
  const cases = [
    { timeout: "execution_timeout", opts: { execution_timeout_seconds: 60 }, parked: "activity" },
    { timeout: "execution_timeout", opts: { execution_timeout_seconds: 60 }, parked: "timer" },
    { timeout: "run_timeout", opts: { run_timeout_seconds: 60 }, parked: "activity" },
    { timeout: "run_timeout", opts: { run_timeout_seconds: 60 }, parked: "timer" },
  ] as const;

  it.each(cases)("$timeout of a run parked on an $parked", async (c) => {
    const command =
      c.parked === "activity"
        ? { type: "schedule_activity", activity_type: "long", start_to_close_timeout: 3600 }
        : { type: "start_timer", delay_seconds: 3600 };
    const runId = await startWith([command], c.opts);
    const activity = c.parked === "activity" ? await worker.mustPollActivity() : null;
    h.advance(59);
    expect(runRow(h.db, runId).status).toBe("waiting");
    h.advance(1);
    // The watchdog created the deadline task; claiming it enforces the timeout, so the poll hands out nothing.
    expect(await worker.pollWorkflow()).toBeNull();
    const run = runRow(h.db, runId);
    expect(run).toMatchObject({ status: "failed", closed_reason: "timed_out" });
    const types = typesOf(h.db, runId);
    expect(types.slice(-2)).toEqual([
      c.parked === "activity" ? "ActivityCancelled" : "TimerCancelled",
      "WorkflowTimedOut",
    ]);
    const timedOut = historyOf(h.db, runId).at(-1);
    expect(timedOut?.payload).toMatchObject({
      timeout_kind: c.timeout,
      failure_category: "timeout",
      exception_class: "Workflow\\V2\\Exceptions\\WorkflowTimeoutException",
    });
    expect(failuresOf(h.db, runId)).toEqual([
      expect.objectContaining({
        source_kind: "workflow_run",
        propagation_kind: "timeout",
        failure_category: "timeout",
      }),
    ]);
    if (activity) {
      const late = await worker.completeActivity(activity);
      expect(late.body).toMatchObject({ recorded: false, reason: "stale_attempt" });
    }
    expect(
      h.db
        .prepare("SELECT COUNT(*) AS n FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready','leased')")
        .get(runId),
    ).toEqual({ n: 0 });
  });

  it("the execution deadline spans continue-as-new while the run deadline restarts", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_type: "chain",
      task_queue: "default",
      execution_timeout_seconds: 100,
      run_timeout_seconds: 80,
    });
    const first = await worker.mustPollWorkflow();
    h.clock.advance(50_000);
    await worker.completeWorkflow(first, [{ type: "continue_as_new", arguments: blob([2]) }]);
    const second = await worker.mustPollWorkflow();
    expect(second.run_id).not.toBe(start.run_id);
    await worker.completeWorkflow(second, [{ type: "start_timer", delay_seconds: 1000 }]);
    const deadlines = h.db
      .prepare("SELECT execution_deadline_at, run_deadline_at FROM workflow_runs WHERE id = ?")
      .get(second.run_id) as { execution_deadline_at: number; run_deadline_at: number };
    const startedAt = Date.parse("2026-01-15T10:00:00.000Z");
    expect(deadlines).toEqual({
      execution_deadline_at: startedAt + 100_000,
      run_deadline_at: startedAt + 50_000 + 80_000,
    });
    h.advance(50);
    expect(await worker.pollWorkflow()).toBeNull();
    expect(historyOf(h.db, second.run_id).at(-1)?.payload).toMatchObject({ timeout_kind: "execution_timeout" });
  });

  it("a timed-out child notifies its waiting parent (ChildRunFailed)", async () => {
    const parent = h.engine.startWorkflow({ namespace: "default", workflow_type: "parent", task_queue: "default" });
    const pTask = await worker.mustPollWorkflow();
    await worker.completeWorkflow(pTask, [
      { type: "start_child_workflow", workflow_type: "child", run_timeout_seconds: 30 },
    ]);
    const cTask = (await worker.mustPollWorkflow()) as WorkflowTaskWire;
    await worker.completeWorkflow(cTask, [{ type: "start_timer", delay_seconds: 600 }]);
    h.advance(30);
    // One poll: claiming the child's deadline task times it out, and the claim moves on to the parent's resume task.
    const resume = await worker.mustPollWorkflow();
    expect(runRow(h.db, cTask.run_id)).toMatchObject({ status: "failed", closed_reason: "timed_out" });
    expect(resume.run_id).toBe(parent.run_id);
    const childFailed = resume.history_events.at(-1);
    expect(childFailed?.event_type).toBe("ChildRunFailed");
    expect(childFailed?.payload).toMatchObject({
      child_workflow_run_id: cTask.run_id,
      closed_reason: "timed_out",
      failure_category: "child_workflow",
    });
  });
});
