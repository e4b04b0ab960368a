import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { encodePayload } from "../../codec/codec";
import { historyOf, ScriptedWorker, typesOf } from "../test-support";
import type { WorkflowTaskWire } from "../test-support";
import type { CpHarness, CpResponse } from "./test-support";
import { cp, startCpHarness, wf } from "./test-support";

/**
 * Workflow updates over real HTTP and a real SQLite file, the fake clock deciding the wait's
 * timeout. The rules are the real ones: durable-workflow/server@11d35b7 WorkflowController::update,
 * ControlPlaneResultMapper::update; workflow@8dc90d64 DefaultWorkflowControlPlane::update,
 * WorkflowStub::recordAcceptedUpdateWithArguments / rejectUpdateCommand,
 * DefaultWorkflowTaskBridge::applyCompleteUpdate / applyFailUpdate.
 */

let h: CpHarness;
let worker: ScriptedWorker;

/** Starts a workflow and parks it at a signal wait, so the next workflow task is the update's. */
async function startWaiting(id: string): Promise<string> {
  const r = await cp(h.url, "/workflows", {
    body: { workflow_id: id, workflow_type: "orders.updatable", input: ["Ada"] },
  });
  expect(r.status).toBe(201);
  const task = await worker.mustPollWorkflow();
  expect((await worker.completeWorkflow(task, [{ type: "open_signal_wait", signal_name: "finish" }])).status).toBe(200);
  return r.body.run_id as unknown as string;
}

function send(id: string, name: string, body: Record<string, unknown>, runId?: string): Promise<CpResponse> {
  const path = runId ? `/workflows/${wf(id)}/runs/${runId}/update/${name}` : `/workflows/${wf(id)}/update/${name}`;
  return cp(h.url, path, { body });
}

function eventsOf(runId: string, type: string): Record<string, unknown>[] {
  return historyOf(h.db, runId)
    .filter((e) => e.event_type === type)
    .map((e) => e.payload as Record<string, unknown>);
}

async function updateTask(): Promise<WorkflowTaskWire> {
  const task = await worker.mustPollWorkflow();
  expect(typeof task.workflow_update_id).toBe("string");
  return task;
}

