import { afterEach, describe, expect, it } from "vitest";
import type { AuthConfig } from "./auth";
import { authorize } from "./auth";
import type { Harness } from "./test-support";
import { blob, ScriptedWorker, startHarness } from "./test-support";

const TOKENS: AuthConfig = {
  driver: "token",
  tokens: { worker: "w-secret", operator: "o-secret", admin: "a-secret", legacy: null },
  backwardCompatible: true,
};

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function expectEnvelope(r: { headers: Headers; body: Record<string, unknown> }): void {
  expect(r.headers.get("x-durable-workflow-protocol-version")).toBe("1.20");
  expect(r.body.protocol_version).toBe("1.20");
  expect(r.body.server_capabilities).toMatchObject({
    long_poll_timeout: 30,
    activity_retry_policy: true,
    non_retryable_failures: true,
    workflow_task_poll_request_idempotency: true,
  });
}

describe("worker plane envelope and guards", () => {
  it("answers success and every error with the protocol envelope and the documented reasons", async () => {
    h = await startHarness();
    const w = new ScriptedWorker(h.url, "w-1", "orders");
    const registered = await w.register();
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ worker_id: "w-1", registered: true });
    expectEnvelope(registered);

    const missing = await w.post("/heartbeat", { worker_id: "w-1" }, { "x-durable-workflow-protocol-version": "" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      reason: "missing_protocol_version",
      supported_version: "1.20",
      requested_version: null,
    });
    expect(typeof missing.body.error).toBe("string");
    expectEnvelope(missing);
    const wrong = await w.post("/heartbeat", { worker_id: "w-1" }, { "x-durable-workflow-protocol-version": "2.0" });
    expect(wrong.body).toMatchObject({ reason: "unsupported_protocol_version", requested_version: "2.0" });

    expect((await w.post("/heartbeat", { worker_id: "w-1" })).body).toMatchObject({
      worker_id: "w-1",
      acknowledged: true,
    });
    const ghost = await w.post("/heartbeat", { worker_id: "ghost" });
    expect([ghost.status, ghost.body.reason]).toEqual([404, "worker_not_registered"]);

    const ns = await w.post("/heartbeat", { worker_id: "w-1" }, { "x-namespace": "Nowhere" });
    expect(ns.status).toBe(404);
    expect(ns.body).toMatchObject({ reason: "namespace_not_found", namespace: "nowhere" });
    expectEnvelope(ns);

    const unregistered = await new ScriptedWorker(h.url, "ghost", "orders").post("/workflow-tasks/poll", {
      worker_id: "ghost",
      task_queue: "orders",
    });
    expect([unregistered.status, unregistered.body.reason]).toEqual([412, "worker_not_registered"]);
    const otherQueue = await w.post("/activity-tasks/poll", { worker_id: "w-1", task_queue: "billing" });
    expect([otherQueue.status, otherQueue.body.reason]).toEqual([409, "task_queue_mismatch"]);

    const invalid = await w.post("/register", { task_queue: "orders", runtime: "cobol" });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ reason: "validation_failed" });
    expect(invalid.body.errors).toEqual(invalid.body.validation_errors);
    expect(invalid.body.errors).toHaveProperty("runtime");

    const notFound = await w.post("/nope", {});
    expect([notFound.status, notFound.body.reason]).toEqual([404, "not_found"]);
    expectEnvelope(notFound);
    const missingTask = await w.post("/activity-tasks/01UNKNOWN/complete", {
      activity_attempt_id: "x",
      lease_owner: "w-1",
    });
    expect([missingTask.status, missingTask.body.reason]).toEqual([404, "task_not_found"]);

    const media = await fetch(`${h.url}/api/worker/heartbeat`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-durable-workflow-protocol-version": "1.19" },
      body: "hi",
    });
    expect([media.status, ((await media.json()) as { reason: string }).reason]).toEqual([
      415,
      "unsupported_media_type",
    ]);
    const malformed = await fetch(`${h.url}/api/worker/heartbeat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-durable-workflow-protocol-version": "1.19" },
      body: "{",
    });
    expect([malformed.status, ((await malformed.json()) as { reason: string }).reason]).toEqual([
      400,
      "malformed_json",
    ]);
  });

  it("validates completion commands with 422 validation_failed", async () => {
    h = await startHarness();
    const w = new ScriptedWorker(h.url);
    await w.register();
    h.engine.startWorkflow({ namespace: "default", workflow_type: "v", task_queue: "default" });
    const task = await w.mustPollWorkflow();
    const empty = await w.completeWorkflow(task, []);
    expect([empty.status, empty.body.reason]).toEqual([422, "validation_failed"]);
    const nonRetryable = await w.completeWorkflow(task, [
      { type: "schedule_activity", activity_type: "a", non_retryable: true },
    ]);
    expect(nonRetryable.body.errors).toEqual({
      "commands.0.non_retryable": ["non_retryable is only supported for fail_workflow and fail_update commands."],
    });
    const unknown = await w.completeWorkflow(task, [{ type: "launch_rocket" }]);
    expect(unknown.status).toBe(422);
    const order = await w.completeWorkflow(task, [
      { type: "schedule_activity", activity_type: "a", heartbeat_timeout: 60, start_to_close_timeout: 30 },
    ]);
    expect(order.body.errors).toHaveProperty("commands.0.heartbeat_timeout");
    const terminalFirst = await w.completeWorkflow(task, [
      { type: "complete_workflow" },
      { type: "start_timer", delay_seconds: 1 },
    ]);
    expect(terminalFirst.status).toBe(422);
    // Nothing was applied by the refused completions; the lease still completes normally.
    expect((await w.completeWorkflow(task, [{ type: "complete_workflow", result: blob(1) }])).body).toMatchObject({
      recorded: true,
      run_status: "completed",
    });
  });
});

describe("worker protocol negotiation and deregistration (sdk-python 2.12.0 at 1.20 and 1.19)", () => {
  it("admits the same major at any minor up to the advertised 1.20 and refuses the rest in the real server's words", async () => {
    h = await startHarness();
    const w = new ScriptedWorker(h.url, "w-1", "orders");
    const send = (v: string) =>
      w.post(
        "/register",
        { worker_id: "w-1", task_queue: "orders", runtime: "python" },
        {
          "x-durable-workflow-protocol-version": v,
        },
      );
    for (const v of ["1.20", "1.19", "1.1", "1.0"]) {
      const r = await send(v);
      expect(r.status, v).toBe(201);
      expectEnvelope(r);
    }
    for (const v of ["1.21", "2.0", "0.20", "1.19.0", "v1.20"]) {
      const r = await send(v);
      expect(r.status, v).toBe(400);
      expect(r.body).toMatchObject({
        error: "Unsupported worker protocol version.",
        reason: "unsupported_protocol_version",
        supported_version: "1.20",
        requested_version: v,
      });
      expect(r.body.remediation).toBe(
        `Worker requested protocol version ${v}; this server supports 1.20. Workers may target any 1.x version with x ≤ 20. Upgrade the worker to a release that targets a compatible version, or connect to a server that matches.`,
      );
      expectEnvelope(r);
    }
  });

  it("DELETE /registrations/{id} removes the worker and readies the workflow task it still leased", async () => {
    h = await startHarness();
    const w = new ScriptedWorker(h.url, "py-1", "orders");
    // What sdk-python 2.12.0 sends besides the 1.0 fields; unknown members are ignored, not refused.
    const reg = await w.post("/register", {
      worker_id: "py-1",
      task_queue: "orders",
      runtime: "python",
      capabilities: ["message_streams"],
      capability_manifest: { worker_sessions: { supported: true } },
      workflow_command_contracts: {},
      max_concurrent_worker_sessions: 10,
    });
    expect(reg.status).toBe(201);
    const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "held", task_queue: "orders" });
    const leased = await w.mustPollWorkflow();
    const del = async (id: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${h!.url}/api/worker/registrations/${id}`, {
        method: "DELETE",
        headers: { "x-durable-workflow-protocol-version": "1.19" },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const gone = await del("py-1");
    expect(gone).toMatchObject({
      status: 200,
      body: { worker_id: "py-1", outcome: "deregistered", recovered_workflow_task_count: 1, protocol_version: "1.20" },
    });
    // The departed worker can no longer poll, its late completion is fenced, and a new worker gets the task now.
    const poll = await w.post("/workflow-tasks/poll", { worker_id: "py-1", task_queue: "orders" });
    expect([poll.status, poll.body.reason]).toEqual([412, "worker_not_registered"]);
    expect((await w.completeWorkflow(leased, [{ type: "complete_workflow" }])).status).toBe(409);
    const next = new ScriptedWorker(h.url, "py-2", "orders");
    await next.register();
    const again = await next.mustPollWorkflow();
    expect([again.task_id, again.run_id]).toEqual([leased.task_id, start.run_id]);
    expect(await del("py-1")).toMatchObject({ status: 404, body: { reason: "worker_not_found", worker_id: "py-1" } });
  });
});

