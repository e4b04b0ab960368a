import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loseTransport } from "../demo/faults";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, startWorkerHarness } from "../http/test-support";
import type { RunSummary } from "./summary";
import { projectRunSummary } from "./summary";
import { SummaryCache } from "./summary-cache";

let h: Harness;
let worker: Worker;
beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

const stored = (runId: string): RunSummary =>
  h.db.prepare("SELECT * FROM workflow_run_summaries WHERE id = ?").get(runId) as RunSummary;

/** The row a refresh from scratch would write now: what the stored row must equal. */
function expectProjected(runId: string): void {
  const fresh = projectRunSummary(h.db, runId, h.clock.now());
  expect(stored(runId)).toMatchObject(fresh ?? {});
}

describe("summary cache", () => {
  it("keeps every summary equal to a projection from scratch across a run's life", async () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sc-1",
      workflow_type: "chain",
      task_queue: "default",
    }).run_id as string;
    for (let step = 0; step < 2; step++) {
      const task = await worker.mustPollWorkflow();
      expectProjected(run);
      await worker.completeWorkflow(task, [
        { type: "schedule_activity", activity_type: "Step", arguments: blob([step]) },
      ]);
      expectProjected(run);
      const activity = await worker.mustPollActivity();
      expectProjected(run);
      await worker.completeActivity(activity, blob({ step }));
      expectProjected(run);
    }
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      { type: "complete_workflow", result: blob("done") },
    ]);
    expectProjected(run);
    expect(stored(run).status).toBe("completed");
  });

  it("notices a write to the summary row that did not go through it (same connection, raw)", async () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sc-2",
      workflow_type: "chain",
      task_queue: "default",
    }).run_id as string;
    const task = await worker.mustPollWorkflow();
    await worker.completeWorkflow(task, [{ type: "start_timer", delay_seconds: 60 }]);
    expect(stored(run).liveness_state).toBe("timer_scheduled");
    // The fault injector deletes the timer task and refreshes the summary on the raw connection.
    loseTransport(h.db, run, h.clock.now());
    expect(stored(run).liveness_state).toBe("repair_needed");
    // The repair's refresh must write timer_scheduled again: a cache still believing the row says
    // timer_scheduled would find nothing to write and leave repair_needed behind.
    h.engine.transaction((tx) => {
      tx.createTask(
        tx.mustRun(run),
        "timer",
        {
          timer_id: (
            h.db.prepare("SELECT id FROM workflow_run_timers WHERE workflow_run_id = ?").get(run) as { id: string }
          ).id,
        },
        { availableAt: h.clock.now() + 60_000 },
      );
    });
    expect(stored(run).liveness_state).toBe("timer_scheduled");
    expectProjected(run);
  });

  it("forgets what a rolled-back batch wrote", () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sc-3",
      workflow_type: "chain",
      task_queue: "default",
    }).run_id as string;
    h.engine.signalWorkflow({ namespace: "default", workflow_id: "sc-3", signal_name: "warm" });
    const cache = SummaryCache.for(h.db);
    const before = stored(run);
    const cached = cache.scope(new Map()).lookup(run);
    expect(cached).toBeDefined();
    expect(before).toMatchObject(cached ?? {});
    // One transition's write is kept into the batch, then the batch's transaction rolls back.
    const staged = new Map();
    cache.begin();
    expect(() =>
      h.db.transaction(() => {
        cache
          .scope(staged)
          .write(run, { ...before, wait_reason: "phantom" }, () =>
            h.db.prepare("UPDATE workflow_run_summaries SET wait_reason = 'phantom' WHERE id = ?").run(run),
          );
        cache.keep(staged);
        throw new Error("rolled back");
      })(),
    ).toThrow("rolled back");
    cache.end(false);
    cache.begin();
    expect(stored(run).wait_reason).toBe(before.wait_reason);
    expect(cache.scope(new Map()).lookup(run)?.wait_reason ?? stored(run).wait_reason).toBe(before.wait_reason);
    cache.end(true);
    h.engine.signalWorkflow({ namespace: "default", workflow_id: "sc-3", signal_name: "go" });
    expectProjected(run);
  });

  it("starts over when another connection commits", () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sc-4",
      workflow_type: "chain",
      task_queue: "default",
    }).run_id as string;
    const other = new Database(h.db.name);
    try {
      // A column no later refresh changes: only a cache that re-reads the row puts it right.
      other.prepare("UPDATE workflow_run_summaries SET workflow_type = 'edited elsewhere' WHERE id = ?").run(run);
    } finally {
      other.close();
    }
    h.engine.signalWorkflow({ namespace: "default", workflow_id: "sc-4", signal_name: "go" });
    expect(stored(run).workflow_type).toBe("chain");
    expectProjected(run);
  });
});
