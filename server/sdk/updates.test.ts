import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { decodePayload, encodePayload } from "../codec/codec";
import {
  currentRun,
  eventually,
  historyOf,
  startTestServer,
  TEST_OPERATOR_TOKEN,
  TEST_WORKER_TOKEN,
} from "../test-support/test-server";
import type { TestServer } from "../test-support/test-server";
import { defineActivity, NonRetryableError } from "./activity";
import { replayState } from "./replay";
import type { HistoryEvent } from "./protocol";
import { Worker } from "./worker";
import { defineWorkflow } from "./workflow";

/**
 * Update handlers in the TypeScript worker SDK against the embedded server over real HTTP and a
 * real SQLite file: the control plane accepts the update, the worker runs the handler on the task
 * carrying `workflow_update_id` and answers `complete_update` / `fail_update`; later replays apply
 * the completed update again where history recorded it.
 */

let server: TestServer;
const workers: Worker[] = [];
const errors: string[] = [];

beforeEach(async () => {
  server = await startTestServer(new FakeClock());
  errors.length = 0;
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown({ abortPolls: true })));
  await server.close();
});

class InsufficientFunds extends NonRetryableError {}

const settled: number[] = [];
const settle = defineActivity("Settle", async (_ctx, balance) => {
  settled.push(Number(balance));
  return "settled";
});
const open = defineActivity("OpenAccount", async () => "opened");

const account = defineWorkflow(
  "Account",
  function* (ctx, opening) {
    let balance = Number(opening);
    ctx.setQueryHandler("balance", () => balance);
    ctx.setUpdateHandler("deposit", (amount) => (balance += Number(amount)));
    ctx.setUpdateHandler("withdraw", (amount) => {
      if (Number(amount) > balance) throw new InsufficientFunds(`cannot withdraw ${String(amount)} from ${balance}`);
      return (balance -= Number(amount));
    });
    ctx.setUpdateHandler("audit", () => {
      throw new Error("auditor unreachable");
    });
    yield ctx.activity("OpenAccount", []);
    yield* ctx.waitForSignal("close");
    yield ctx.activity("Settle", [balance]);
    return balance;
  },
  { contract: { queries: ["balance"], signals: ["close"], updates: ["audit", "deposit", "withdraw"] } },
);

async function startWorker(): Promise<Worker> {
  const w = new Worker({
    baseUrl: server.baseUrl,
    token: TEST_WORKER_TOKEN,
    taskQueue: "default",
    workflows: [account],
    activities: [open, settle],
    onError: (e, where) => errors.push(`${where}: ${e instanceof Error ? e.message : String(e)}`),
  });
  workers.push(w);
  await w.start();
  return w;
}