describe("workflow updates", () => {
  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "update-worker");
    await worker.register();
  });
  afterEach(async () => h.close());

  test("accepted: 202 with the update id, UpdateAccepted in history and a task that carries it; completing records UpdateApplied and UpdateCompleted", async () => {
    const runId = await startWaiting("u-accepted");
    const args = encodePayload([3]);
    const r = await send("u-accepted", "approve", { input: args, request_id: "req-1" });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      workflow_id: "u-accepted",
      run_id: runId,
      update_name: "approve",
      update_status: "accepted",
      command_status: "accepted",
      outcome: null,
      wait_for: "accepted",
      wait_timed_out: false,
      wait_timeout_seconds: null,
      control_plane: { operation: "update", operation_name: "approve", operation_name_field: "update_name" },
    });
    expect(r.body).not.toHaveProperty("status");
    const updateId = r.body.update_id as unknown as string;
    expect(eventsOf(runId, "UpdateAccepted")).toEqual([
      {
        workflow_command_id: r.body.command_id,
        update_id: updateId,
        workflow_instance_id: "u-accepted",
        workflow_run_id: runId,
        update_name: "approve",
        arguments: args.blob,
        payload_codec: "avro",
        ordering_state: "ready",
        // The command snapshot the engine records on the event (WorkflowHistoryEvent.php@8dc90d64 `commandSnapshot`).
        command: expect.objectContaining({
          id: r.body.command_id,
          type: "update",
          target_name: "approve",
          status: "accepted",
          request_id: "req-1",
        }),
      },
    ]);

    const task = await updateTask();
    expect(task.workflow_update_id).toBe(updateId);
    expect(task.history_events.map((e) => e.event_type)).toContain("UpdateAccepted");
    const result = encodePayload("approved:3");
    const done = await worker.completeWorkflow(task, [{ type: "complete_update", update_id: updateId, result }]);
    expect(done.status).toBe(200);

    expect(typesOf(h.db, runId).slice(-2)).toEqual(["UpdateApplied", "UpdateCompleted"]);
    expect(eventsOf(runId, "UpdateApplied")[0]).toMatchObject({
      update_id: updateId,
      arguments: args.blob,
      command: { id: r.body.command_id, type: "update" },
    });
    expect(eventsOf(runId, "UpdateCompleted")[0]).toMatchObject({
      update_id: updateId,
      update_name: "approve",
      result: result.blob,
    });
    // The update is no step of the workflow: it carries the wait's sequence.
    expect(eventsOf(runId, "UpdateCompleted")[0]?.sequence).toBe(eventsOf(runId, "SignalWaitOpened")[0]?.sequence);

    // The same request id returns the original receipt, now completed; nothing new is accepted.
    const again = await send("u-accepted", "approve", { input: args, request_id: "req-1", wait_for: "completed" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      update_id: updateId,
      command_id: r.body.command_id,
      update_status: "completed",
      outcome: "update_completed",
      result: "approved:3",
      result_envelope: result,
    });
    expect(eventsOf(runId, "UpdateAccepted")).toHaveLength(1);
    // The same key for another intent is refused in the words sdk-python maps to UpdateFailed.
    const conflict = await send("u-accepted", "approve", { input: encodePayload([4]), request_id: "req-1" });
    expect(conflict.status).toBe(409);
    expect(conflict.body.reason).toBe("request_id_conflict");
  });

  test("wait_for completed answers the handler's permanent failure: 422, UpdateCompleted with the non-retryable marker and a failure row", async () => {
    const runId = await startWaiting("u-fails");
    const pending = send("u-fails", "reserve", { input: encodePayload(["sku-9"]), wait_for: "completed" });
    const task = await updateTask();
    const updateId = task.workflow_update_id as string;
    const failed = await worker.completeWorkflow(task, [
      {
        type: "fail_update",
        update_id: updateId,
        message: "update handler failed: out of stock",
        exception_type: "ValueError",
        exception_class: "builtins.ValueError",
        non_retryable: true,
      },
    ]);
    expect(failed.status).toBe(200);

    const r = await pending;
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      update_id: updateId,
      update_status: "failed",
      outcome: "update_failed",
      failure_message: "update handler failed: out of stock",
      wait_for: "completed",
      wait_timed_out: false,
      wait_timeout_seconds: 10,
    });
    const completed = eventsOf(runId, "UpdateCompleted")[0];
    expect(completed).toMatchObject({
      update_id: updateId,
      update_name: "reserve",
      failure_id: r.body.failure_id,
      failure_category: "application",
      non_retryable: true,
      exception_type: "ValueError",
      exception_class: "builtins.ValueError",
      message: "update handler failed: out of stock",
      exception: { class: "builtins.ValueError", type: "ValueError", message: "update handler failed: out of stock" },
    });
    expect(typesOf(h.db, runId)).not.toContain("UpdateApplied");
    const failure = h.db
      .prepare("SELECT source_kind, propagation_kind, non_retryable FROM workflow_failures WHERE id = ?")
      .get(r.body.failure_id as unknown as string);
    expect(failure).toEqual({ source_kind: "workflow_command", propagation_kind: "update", non_retryable: 1 });
  });

  test("wait_for completed with no answer by wait_timeout_seconds is 202 with wait_timed_out, the update still accepted", async () => {
    await startWaiting("u-timeout");
    // A deadline far beyond the test's own, so only the fake clock's sweep can end the wait.
    let answered = false;
    const pending = send("u-timeout", "approve", { wait_for: "completed", wait_timeout_seconds: 3600 }).then((x) => {
      answered = true;
      return x;
    });
    // The task is pollable only once the request was accepted, and its wait registered with it.
    await updateTask();
    h.advance(3599);
    await cp(h.url, `/workflows/${wf("u-timeout")}`);
    expect(answered).toBe(false);
    h.advance(1);
    const r = await pending;
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      update_status: "accepted",
      wait_for: "completed",
      wait_timed_out: true,
      wait_timeout_seconds: 3600,
    });
  });

  test("a closed run refuses the update: 409 rejected_not_active / run_not_active, UpdateRejected on the run", async () => {
    const runId = await startWaiting("u-closed");
    expect((await cp(h.url, `/workflows/${wf("u-closed")}/terminate`, { body: {} })).status).toBe(200);
    const r = await send("u-closed", "approve", { input: encodePayload([1]), wait_for: "completed" });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      command_status: "rejected",
      outcome: "rejected_not_active",
      reason: "run_not_active",
      rejection_reason: "run_not_active",
      update_status: "rejected",
      wait_timed_out: false,
    });
    expect(eventsOf(runId, "UpdateRejected")).toEqual([
      expect.objectContaining({
        update_id: r.body.update_id,
        update_name: "approve",
        workflow_run_id: runId,
        // Why it was refused is on the event's command snapshot, as the engine records it.
        command: expect.objectContaining({ status: "rejected", rejection_reason: "run_not_active" }),
      }),
    ]);
  });

  test("run-targeted: the current run is target_scope run; a historical run is refused; an update accepted during a lease gets its task after it", async () => {
    const r = await cp(h.url, "/workflows", { body: { workflow_id: "u-run", workflow_type: "orders.updatable" } });
    const runId = r.body.run_id as unknown as string;
    const leased = await worker.mustPollWorkflow();
    const during = await send("u-run", "approve", { input: encodePayload([2]) }, runId);
    expect(during.status).toBe(202);
    expect(during.body).toMatchObject({ target_scope: "run", requested_run_id: runId, update_status: "accepted" });
    expect(await worker.pollWorkflow()).toBeNull();
    await worker.completeWorkflow(leased, [{ type: "open_signal_wait", signal_name: "finish" }]);
    const task = await updateTask();
    expect(task.workflow_update_id).toBe(during.body.update_id);

    const historical = await send("u-run", "approve", {}, "01JZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(historical.status).toBe(409);
    expect(historical.body.reason).toBe("historical_run_command_rejected");
  });
});

