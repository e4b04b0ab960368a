import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../http/test-support";
import { historyOf, ScriptedWorker, startHarness } from "../http/test-support";

// Where the embedded server and the real one disagreed (issue 39), over real HTTP and SQLite: each
// expectation names the PHP it follows.

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe("what the real engine sends and writes", () => {
  it("never sends a task without a payload codec: a run and an activity without arguments get the default", async () => {
    h = await startHarness();
    const worker = new ScriptedWorker(h.url);
    expect((await worker.register()).status).toBe(201);
    const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "bare.wf", task_queue: "default" });
    const task = await worker.mustPollWorkflow();
    // DefaultWorkflowTaskBridge.php@8dc90d64: `$run->payload_codec ?? CodecRegistry::defaultCodec()`.
    expect(task.payload_codec).toBe("avro");
    await worker.completeWorkflow(task, [{ type: "schedule_activity", activity_type: "bare.activity" }]);
    const activity = await worker.mustPollActivity();
    // DefaultActivityTaskBridge.php@8dc90d64: execution codec ?? run codec ?? default.
    expect(activity.payload_codec).toBe("avro");
    const started = historyOf(h.db, start.run_id as string).find((e) => e.event_type === "ActivityStarted");
    // ActivitySnapshot.php@8dc90d64 drops a null execution_mode; only "local" is ever written.
    expect(started?.payload.activity).not.toHaveProperty("execution_mode");
    expect(started?.payload.activity).toMatchObject({ local_activity: false });
  });

  it("a retry policy without backoff_seconds snapshots [] like ActivityRetryPolicy::fromCommand", async () => {
    h = await startHarness();
    const worker = new ScriptedWorker(h.url);
    await worker.register();
    h.engine.startWorkflow({ namespace: "default", workflow_type: "retry.wf", task_queue: "default" });
    const task = await worker.mustPollWorkflow();
    await worker.completeWorkflow(task, [
      { type: "schedule_activity", activity_type: "retry.activity", retry_policy: { max_attempts: 3 } },
    ]);
    const activity = await worker.mustPollActivity();
    expect(activity.retry_policy).toMatchObject({ max_attempts: 3, backoff_seconds: [] });
  });

  it("registers every runtime the real server accepts, and the Rust SDK's", async () => {
    h = await startHarness();
    for (const runtime of ["php", "python", "typescript", "go", "java", "rust"]) {
      const w = new ScriptedWorker(h.url, `w-${runtime}`);
      const r = await w.post("/register", { worker_id: w.workerId, task_queue: "default", runtime });
      expect([runtime, r.status]).toEqual([runtime, 201]);
    }
  });
});