async function controlPlane(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${server.baseUrl}/api/workflows/${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      "Content-Type": "application/json",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const update = (id: string, name: string, args: unknown[]) =>
  controlPlane(`${id}/update/${name}`, { input: encodePayload(args), wait_for: "completed" });

function startAccount(id: string, opening: number) {
  return server.engine.startWorkflow({
    namespace: "default",
    workflow_id: id,
    workflow_type: "Account",
    task_queue: "default",
    input: encodePayload([opening]),
  });
}

const eventsOf = (id: string) => historyOf(server.db, currentRun(server.db, id)?.id ?? "");

describe("update handlers in the TypeScript worker", () => {
  it("completes an update, fails one non-retryably and one retryably, and replays the applied one into later decisions", async () => {
    const worker = await startWorker();
    const runId = startAccount("acct-1", 10).run_id ?? "";
    await eventually(() => eventsOf("acct-1").some((e) => e.event_type === "SignalWaitOpened"), "waiting to close");

    const deposit = await update("acct-1", "deposit", [5]);
    expect(deposit).toMatchObject({ status: 200, body: { update_status: "completed", result: 15 } });
    expect(decodePayload(deposit.body.result_envelope)).toBe(15);

    const withdraw = await update("acct-1", "withdraw", [100]);
    expect(withdraw).toMatchObject({
      status: 422,
      body: { update_status: "failed", failure_message: "cannot withdraw 100 from 15" },
    });
    const audit = await update("acct-1", "audit", []);
    expect(audit).toMatchObject({
      status: 422,
      body: { update_status: "failed", failure_message: "auditor unreachable" },
    });

    // The marker follows the error: NonRetryableError is permanent, a plain Error is not.
    const completedEvents = eventsOf("acct-1").filter((e) => e.event_type === "UpdateCompleted");
    expect(completedEvents.map((e) => [e.payload.update_name, e.payload.non_retryable ?? null])).toEqual([
      ["deposit", null],
      ["withdraw", true],
      ["audit", false],
    ]);
    expect(completedEvents[1]?.payload).toMatchObject({ exception_type: "InsufficientFunds" });
    expect(eventsOf("acct-1").filter((e) => e.event_type === "UpdateApplied")).toHaveLength(1);

    // A query replays the applied deposit and not the failed withdrawal.
    const balance = await controlPlane(`acct-1/runs/${runId}/query/balance`, {});
    expect(balance).toMatchObject({ status: 200, body: { result: 15 } });

    // So does the workflow task the signal readies: the settlement sees 15.
    expect((await controlPlane("acct-1/signal/close", {})).status).toBe(202);
    await eventually(() => currentRun(server.db, "acct-1")?.status === "completed", "account closed");
    expect(settled).toContain(15);
    expect(worker.stats).toMatchObject({ updatesCompleted: 1, updatesFailed: 2 });
    expect(errors).toEqual([]);
  });

  it("refuses an update the workflow does not declare before any worker runs it", async () => {
    await startWorker();
    startAccount("acct-2", 1);
    await eventually(() => eventsOf("acct-2").some((e) => e.event_type === "SignalWaitOpened"), "waiting to close");
    const r = await update("acct-2", "freeze", []);
    expect(r).toMatchObject({ status: 404, body: { reason: "unknown_update" } });
    const started = eventsOf("acct-2").find((e) => e.event_type === "WorkflowStarted");
    expect(started?.payload.declared_updates).toEqual(["audit", "deposit", "withdraw"]);
  });
});

describe("updates a workflow without a contract receives", () => {
  it("fails an update with no handler, and one whose handler returns a promise, both non-retryably", async () => {
    const loose = defineWorkflow("Loose", function* (ctx) {
      ctx.setUpdateHandler("later", () => Promise.resolve(1));
      yield* ctx.waitForSignal("go");
    });
    const w = new Worker({
      baseUrl: server.baseUrl,
      token: TEST_WORKER_TOKEN,
      taskQueue: "default",
      workflows: [loose],
      onError: (e, where) => errors.push(`${where}: ${e instanceof Error ? e.message : String(e)}`),
    });
    workers.push(w);
    await w.start();
    server.engine.startWorkflow({
      namespace: "default",
      workflow_id: "loose-1",
      workflow_type: "Loose",
      task_queue: "default",
      input: encodePayload([]),
    });
    await eventually(() => eventsOf("loose-1").some((e) => e.event_type === "SignalWaitOpened"), "waiting for go");
    expect(await update("loose-1", "nope", [])).toMatchObject({
      status: 422,
      body: { update_status: "failed", failure_message: "unknown update 'nope'" },
    });
    expect(await update("loose-1", "later", [])).toMatchObject({ status: 422, body: { update_status: "failed" } });
    const closed = eventsOf("loose-1").filter((e) => e.event_type === "UpdateCompleted");
    expect(closed.map((e) => [e.payload.exception_type, e.payload.non_retryable])).toEqual([
      ["UnknownUpdate", true],
      ["InvalidUpdate", true],
    ]);
    expect(errors).toEqual([]);
  });
});

describe("replaying applied updates", () => {
  const info = { workflowId: "w", runId: "r", workflowType: "Account", taskQueue: null };
  const ev = (event_type: string, payload: Record<string, unknown>): HistoryEvent => ({ event_type, payload });
  const applied = (name: string, args: unknown[]) =>
    ev("UpdateApplied", { update_name: name, arguments: encodePayload(args).blob, payload_codec: "avro" });

  it("applies an update before the outcome history decided after it, and not before one decided earlier", () => {
    const seen: number[] = [];
    const wf = defineWorkflow("Seq", function* (ctx) {
      let n = 0;
      ctx.setUpdateHandler("add", (x) => (n += Number(x)));
      yield ctx.sleep(1);
      seen.push(n);
      yield ctx.sleep(1);
      seen.push(n);
    });
    const history = [
      ev("TimerScheduled", { timer_id: "t1", sequence: 1 }),
      ev("TimerFired", { timer_id: "t1", sequence: 1 }),
      ev("TimerScheduled", { timer_id: "t2", sequence: 2 }),
      applied("add", [4]),
      ev("TimerFired", { timer_id: "t2", sequence: 2 }),
    ];
    replayState({ definition: wf, args: [], history, info });
    expect(seen).toEqual([0, 4]);
  });

  it("treats a handler missing on replay as non-determinism, not as a fresh failure", () => {
    const wf = defineWorkflow("NoHandler", function* (ctx) {
      yield ctx.sleep(1);
    });
    const history = [ev("TimerScheduled", { timer_id: "t1", sequence: 1 }), applied("add", [1])];
    expect(() => replayState({ definition: wf, args: [], history, info })).toThrow(/no handler for/);
  });
});
