import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ScriptedWorker, tokenAuth } from "../test-support";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness } from "./test-support";

/**
 * The worker roster over real HTTP and SQLite with the fake clock, held to durable-workflow/server
 * WorkerManagementController.php after @c6de4c3 (`workerSummary`, `workerMatchesStatus`, `destroy`) and the
 * heartbeat fields sdk-python sends (client.py `heartbeat_worker`, worker.py `_current_task_slots`).
 */

const TOKENS = { DW_ADMIN_TOKEN: "a-tok", DW_OPERATOR_TOKEN: "o-tok", DW_WORKER_TOKEN: "w-tok" };
const admin = { token: "a-tok" };
const operator = { token: "o-tok" };

let h: CpHarness;

beforeEach(async () => {
  h = await startCpHarness({ auth: tokenAuth(TOKENS) });
});
afterEach(async () => h.close());

function worker(id: string, queue = "fleet-q"): ScriptedWorker {
  return new ScriptedWorker(h.url, id, queue, "w-tok");
}

describe("the worker roster", () => {
  test("registration and heartbeats report task slots, process metrics and cadence; the roster shows them", async () => {
    const w = worker("slots-worker");
    const registered = await w.post("/register", {
      worker_id: "slots-worker",
      task_queue: "fleet-q",
      runtime: "python",
      sdk_version: "2.12.0",
      build_id: "build-7",
      capabilities: ["workflow_tasks", "activity_tasks"],
      workflow_definition_fingerprints: { "orders.process": "sha256:ab12" },
      max_concurrent_workflow_tasks: 4,
      max_concurrent_activity_tasks: 8,
      max_concurrent_worker_sessions: 2,
      task_slots: { workflow_available: 4, activity_available: 8, session_available: 2 },
      process_metrics: { process_id: 4242, process_uptime_seconds: 0, host: "node-a" },
    });
    expect(registered.status).toBe(201);
    h.clock.advance(10_000);
    // A free-slot count above the capacity is clamped to it; what the heartbeat omits is kept.
    const beat = await w.post("/heartbeat", {
      worker_id: "slots-worker",
      task_slots: { workflow_available: 1, activity_available: 99 },
      process_metrics: { cpu_percent: 12.5, memory_bytes: 52_428_800, process_uptime_seconds: 10, host: "node-a" },
      heartbeat_interval_seconds: 30,
    });
    expect(beat.status).toBe(200);

    const one = await cp(h.url, "/workers/slots-worker", operator);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      worker_id: "slots-worker",
      runtime: "python",
      sdk_version: "2.12.0",
      build_id: "build-7",
      capabilities: ["workflow_tasks", "activity_tasks"],
      workflow_definition_fingerprints: { "orders.process": "sha256:ab12" },
      max_concurrent_worker_sessions: 2,
      task_slots: {
        workflow_available: 1,
        activity_available: 8,
        session_available: 2,
        workflow_capacity: 4,
        activity_capacity: 8,
        session_capacity: 2,
      },
      process_metrics: { cpu_percent: 12.5, memory_bytes: 52_428_800, process_uptime_seconds: 10, host: "node-a" },
      heartbeat_interval_seconds: 30,
      status: "active",
      stale_after_seconds: 60,
    });
    expect(typeof one.body.updated_at).toBe("string");

    const roster = await cp(h.url, "/workers", operator);
    expect(roster.body.stale_after_seconds).toBe(60);
    expect(list(roster.body.workers)[0]?.task_slots).toMatchObject({ workflow_available: 1, activity_capacity: 8 });
  });

  test("a negative slot count or metric is refused as the real validation does", async () => {
    const w = worker("bad-worker");
    await w.register();
    const refused = await w.post("/heartbeat", { worker_id: "bad-worker", task_slots: { workflow_available: -1 } });
    expect(refused.status).toBe(422);
    const metrics = await w.post("/heartbeat", { worker_id: "bad-worker", process_metrics: { memory_bytes: -5 } });
    expect(metrics.status).toBe(422);
  });

  test("the default roster leaves stale workers out; status=stale lists only them, newest heartbeat first", async () => {
    const old = worker("old-worker");
    await old.register();
    h.clock.advance(30_000);
    const live = worker("live-worker");
    await live.register();
    h.clock.advance(31_000); // old: 61 s since its heartbeat (stale), live: 31 s
    const ids = async (query: string) =>
      list((await cp(h.url, `/workers${query}`, operator)).body.workers).map((w) => String(w.worker_id));
    expect(await ids("")).toEqual(["live-worker"]);
    expect(await ids("?status=stale")).toEqual(["old-worker"]);
    expect(await ids("?status=active")).toEqual(["live-worker"]);
    expect(await ids("?status=%20STALE%20")).toEqual(["old-worker"]);
    expect((await cp(h.url, "/workers/old-worker", operator)).body.status).toBe("stale");
    // A heartbeat brings it back into the live roster.
    await old.post("/heartbeat", { worker_id: "old-worker" });
    expect(await ids("")).toEqual(["old-worker", "live-worker"]);
  });

  test("an admin removes a worker: its leased workflow task is ready again; operators are refused; unknown ids 404", async () => {
    const w = worker("dead-worker");
    await w.register();
    await cp(h.url, "/workflows", {
      ...operator,
      body: { workflow_id: "lease-1", workflow_type: "orders.process", task_queue: "fleet-q" },
    });
    await w.mustPollWorkflow();

    const refused = await cp(h.url, "/workers/dead-worker", { ...operator, method: "DELETE" });
    expect(refused.status).toBe(403);
    expect((await cp(h.url, "/workers/dead-worker", operator)).status).toBe(200);

    const removed = await cp(h.url, "/workers/dead-worker", { ...admin, method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      worker_id: "dead-worker",
      outcome: "deregistered",
      recovered_workflow_task_count: 1,
    });
    const gone = await cp(h.url, "/workers/dead-worker", operator);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({
      reason: "worker_not_found",
      message: "Worker [dead-worker] not found in namespace [default].",
    });
    const again = await cp(h.url, "/workers/dead-worker", { ...admin, method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body.reason).toBe("worker_not_found");
    // The task the removed worker leased is handed to the next poller at once.
    const next = worker("next-worker");
    await next.register();
    const task = await next.mustPollWorkflow();
    expect(task.workflow_id).toBe("lease-1");
  });
});