describe("worker plane auth (token driver)", () => {
  it("admits only the worker role, with the documented 401/403 bodies", async () => {
    h = await startHarness({ auth: TOKENS });
    const anonymous = await new ScriptedWorker(h.url).register();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({
      reason: "unauthorized",
      message: "Invalid or missing authentication token.",
    });
    expectEnvelope(anonymous);
    for (const [token, role] of [
      ["o-secret", "operator"],
      ["a-secret", "admin"],
    ] as const) {
      const r = await new ScriptedWorker(h.url, "w", "default", token).register();
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({
        reason: "forbidden",
        message: "Authenticated role is not allowed to access this endpoint.",
        role,
        allowed_roles: ["worker"],
      });
    }
    expect((await new ScriptedWorker(h.url, "w", "default", "bad").register()).status).toBe(401);
    expect((await new ScriptedWorker(h.url, "w", "default", "w-secret").register()).status).toBe(201);
  });

  it("role matrix for reuse by the control plane", () => {
    expect(authorize(TOKENS, "Bearer o-secret", ["operator", "admin"])).toBeNull();
    expect(authorize(TOKENS, "Bearer o-secret", ["admin"])).toEqual({
      status: 403,
      body: {
        reason: "forbidden",
        message: "Authenticated role is not allowed to access this endpoint.",
        role: "operator",
        allowed_roles: ["admin"],
      },
    });
    expect(authorize(TOKENS, "Bearer w-secret", ["operator", "admin"])?.status).toBe(403);
    expect(authorize(TOKENS, undefined, ["admin"])?.status).toBe(401);
    const legacyOnly: AuthConfig = {
      ...TOKENS,
      tokens: { worker: null, operator: null, admin: null, legacy: "legacy" },
    };
    expect(authorize(legacyOnly, "Bearer legacy", ["worker"])).toBeNull();
    expect(
      authorize({ ...TOKENS, tokens: { ...TOKENS.tokens, legacy: "legacy" } }, "Bearer legacy", ["worker"])?.status,
    ).toBe(403);
    expect(authorize({ ...legacyOnly, backwardCompatible: false }, "Bearer legacy", ["admin"])?.status).toBe(401);
    expect(authorize({ ...TOKENS, driver: "none" }, undefined, ["worker"])).toBeNull();
  });
});

