import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { blob, ScriptedWorker, tokenAuth, typesOf } from "../test-support";
import type { HttpResult } from "../test-support";
import type { CpHarness, CpResponse } from "./test-support";
import { cp, startCpHarness, wf } from "./test-support";

/**
 * Workflow queries over real HTTP and a real SQLite file, with the fake clock deciding the
 * timeout. The rules are the real server's (durable-workflow/server@11d35b7
 * app/Support/WorkflowQueryTaskBroker.php, WorkflowController::query/queryRun,
 * WorkerController::pollQueryTasks/completeQueryTask/failQueryTask; workflow@8dc90d64
 * DefaultWorkflowControlPlane::query for the no-worker path).
 */

interface QueryTaskWire {
  query_task_id: string;
  query_task_attempt: number;
  workflow_id: string;
  run_id: string;
  query_name: string;
  lease_owner: string;
  lease_expires_at: string;
  query_deadline_at: string;
  query_arguments: { codec: string | null; blob: string | null };
  history_events: { event_type: string }[];
  [key: string]: unknown;
}

let h: CpHarness;
let worker: ScriptedWorker;

async function start(id: string, type = "orders.queryable"): Promise<string> {
  const r = await cp(h.url, "/workflows", { body: { workflow_id: id, workflow_type: type, input: ["Ada"] } });
  expect(r.status).toBe(201);
  return r.body.run_id as unknown as string;
}

/** Resolves once a query task is enqueued on the default queue (subscribed before the query is sent). */
function nextEnqueue(): Promise<void> {
  return h.engine.queryTasks.pendingWaiter("default", "default", 10_000, new AbortController().signal).ready;
}

async function pollQuery(w: ScriptedWorker = worker): Promise<QueryTaskWire | null> {
  const r = await w.post("/query-tasks/poll", { worker_id: w.workerId, task_queue: w.queue, timeout_seconds: 0 });
  expect(r.status).toBe(200);
  return (r.body.task as QueryTaskWire | null) ?? null;
}

/** Sends the query, waits until it is a task, and claims it. */
async function sendAndClaim(path: string, body: unknown = {}): Promise<[Promise<CpResponse>, QueryTaskWire]> {
  const enqueued = nextEnqueue();
  const answer = cp(h.url, path, { body });
  await enqueued;
  const task = await pollQuery();
  if (!task) throw new Error("expected a query task");
  return [answer, task];
}

function complete(task: QueryTaskWire, result: unknown): Promise<HttpResult> {
  return worker.post(`/query-tasks/${task.query_task_id}/complete`, {
    lease_owner: task.lease_owner,
    query_task_attempt: task.query_task_attempt,
    result,
    result_envelope: blob(result),
  });
}

function fail(task: QueryTaskWire, failure: Record<string, unknown>): Promise<HttpResult> {
  return worker.post(`/query-tasks/${task.query_task_id}/fail`, {
    lease_owner: task.lease_owner,
    query_task_attempt: task.query_task_attempt,
    failure,
  });
}

function workflowTasks(runId: string): { status: string; attempt_count: number }[] {
  return h.db
    .prepare("SELECT status, attempt_count FROM workflow_tasks WHERE workflow_run_id = ? ORDER BY created_at")
    .all(runId) as { status: string; attempt_count: number }[];
}

