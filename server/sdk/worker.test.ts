import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { defineActivity, NonRetryableError } from "./activity";
import { decodePayload, encodePayload } from "../codec/codec";
import { replayWorkflow } from "./replay";
import {
  currentRun,
  eventually,
  historyOf,
  startTestServer,
  TEST_OPERATOR_TOKEN,
  TEST_WORKER_TOKEN,
} from "../test-support/test-server";
import type { TestServer } from "../test-support/test-server";
import { Worker } from "./worker";
import type { WorkerOptions } from "./worker";
import { ActivityFailure, defineWorkflow } from "./workflow";
import { at } from "../invariant";

let server: TestServer;
let clock: FakeClock;
const workers: Worker[] = [];
const errors: string[] = [];

beforeEach(async () => {
  clock = new FakeClock();
  server = await startTestServer(clock);
  errors.length = 0;
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown({ abortPolls: true })));
  await server.close();
});

async function startWorker(opts: Partial<WorkerOptions>): Promise<Worker> {
  const w = new Worker({
    baseUrl: server.baseUrl,
    token: TEST_WORKER_TOKEN,
    taskQueue: "default",
    onError: (e, where) => errors.push(`${where}: ${e instanceof Error ? e.message : String(e)}`),
    ...opts,
  });
  workers.push(w);
  await w.start();
  return w;
}

function start(
  workflowType: string,
  workflowId: string,
  args: unknown[],
  extra: { execution_timeout_seconds?: number } = {},
) {
  return server.engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: workflowType,
    task_queue: "default",
    input: encodePayload(args),
    ...extra,
  });
}

const eventsOf = (workflowId: string) =>
  historyOf(server.db, currentRun(server.db, workflowId)?.id ?? "").map((e) => e.event_type);

/** Moves the fake clock and runs the engine sweep, as the server's background loop would. */
function advance(seconds: number): void {
  clock.advance(seconds * 1000);
  server.engine.sweep();
}