describe("long-poll and history paging", () => {
  it("a held poll is woken in-process by a new task, and poll_request_id retries return the same task", async () => {
    h = await startHarness({ pollTimeoutMs: 20_000 });
    const w = new ScriptedWorker(h.url);
    await w.register();
    const began = Date.now();
    const polling = w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      poll_request_id: "p-1",
    });
    await new Promise((r) => setTimeout(r, 100));
    const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "wake", task_queue: "default" });
    const r = await polling;
    expect(Date.now() - began).toBeLessThan(5_000);
    const task = r.body.task as { task_id: string; run_id: string };
    expect(task.run_id).toBe(start.run_id);
    const again = await w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      poll_request_id: "p-1",
    });
    expect((again.body.task as { task_id: string }).task_id).toBe(task.task_id);
  });

  it("honours the poll's timeout_seconds: 0 is an immediate probe, 1 holds about a second, beyond 60 is clamped", async () => {
    h = await startHarness({ pollTimeoutMs: 20_000 });
    const w = new ScriptedWorker(h.url);
    await w.register();
    let began = Date.now();
    const probe = await w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      timeout_seconds: 0,
    });
    expect(probe.body).toMatchObject({ task: null, poll_status: "timeout" });
    expect(Date.now() - began).toBeLessThan(1_000);
    began = Date.now();
    const short = await w.post("/activity-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      timeout_seconds: 1,
    });
    expect(short.body).toMatchObject({ task: null, poll_status: "timeout" });
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    expect(Date.now() - began).toBeLessThan(5_000);
    // A long requested hold is clamped, not refused, and a new task still wakes it at once.
    began = Date.now();
    const held = w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      timeout_seconds: 3600,
    });
    await new Promise((r) => setTimeout(r, 100));
    h.engine.startWorkflow({ namespace: "default", workflow_type: "wake", task_queue: "default" });
    expect(((await held).body.task as { task_id: string } | null)?.task_id).toBeTruthy();
    expect(Date.now() - began).toBeLessThan(5_000);
    const negative = await w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      timeout_seconds: -1,
    });
    expect([negative.status, negative.body.reason]).toEqual([422, "validation_failed"]);
  });

  it("pages history with base64 sequence tokens and emits `history` after commits", async () => {
    h = await startHarness();
    const w = new ScriptedWorker(h.url);
    await w.register();
    const seen: string[] = [];
    h.engine.notifier.on("history", (runId: string) => seen.push(runId));
    const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "pages", task_queue: "default" });
    expect(seen).toEqual([start.run_id]);
    const first = await w.mustPollWorkflow();
    await w.completeWorkflow(first, [
      { type: "start_timer", delay_seconds: 1 },
      { type: "start_timer", delay_seconds: 2 },
    ]);
    h.advance(2);
    const poll = await w.post("/workflow-tasks/poll", {
      worker_id: "worker-1",
      task_queue: "default",
      history_page_size: 3,
    });
    const task = poll.body.task as {
      task_id: string;
      lease_owner: string;
      workflow_task_attempt: number;
      history_events: { sequence: number }[];
      next_history_page_token: string;
      total_history_events: number;
    };
    expect(task.history_events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(task.total_history_events).toBe(6);
    expect(task.next_history_page_token).toBe(Buffer.from("3").toString("base64"));
    const page = await w.post(`/workflow-tasks/${task.task_id}/history`, {
      lease_owner: task.lease_owner,
      workflow_task_attempt: task.workflow_task_attempt,
      next_history_page_token: task.next_history_page_token,
      history_page_size: 3,
    });
    expect((page.body.history_events as { event_type: string }[]).map((e) => e.event_type)).toEqual([
      "TimerScheduled",
      "TimerFired",
      "TimerFired",
    ]);
    expect(page.body.next_history_page_token).toBeNull();
    const hb = await w.post(`/workflow-tasks/${task.task_id}/heartbeat`, {
      lease_owner: task.lease_owner,
      workflow_task_attempt: task.workflow_task_attempt,
    });
    expect(hb.body).toMatchObject({ can_continue: true, run_status: "running" });
    // One wake-up per committed transition that appended history: start, completion, the timer sweep.
    expect(seen).toEqual([start.run_id, start.run_id, start.run_id]);
  });
});