describe("workflow queries routed to a polling worker", () => {
  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "query-worker");
    await worker.register();
  });
  afterEach(async () => h.close());

  test("a query is leased to the worker and its result answers the caller; history and workflow tasks are untouched", async () => {
    const runId = await start("q-answered");
    const historyBefore = typesOf(h.db, runId);
    const tasksBefore = workflowTasks(runId);

    const [answer, task] = await sendAndClaim(`/workflows/${wf("q-answered")}/query/status`, { input: ["summary"] });
    expect(task).toMatchObject({
      workflow_id: "q-answered",
      run_id: runId,
      query_name: "status",
      lease_owner: "query-worker",
    });
    expect(task.query_task_attempt).toBe(1);
    expect(task.query_arguments.codec).toBe("avro");
    expect(task.history_events.map((e) => e.event_type)).toContain("WorkflowStarted");
    // The lease never outlives the caller's deadline (sdk-python 2.12.0 refuses such a claim).
    expect(Date.parse(task.lease_expires_at)).toBeLessThanOrEqual(Date.parse(task.query_deadline_at));

    const done = await complete(task, { stage: "packing" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ query_task_id: task.query_task_id, outcome: "completed" });
    expect(done.body).not.toHaveProperty("reason");

    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      workflow_id: "q-answered",
      run_id: runId,
      target_scope: "instance",
      query_name: "status",
      result: { stage: "packing" },
      result_envelope: blob({ stage: "packing" }),
      reason: null,
      control_plane: { operation: "query", operation_name: "status", operation_name_field: "query_name" },
    });
    expect(r.body).not.toHaveProperty("success");
    expect(r.body).not.toHaveProperty("status");

    expect(typesOf(h.db, runId)).toEqual(historyBefore);
    expect(workflowTasks(runId)).toEqual(tasksBefore);
    // The workflow task the start created is still there for the worker, unleased by the query.
    const wt = await worker.pollWorkflow();
    expect(wt?.run_id).toBe(runId);
  });

  test("a handler failure is 409 with the worker's reason and message; an unknown query name is 404", async () => {
    await start("q-fails");
    const [failing, task] = await sendAndClaim(`/workflows/${wf("q-fails")}/query/status`);
    const f = await fail(task, { message: "status is not ready", reason: "query_rejected", type: "ValueError" });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ outcome: "failed", reason: "query_rejected" });
    const r = await failing;
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ reason: "query_rejected", message: "status is not ready", result: null });

    const [unknown, task2] = await sendAndClaim(`/workflows/${wf("q-fails")}/query/nope`);
    await fail(task2, { message: "unknown query 'nope'", reason: "rejected_unknown_query" });
    const u = await unknown;
    expect(u.status).toBe(404);
    expect(u.body).toMatchObject({ reason: "rejected_unknown_query", query_name: "nope" });
  });

  test("no answer by the deadline is 504 query_worker_timeout; the task is gone and a late answer is refused", async () => {
    await start("q-timeout");
    const enqueued = nextEnqueue();
    const answer = cp(h.url, `/workflows/${wf("q-timeout")}/query/status`, { body: {} });
    await enqueued;
    // The task queue reports the waiting query in its admission, as the real `queueAdmission` does.
    const queue = await cp(h.url, "/task-queues/default");
    expect(queue.body.admission?.query_tasks).toMatchObject({
      approximate_pending_count: 1,
      max_pending_per_queue: 1024,
      status: "accepting",
    });
    h.advance(29);
    const claimed = await pollQuery();
    expect(claimed).not.toBeNull();
    h.advance(1);
    const r = await answer;
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({
      workflow_id: "q-timeout",
      query_name: "status",
      reason: "query_worker_timeout",
      message: "Timed out waiting for a worker to execute the workflow query.",
      control_plane: { operation: "query", operation_name: "status" },
    });
    expect(await pollQuery()).toBeNull();
    const late = await complete(claimed as QueryTaskWire, "too late");
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ outcome: "rejected", reason: "query_task_not_leased" });
  });

  test("the claim observation says can_continue while leased and not after the deadline", async () => {
    await start("q-status");
    const [answer, task] = await sendAndClaim(`/workflows/${wf("q-status")}/query/status`);
    const statusOf = async () => {
      const res = await fetch(
        `${h.url}/api/worker/query-tasks/${task.query_task_id}/status?lease_owner=query-worker&query_task_attempt=1`,
        { headers: { "x-durable-workflow-protocol-version": "1.20" } },
      );
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const live = await statusOf();
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({
      query_task_id: task.query_task_id,
      query_task_attempt: 1,
      lease_owner: "query-worker",
      query_task_status: "leased",
      can_continue: true,
      reason: null,
      lease_expires_at: task.lease_expires_at,
      query_deadline_at: task.query_deadline_at,
    });
    h.advance(30);
    expect((await answer).status).toBe(504);
    const after = await statusOf();
    expect(after.body).toMatchObject({
      can_continue: false,
      reason: "query_task_not_leased",
      query_task_status: "timed_out",
    });
  });

  test("a closed run is still queried through its worker, as the real broker never checks run status", async () => {
    const runId = await start("q-closed");
    const t = await cp(h.url, `/workflows/${wf("q-closed")}/terminate`, { body: { reason: "done" } });
    expect(t.status).toBe(200);
    const [answer, task] = await sendAndClaim(`/workflows/${wf("q-closed")}/query/status`);
    expect(task.run_status).toBe("terminated");
    expect(task.history_events.map((e) => e.event_type)).toContain("WorkflowTerminated");
    await complete(task, "final");
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ run_id: runId, result: "final" });
  });

  test("run-targeted: the current run is queried; another or unknown run is 409; an unknown workflow is 404", async () => {
    const runId = await start("q-run");
    const [answer, task] = await sendAndClaim(`/workflows/${wf("q-run")}/runs/${runId}/query/status`);
    expect(task.run_id).toBe(runId);
    await complete(task, 1);
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ run_id: runId, result: 1, control_plane: { operation: "query" } });

    const other = await cp(h.url, `/workflows/${wf("q-run")}/runs/01UNKNOWNRUN/query/status`, { body: {} });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ reason: "historical_run_command_rejected", target_scope: "run" });

    const missing = await cp(h.url, `/workflows/${wf("no-such-workflow")}/query/status`, { body: {} });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: "instance_not_found", control_plane: { operation: "query" } });
  });

  test("cluster/info and every worker answer advertise query tasks and their claim observation", async () => {
    const info = await cp(h.url, "/cluster/info");
    expect(info.body.capabilities).toMatchObject({ queries: true });
    expect(info.body.worker_protocol).toMatchObject({
      server_capabilities: { query_tasks: true, query_task_authority: true },
    });
    expect(info.body.control_plane).toMatchObject({
      response_contract: { operations: { query: { success_fields: ["result"] } } },
    });
  });
});