describe("worker over HTTP against the embedded server", () => {
  it("retries a transient activity failure with the backoff, then succeeds with a stable idempotency key", async () => {
    const keys: string[] = [];
    const charge = defineActivity(
      "ChargeCard",
      async (ctx, amount) => {
        keys.push(ctx.idempotencyKey);
        if (ctx.attempt < 3) throw new Error(`gateway timeout on attempt ${ctx.attempt}`);
        return { charged: amount, attempt: ctx.attempt };
      },
      { tries: 3, backoff: [5, 30] },
    );
    const wf = defineWorkflow("Checkout", function* (ctx, amount) {
      return yield* ctx.activity("ChargeCard", [amount]);
    });
    await startWorker({ workflows: [wf], activities: [charge] });
    start("Checkout", "checkout-1", [1200]);

    await eventually(() => eventsOf("checkout-1").includes("ActivityRetryScheduled"), "first retry");
    advance(4);
    expect(eventsOf("checkout-1").filter((e) => e === "ActivityStarted")).toHaveLength(1);
    advance(1);
    await eventually(
      () => eventsOf("checkout-1").filter((e) => e === "ActivityRetryScheduled").length === 2,
      "second retry",
    );
    advance(30);
    const run = await eventually(() => {
      const r = currentRun(server.db, "checkout-1");
      return r?.status === "completed" ? r : null;
    }, "completion");

    expect(run.output).toEqual({ charged: 1200, attempt: 3 });
    expect(new Set(keys).size).toBe(1);
    expect(keys).toHaveLength(3);
    const history = historyOf(server.db, run.id);
    expect(history.map((e) => e.event_type).filter((t) => t.startsWith("Activity"))).toEqual([
      "ActivityScheduled",
      "ActivityStarted",
      "ActivityRetryScheduled",
      "ActivityStarted",
      "ActivityRetryScheduled",
      "ActivityStarted",
      "ActivityCompleted",
    ]);
    expect(history.find((e) => e.event_type === "ActivityRetryScheduled")?.payload.retry_backoff_seconds).toBe(5);
    expect(errors).toEqual([]);
  });

  it("fails the run at once on a non-retryable activity error, and a caught failure lets the workflow continue", async () => {
    class PaymentDeclined extends NonRetryableError {}
    let attempts = 0;
    const charge = defineActivity(
      "ChargeCard",
      async (_ctx, card) => {
        attempts += 1;
        if (card === "declined") throw new PaymentDeclined("card declined by issuer");
        throw new Error("gateway down");
      },
      { tries: 3, backoff: [1] },
    );
    const strict = defineWorkflow("StrictCheckout", function* (ctx, card) {
      return yield ctx.activity("ChargeCard", [card]);
    });
    const lenient = defineWorkflow("LenientCheckout", function* (ctx, card) {
      try {
        yield ctx.activity("ChargeCard", [card], { tries: 1 });
        return "charged";
      } catch (e) {
        return e instanceof ActivityFailure ? `fallback after ${e.failureType}: ${e.message}` : "unexpected";
      }
    });
    await startWorker({ workflows: [strict, lenient], activities: [charge] });
    start("StrictCheckout", "strict-1", ["declined"]);
    const run = await eventually(() => {
      const r = currentRun(server.db, "strict-1");
      return r?.status === "failed" ? r : null;
    }, "failed run");
    expect(attempts).toBe(1);
    const history = historyOf(server.db, run.id);
    const failed = history.find((e) => e.event_type === "ActivityFailed");
    expect(failed?.payload).toMatchObject({
      non_retryable: true,
      exception_type: "PaymentDeclined",
      failure_category: "activity",
    });
    expect(history.some((e) => e.event_type === "ActivityRetryScheduled")).toBe(false);
    expect(history.find((e) => e.event_type === "WorkflowFailed")?.payload).toMatchObject({
      exception_type: "PaymentDeclined",
      message: "card declined by issuer",
    });

    start("LenientCheckout", "lenient-1", ["broken"]);
    const recovered = await eventually(() => {
      const r = currentRun(server.db, "lenient-1");
      return r?.status === "completed" ? r : null;
    }, "caught failure");
    expect(recovered.output).toBe("fallback after Error: gateway down");
  });

  it("waits for a signal and resumes with its arguments", async () => {
    const wf = defineWorkflow("Approval", function* (ctx, orderId) {
      const decision = yield* ctx.waitForSignal("approve");
      return { orderId, approvedBy: decision?.[0] ?? null };
    });
    await startWorker({ workflows: [wf] });
    start("Approval", "approval-1", ["order-42"]);
    await eventually(() => eventsOf("approval-1").includes("SignalWaitOpened"), "signal wait");
    expect(currentRun(server.db, "approval-1")?.status).toBe("waiting");
    server.engine.signalWorkflow({
      namespace: "default",
      workflow_id: "approval-1",
      signal_name: "approve",
      input: encodePayload(["alice"]),
    });
    const run = await eventually(() => {
      const r = currentRun(server.db, "approval-1");
      return r?.status === "completed" ? r : null;
    }, "approved");
    expect(run.output).toEqual({ orderId: "order-42", approvedBy: "alice" });
  });

  it("keeps a signal sent before the workflow waits for it, and still progresses", async () => {
    let release: () => void = () => undefined;
    let running = false;
    const gate = new Promise<void>((r) => (release = r));
    const prepare = defineActivity("Prepare", async () => {
      running = true;
      await gate;
      return "prepared";
    });
    const wf = defineWorkflow("EarlySignal", function* (ctx) {
      const prepared = yield ctx.activity("Prepare", []);
      const go = yield* ctx.waitForSignal("go");
      return [prepared, go?.[0] ?? null];
    });
    const worker = await startWorker({ workflows: [wf], activities: [prepare] });
    start("EarlySignal", "early-1", []);
    await eventually(() => running, "activity running");
    server.engine.signalWorkflow({
      namespace: "default",
      workflow_id: "early-1",
      signal_name: "go",
      input: encodePayload(["now"]),
    });
    await eventually(() => worker.stats.workflowTasksWithoutProgress === 1, "signal wake-up without progress");
    release();
    await eventually(() => eventsOf("early-1").includes("ActivityCompleted"), "activity completed");
    advance(60);
    const run = await eventually(() => {
      const r = currentRun(server.db, "early-1");
      return r?.status === "completed" ? r : null;
    }, "completion");
    expect(run.output).toEqual(["prepared", "now"]);
    expect(eventsOf("early-1")).not.toContain("SignalWaitOpened");
  });

  it("times a signal wait out when nobody signals", async () => {
    const wf = defineWorkflow("TimedApproval", function* (ctx) {
      const decision = yield* ctx.waitForSignal("approve", 60);
      return decision === null ? "auto-rejected" : "approved";
    });
    await startWorker({ workflows: [wf] });
    start("TimedApproval", "approval-2", []);
    await eventually(() => eventsOf("approval-2").includes("SignalWaitOpened"), "signal wait");
    advance(60);
    const run = await eventually(() => {
      const r = currentRun(server.db, "approval-2");
      return r?.status === "completed" ? r : null;
    }, "timeout");
    expect(run.output).toBe("auto-rejected");
  });

  it("runs a child workflow and returns its result to the parent", async () => {
    const double = defineActivity("Double", async (_ctx, n) => (n as number) * 2);
    const child = defineWorkflow("Child", function* (ctx, n) {
      return yield* ctx.activity<number>("Double", [n]);
    });
    const parent = defineWorkflow("Parent", function* (ctx) {
      const a = yield* ctx.child<number>("Child", [2]);
      const b = yield* ctx.child<number>("Child", [a]);
      return a + b;
    });
    await startWorker({ workflows: [parent, child], activities: [double] });
    start("Parent", "parent-1", []);
    const run = await eventually(() => {
      const r = currentRun(server.db, "parent-1");
      return r?.status === "completed" ? r : null;
    }, "parent completion");
    expect(run.output).toBe(12);
    const history = historyOf(server.db, run.id).map((e) => e.event_type);
    expect(history.filter((t) => t === "ChildRunCompleted")).toHaveLength(2);
  });

  it("continues as new until the chain ends", async () => {
    const page = defineActivity("SyncPage", async (_ctx, round) => round);
    const sync = defineWorkflow("Sync", function* (ctx, round) {
      yield ctx.activity("SyncPage", [round]);
      if ((round as number) < 3) return ctx.continueAsNew([(round as number) + 1]);
      return { rounds: round };
    });
    await startWorker({ workflows: [sync], activities: [page] });
    start("Sync", "sync-1", [1]);
    const run = await eventually(() => {
      const r = currentRun(server.db, "sync-1");
      return r?.status === "completed" && r.run_number === 3 ? r : null;
    }, "third run");
    expect(run.output).toEqual({ rounds: 3 });
    const first = server.db
      .prepare(
        "SELECT status, closed_reason FROM workflow_runs WHERE workflow_instance_id = 'sync-1' AND run_number = 1",
      )
      .get();
    expect(first).toEqual({ status: "completed", closed_reason: "continued" });
  });

  it("replaying a finished run's recorded history reproduces every decision it made", async () => {
    const lookup = defineActivity("Lookup", async (_ctx, sku) => ({ sku, stock: 3 }));
    const reserve = defineActivity("Reserve", async (_ctx, sku, n) => `${String(sku)}x${String(n)}`);
    const wf = defineWorkflow("Restock", function* (ctx, sku) {
      const info = yield* ctx.activity<{ stock: number }>("Lookup", [sku]);
      yield ctx.sleep(30);
      const [a, b] = yield* ctx.all<[string, string]>([
        ctx.activity("Reserve", [sku, info.stock]),
        ctx.activity("Reserve", [sku, 1]),
      ]);
      return { a, b };
    });
    await startWorker({ workflows: [wf], activities: [lookup, reserve] });
    start("Restock", "restock-replay", ["sku-9"]);
    await eventually(() => eventsOf("restock-replay").includes("TimerScheduled"), "timer");
    advance(30);
    // A wake-up by one member of ctx.all makes no progress and is retried after a backoff:
    // keep fake time moving until the run completes.
    const run = await eventually(() => {
      const r = currentRun(server.db, "restock-replay");
      if (r?.status === "completed") return r;
      advance(1);
      return null;
    }, "completion");
    const recorded = (
      server.db
        .prepare(
          "SELECT sequence, event_type, payload FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence",
        )
        .all(run.id) as { sequence: number; event_type: string; payload: string }[]
    ).map((r) => ({
      sequence: r.sequence,
      event_type: r.event_type,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
    }));
    const openings = ["ActivityScheduled", "TimerScheduled"];
    const replay = (upTo: number) =>
      replayWorkflow({
        definition: wf,
        args: ["sku-9"],
        history: recorded.slice(0, upTo),
        info: { workflowId: "restock-replay", runId: run.id, workflowType: "Restock", taskQueue: "default" },
      });
    let checked = 0;
    recorded.forEach((e, i) => {
      // Only the first opening of each workflow task is a decision boundary; the rest came with it.
      if (!openings.includes(e.event_type) || openings.includes(recorded[i - 1]?.event_type ?? "")) return;
      const first = at(replay(i).commands, 0, "command");
      expect(first.type).toBe(e.event_type === "TimerScheduled" ? "start_timer" : "schedule_activity");
      if (first.type === "schedule_activity") expect(first.activity_type).toBe(e.payload.activity_type);
      checked += 1;
    });
    expect(checked).toBe(3);
    const final = at(replay(recorded.length).commands, 0, "command");
    expect(final.type).toBe("complete_workflow");
    if (final.type === "complete_workflow") expect(decodePayload(final.result)).toEqual(run.output);
    expect(run.output).toEqual({ a: "sku-9x3", b: "sku-9x1" });
  });

  it("heartbeats report progress, and a cancelled run tells the activity to stop", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const answers: boolean[] = [];
    let aborted = false;
    const upload = defineActivity("Upload", async (ctx) => {
      answers.push(await ctx.heartbeat({ message: "uploading", current: 1, total: 2, unit: "parts" }));
      await gate;
      answers.push(await ctx.heartbeat({ current: 2, total: 2 }));
      aborted = ctx.signal.aborted;
      return "uploaded";
    });
    const wf = defineWorkflow("UploadFlow", function* (ctx) {
      return yield ctx.activity("Upload", []);
    });
    const worker = await startWorker({ workflows: [wf], activities: [upload] });
    start("UploadFlow", "upload-1", []);
    await eventually(() => answers.length === 1, "first heartbeat");
    const beat = historyOf(server.db, currentRun(server.db, "upload-1")?.id ?? "").find(
      (e) => e.event_type === "ActivityHeartbeatRecorded",
    );
    expect(beat?.payload.progress).toEqual({ message: "uploading", current: 1, total: 2, unit: "parts" });
    server.engine.cancelWorkflow({ namespace: "default", workflow_id: "upload-1", reason: "operator cancelled" });
    release();
    await eventually(() => worker.stats.activitiesCompleted === 1, "activity finished");
    expect(answers).toEqual([true, false]);
    expect(aborted).toBe(true);
    expect(currentRun(server.db, "upload-1")?.status).toBe("cancelled");
    expect(errors).toEqual([]);
  });

  it("registers with its capabilities, heartbeats, and registers again when the server forgot it", async () => {
    const wf = defineWorkflow("Noop", function* () {
      return null;
    });
    const worker = await startWorker({ workflows: [wf], heartbeatIntervalMs: 30, maxConcurrentWorkflowTasks: 3 });
    const row = () =>
      server.db
        .prepare(
          "SELECT runtime, supported_workflow_types, max_concurrent_workflow_tasks, last_heartbeat_at FROM worker_registrations WHERE worker_id = ?",
        )
        .get(worker.workerId) as
        | {
            runtime: string;
            supported_workflow_types: string;
            max_concurrent_workflow_tasks: number;
            last_heartbeat_at: number;
          }
        | undefined;
    expect(row()).toMatchObject({
      runtime: "typescript",
      supported_workflow_types: JSON.stringify(["Noop"]),
      max_concurrent_workflow_tasks: 3,
    });
    const later = clock.advance(60_000);
    await eventually(() => row()?.last_heartbeat_at === later, "heartbeat at the new time");
    server.db.prepare("DELETE FROM worker_registrations WHERE worker_id = ?").run(worker.workerId);
    await eventually(() => row() !== undefined, "re-registration");
    expect(errors).toEqual([]);
  });

  it("finishes in-flight activities on shutdown and stops polling", async () => {
    let release: () => void = () => undefined;
    let running = false;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineActivity("Slow", async () => {
      running = true;
      await gate;
      return "done";
    });
    const wf = defineWorkflow("SlowFlow", function* (ctx) {
      return yield ctx.activity("Slow", []);
    });
    const worker = await startWorker({ workflows: [wf], activities: [slow] });
    start("SlowFlow", "slow-1", []);
    await eventually(() => running, "activity running");
    const stopped = worker.shutdown();
    workers.splice(workers.indexOf(worker), 1);
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    release();
    await stopped;
    expect(eventsOf("slow-1")).toContain("ActivityCompleted");
    expect(worker.stats.activitiesCompleted).toBe(1);
    start("SlowFlow", "slow-2", []);
    await new Promise((r) => setTimeout(r, 200));
    expect(currentRun(server.db, "slow-2")?.status).toBe("pending");
  });

  it("answers queries from the replayed state: a value, a failing handler, an unknown name; history untouched", async () => {
    const wf = defineWorkflow(
      "Queried",
      function* (ctx, who) {
        let stage = `reserving for ${String(who)}`;
        ctx.setQueryHandler("status", () => ({ stage }));
        ctx.setQueryHandler("echo", (a, b) => [b, a]);
        ctx.setQueryHandler("ledger", () => {
          throw new Error("charge ledger is not loaded");
        });
        yield ctx.activity("Reserve", []);
        stage = "waiting for approval";
        yield* ctx.waitForSignal("approve");
        return stage;
      },
      { contract: { queries: ["status", "echo", "ledger"], signals: ["approve"] } },
    );
    const reserve = defineActivity("Reserve", async () => "ok");
    await startWorker({ workflows: [wf], activities: [reserve] });
    const runId = start("Queried", "queried-1", ["Ada"]).run_id ?? "";
    await eventually(() => eventsOf("queried-1").includes("SignalWaitOpened"), "the run waits for approve");
    const before = eventsOf("queried-1");
    const query = async (name: string, input?: unknown[]) => {
      const res = await fetch(`${server.baseUrl}/api/workflows/queried-1/runs/${runId}/query/${name}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
          "Content-Type": "application/json",
          "X-Durable-Workflow-Control-Plane-Version": "2",
        },
        body: JSON.stringify(input === undefined ? {} : { input }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const status = await query("status");
    expect(status).toMatchObject({ status: 200, body: { result: { stage: "waiting for approval" } } });
    expect(decodePayload(status.body.result_envelope)).toEqual({ stage: "waiting for approval" });
    expect(await query("echo", [1, "eu"])).toMatchObject({ status: 200, body: { result: ["eu", 1] } });
    expect(await query("ledger")).toMatchObject({
      status: 409,
      body: { reason: "query_rejected", message: "charge ledger is not loaded" },
    });
    expect(await query("nope")).toMatchObject({ status: 404, body: { reason: "rejected_unknown_query" } });
    // The contract the worker registered reached WorkflowStarted, where the console reads it.
    const started = historyOf(server.db, runId).find((e) => e.event_type === "WorkflowStarted");
    expect(started?.payload.declared_queries).toEqual(["echo", "ledger", "status"]);
    expect(eventsOf("queried-1")).toEqual(before);
    expect(errors).toEqual([]);
  });
});