function realShape(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url), "utf8")) as unknown;
}

/** Keys and JSON types, recursively (lib/dw/fixtures/updates.md names the PHP each fixture follows). */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => shapeOf(x));
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x)]),
    );
  return v === null ? null : typeof v;
}

describe("update answers in the real server's shapes", () => {
  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "update-worker");
    await worker.register();
  });
  afterEach(async () => h.close());

  test("accepted, completed, failed, timed out and refused carry the real answers' keys and types", async () => {
    await startWaiting("u-shapes");
    const accepted = await send("u-shapes", "approve", { input: encodePayload([1]) });
    const t1 = await updateTask();
    await worker.completeWorkflow(t1, [
      { type: "complete_update", update_id: t1.workflow_update_id, result: encodePayload("approved:1") },
    ]);
    const pendingDone = send("u-shapes", "approve", { input: encodePayload([3]), wait_for: "completed" });
    const t2 = await updateTask();
    await worker.completeWorkflow(t2, [
      { type: "complete_update", update_id: t2.workflow_update_id, result: encodePayload("approved:3") },
    ]);
    const pendingFail = send("u-shapes", "approve", { input: encodePayload([99]), wait_for: "completed" });
    const t3 = await updateTask();
    await worker.completeWorkflow(t3, [
      { type: "fail_update", update_id: t3.workflow_update_id, message: "too much", non_retryable: true },
    ]);
    const pendingTimeout = send("u-shapes", "approve", { input: encodePayload([5]), wait_for: "completed" });
    await updateTask();
    h.advance(10);
    const timedOut = await pendingTimeout;
    await cp(h.url, `/workflows/${wf("u-shapes")}/terminate`, { body: {} });
    const refused = await send("u-shapes", "approve", { input: encodePayload([6]), wait_for: "completed" });
    for (const [r, name, status] of [
      [accepted, "update-accepted", 202],
      [await pendingDone, "update-completed", 200],
      [await pendingFail, "update-failed", 422],
      [timedOut, "update-wait-timed-out", 202],
      [refused, "update-rejected-closed", 409],
    ] as const) {
      expect(r.status, name).toBe(status);
      expect(shapeOf(r.body), name).toEqual(shapeOf(realShape(name)));
    }
  });

  test("an activity outcome arriving while the update's task is ready is not lost: the update task answers the update, a workflow task follows for the outcome", async () => {
    const r = await cp(h.url, "/workflows", {
      body: { workflow_id: "u-absorb", workflow_type: "orders.updatable", input: ["Ada"] },
    });
    const runId = r.body.run_id as unknown as string;
    const first = await worker.mustPollWorkflow();
    await worker.completeWorkflow(first, [{ type: "schedule_activity", activity_type: "charge" }]);
    const accepted = await send("u-absorb", "approve", { input: encodePayload([1]) });
    expect(accepted.status).toBe(202);
    // The activity completes while the update's task waits, unleased.
    expect((await worker.completeActivity(await worker.mustPollActivity())).status).toBe(200);

    const task = await updateTask();
    const updateId = task.workflow_update_id as string;
    const done = await worker.completeWorkflow(task, [
      { type: "complete_update", update_id: updateId, result: encodePayload("ok") },
    ]);
    expect(done.status).toBe(200);
    // Every official SDK answers only the update on its task; the outcome still gets its own task.
    const next = await worker.mustPollWorkflow();
    expect(next.workflow_update_id ?? null).toBeNull();
    expect(next.history_events.map((e) => e.event_type)).toContain("ActivityCompleted");
    expect(typesOf(h.db, runId)).toContain("UpdateCompleted");
  });
});