/** The real-shape answer (lib/dw/fixtures/queries.md), read as data: the console's code is not imported. */
function realShape(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url), "utf8")) as unknown;
}

/** Keys and JSON types, recursively; a query's `result` is whatever the handler returned, so only its presence counts. */
function shapeOf(v: unknown, key = ""): unknown {
  if (key === "result" && v !== null) return "result";
  if (Array.isArray(v)) return v.map((x) => shapeOf(x));
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x, k)]),
    );
  return v === null ? null : typeof v;
}

describe("answers in the real server's shapes", () => {
  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "query-worker");
    await worker.register();
  });
  afterEach(async () => h.close());

  test("answered, failed, unknown name and timed out carry the real answers' keys and types", async () => {
    await start("q-shapes");
    const path = (name: string) => `/workflows/${wf("q-shapes")}/query/${name}`;
    const [answered, t1] = await sendAndClaim(path("status"));
    await complete(t1, { stage: "charging", attempt: 2 });
    const [failedQ, t2] = await sendAndClaim(path("status"));
    await fail(t2, { message: "charge ledger is not loaded", reason: "query_rejected" });
    const [unknown, t3] = await sendAndClaim(path("nope"));
    await fail(t3, { message: "unknown query 'nope'", reason: "rejected_unknown_query" });
    const enqueued = nextEnqueue();
    const timedOut = cp(h.url, path("status"), { body: {} });
    await enqueued;
    h.advance(30);
    for (const [answer, name, status] of [
      [answered, "query-answered", 200],
      [failedQ, "query-failed", 409],
      [unknown, "query-unknown-name", 404],
      [timedOut, "query-worker-timeout", 504],
    ] as const) {
      const r = await answer;
      expect(r.status, name).toBe(status);
      expect(shapeOf(r.body), name).toEqual(shapeOf(realShape(name)));
    }
  });
});

describe("workflow queries without a worker", () => {
  beforeEach(async () => {
    h = await startCpHarness();
  });
  afterEach(async () => h.close());

  test("an undeclared query is 404 query_not_found; a declared one is 409 workflow_definition_unavailable", async () => {
    const contracts = {
      "orders.declared": {
        queries: ["status"],
        query_contracts: [],
        signals: [],
        signal_contracts: [],
        updates: [],
        update_contracts: [],
      },
    };
    const declaring = new ScriptedWorker(h.url, "declaring-worker");
    const reg = await declaring.post("/register", {
      worker_id: "declaring-worker",
      task_queue: "default",
      runtime: "python",
      supported_workflow_types: ["orders.declared"],
      workflow_command_contracts: contracts,
    });
    expect(reg.status).toBe(201);
    const runId = await start("q-declared", "orders.declared");
    // The worker stops heartbeating: past the 60 s staleness bound no worker takes its queries.
    h.advance(61);

    const undeclared = await cp(h.url, `/workflows/${wf("q-declared")}/query/other`, { body: {} });
    expect(undeclared.status).toBe(404);
    expect(undeclared.body).toMatchObject({
      reason: "query_not_found",
      message: "Workflow query [other] is not declared on workflow [q-declared].",
      run_id: runId,
    });

    const declared = await cp(h.url, `/workflows/${wf("q-declared")}/query/status`, { body: {} });
    expect(declared.status).toBe(409);
    expect(declared.body).toMatchObject({
      reason: "workflow_definition_unavailable",
      blocked_reason: "workflow_definition_unavailable",
    });
  });
});

describe("who may query", () => {
  test("operators and admins query; a worker token is refused 403 like every workflow route", async () => {
    h = await startCpHarness({
      auth: tokenAuth({ DW_WORKER_TOKEN: "w-token", DW_OPERATOR_TOKEN: "o-token", DW_ADMIN_TOKEN: "a-token" }),
    });
    try {
      const r = await cp(h.url, "/workflows", {
        token: "o-token",
        body: { workflow_id: "q-auth", workflow_type: "orders.queryable" },
      });
      expect(r.status).toBe(201);
      const asWorker = await cp(h.url, `/workflows/q-auth/query/status`, { token: "w-token", body: {} });
      expect(asWorker.status).toBe(403);
      // No worker is registered, so an operator's query reaches the no-worker answer.
      const asOperator = await cp(h.url, `/workflows/q-auth/query/status`, { token: "o-token", body: {} });
      expect(asOperator.status).toBe(404);
      expect(asOperator.body).toMatchObject({ reason: "query_not_found" });
      expect(shapeOf(asOperator.body)).toEqual(shapeOf(realShape("query-not-found")));
    } finally {
      await h.close();
    }
  });
});
