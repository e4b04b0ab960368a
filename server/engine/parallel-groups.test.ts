import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, historyOf, startWorkerHarness, typesOf } from "../http/test-support";

// Gaps sdk-python 2.12.0 revealed: its parallel groups (`yield [a, b, c]`) were re-scheduled on
// every wake-up, because history carried no group keys and steps were numbered from 2.
let h: Harness;
let worker: Worker;

beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

function member(base: number, size: number, index: number): Record<string, unknown> {
  const entry = {
    parallel_group_id: `parallel-activities:${base}:${size}`,
    parallel_group_kind: "activity",
    parallel_group_base_sequence: base,
    parallel_group_size: size,
    parallel_group_index: index,
  };
  return {
    type: "schedule_activity",
    activity_type: "square",
    arguments: blob([index]),
    ...entry,
    parallel_group_path: [entry],
  };
}

describe("workflow step sequences", () => {
  it("start at 1 and are not consumed by control-plane commands (a signal keeps its own command sequence)", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "seq-1",
      workflow_type: "steps",
      task_queue: "default",
    });
    expect(start.command_sequence).toBe(1);
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [{ type: "start_timer", delay_seconds: 60 }]);
    const signal = h.engine.signalWorkflow({
      namespace: "default",
      workflow_id: "seq-1",
      signal_name: "poke",
      input: blob([]),
    });
    expect(signal.command_sequence).toBe(2);
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [{ type: "start_timer", delay_seconds: 60 }]);
    const timers = historyOf(h.db, start.run_id as string).filter((e) => e.event_type === "TimerScheduled");
    expect(timers.map((e) => (e.payload as { sequence: number }).sequence)).toEqual([1, 2]);
  });
});

describe("parallel activity groups", () => {
  it("record the group on every member event and wake the workflow only after the last success", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "fan-1",
      workflow_type: "fan",
      task_queue: "default",
    });
    const runId = start.run_id as string;
    const done = await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      member(1, 3, 0),
      member(1, 3, 1),
      member(1, 3, 2),
    ]);
    expect(done.status).toBe(200);
    const tasks = [await worker.mustPollActivity(), await worker.mustPollActivity(), await worker.mustPollActivity()];
    await worker.completeActivity(tasks[0]!);
    await worker.completeActivity(tasks[1]!);
    expect(await worker.pollWorkflow()).toBeNull();
    const last = await worker.completeActivity(tasks[2]!);
    expect(last.body.next_task_id).toBeTruthy();
    const resumed = await worker.mustPollWorkflow();
    await worker.completeWorkflow(resumed, [{ type: "complete_workflow", result: blob(5) }]);
    const events = historyOf(h.db, runId);
    for (const type of ["ActivityScheduled", "ActivityStarted", "ActivityCompleted"]) {
      const of = events.filter((e) => e.event_type === type).map((e) => e.payload as Record<string, unknown>);
      expect(of).toHaveLength(3);
      expect(of.map((p) => [p.parallel_group_id, p.parallel_group_size])).toEqual(
        Array(3).fill(["parallel-activities:1:3", 3]),
      );
      expect((of[0]?.parallel_group_path as unknown[]).length).toBe(1);
    }
    expect(typesOf(h.db, runId).at(-1)).toBe("WorkflowCompleted");
  });

  it("a failing member wakes the workflow at once", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_id: "fan-2", workflow_type: "fan", task_queue: "default" });
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [member(1, 2, 0), member(1, 2, 1)]);
    const first = await worker.mustPollActivity();
    await worker.mustPollActivity();
    const failed = await worker.failActivity(first, { message: "boom", non_retryable: true });
    expect(failed.body.next_task_id).toBeTruthy();
    expect(await worker.pollWorkflow()).not.toBeNull();
  });

  it("refuses members whose declared sequence is not the server's", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_id: "fan-3", workflow_type: "fan", task_queue: "default" });
    const task = await worker.mustPollWorkflow();
    const wrong = await worker.completeWorkflow(task, [member(5, 2, 0), member(5, 2, 1)]);
    expect([wrong.status, wrong.body.reason]).toEqual([422, "validation_failed"]);
    const badIndex = await worker.completeWorkflow(task, [member(1, 1, 1)]);
    expect(badIndex.status).toBe(422);
    expect((await worker.completeWorkflow(task, [member(1, 2, 0), member(1, 2, 1)])).status).toBe(200);
  });
});
