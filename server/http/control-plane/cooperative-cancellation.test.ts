import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { historyOf, runRow, ScriptedWorker, typesOf } from "../test-support";
import type { WorkflowTaskWire } from "../test-support";
import type { CpHarness, CpResponse } from "./test-support";
import { cp, startCpHarness, wf } from "./test-support";

/**
 * Cooperative cancellation over real HTTP and SQLite with a fake clock: the request and its receipt,
 * the durable events, delivery at the workflow's timer, the close when cleanup ends or the deadline
 * passes (the sweep, at the engine's clock), and what is refused.
 */

let h: CpHarness;
let worker: ScriptedWorker;

beforeEach(async () => {
  h = await startCpHarness();
  worker = new ScriptedWorker(h.url);
  await worker.register();
});
afterEach(async () => {
  await h.close();
});

/** A run parked on a 300 s timer (its sequence 1), as a workflow awaiting `ctx.start_timer(300)`. */
async function runOnTimer(id: string): Promise<string> {
  const started = await cp(h.url, "/workflows", {
    body: { workflow_id: id, workflow_type: "orders.cleanup", task_queue: "default" },
  });
  expect(started.status).toBe(201);
  const first = await worker.mustPollWorkflow();
  expect((await worker.completeWorkflow(first, [{ type: "start_timer", delay_seconds: 300 }])).status).toBe(200);
  return String(started.body.run_id);
}

const request = (id: string, body: Record<string, unknown> = {}, runId?: string) =>
  cp(h.url, `/workflows/${wf(id)}${runId ? `/runs/${runId}` : ""}/request-cancellation`, { body });

/** The request id of an accepted request's receipt. */
const requestIdOf = (r: CpResponse): string => String(r.body.cancellation_request?.request_id);

function deliver(task: WorkflowTaskWire, requestId: string, sequence = 1, version = "1.20") {
  return worker.post(
    `/workflow-tasks/${task.task_id}/deliver-cancellation`,
    {
      lease_owner: task.lease_owner,
      workflow_task_attempt: task.workflow_task_attempt,
      request_id: requestId,
      sequence,
      call_kind: "timer",
      sequence_span: 1,
    },
    { "x-durable-workflow-protocol-version": version },
  );
}

describe("request-cancellation", () => {
  test("accepts once: the receipt, the durable request, a workflow task that carries it; a repeat returns the original", async () => {
    const runId = await runOnTimer("cc-accept");
    const accepted = await request("cc-accept", { reason: "maintenance", cleanup_timeout_seconds: 30 });
    expect(accepted.status).toBe(202);
    const receipt = accepted.body.cancellation_request!;
    expect(accepted.body).toMatchObject({ workflow_id: "cc-accept", run_id: runId, accepted: true, duplicate: false });
    const requestedAt = Date.parse(String(receipt.requested_at));
    expect(Date.parse(String(receipt.cleanup_deadline_at)) - requestedAt).toBe(30_000);
    expect(receipt.history_refresh_page_token).toBe("MA==");

    const event = historyOf(h.db, runId).find((e) => e.event_type === "CooperativeCancellationRequested");
    expect(event?.payload).toMatchObject({
      workflow_command_id: receipt.request_id,
      workflow_instance_id: "cc-accept",
      workflow_run_id: runId,
      command_type: "request_cancellation",
      reason: "maintenance",
      cleanup_deadline_at: receipt.cleanup_deadline_at,
      cancellation: {
        schema: "durable-workflow.cancellation-context/v1",
        request_id: receipt.request_id,
        root_request_id: receipt.request_id,
        root_workflow_run_id: runId,
        parent_request_id: null,
        reason: "maintenance",
        source: "control_plane",
        requested_at: receipt.requested_at,
        cleanup_deadline_at: receipt.cleanup_deadline_at,
        lineage: [{ request_id: receipt.request_id, workflow_instance_id: "cc-accept", workflow_run_id: runId }],
      },
    });

    const task = await worker.mustPollWorkflow();
    expect(task.resume_source_kind).toBe("cancellation_request");
    expect(task.cancellation_request).toEqual(receipt);

    h.clock.advance(5_000);
    const repeat = await request("cc-accept", { cleanup_timeout_seconds: 600 }, runId);
    expect(repeat.status).toBe(200);
    expect(repeat.body.duplicate).toBe(true);
    expect(repeat.body.cancellation_request).toEqual(receipt);
    expect(typesOf(h.db, runId).filter((t) => t === "CooperativeCancellationRequested")).toHaveLength(1);
  });

  test("delivered at the timer, the cleanup's completion closes the run cancelled", async () => {
    const runId = await runOnTimer("cc-deliver");
    const requestId = requestIdOf(await request("cc-deliver", { cleanup_timeout_seconds: 60 }));
    const task = await worker.mustPollWorkflow();

    expect((await deliver(task, requestId, 1, "1.19")).body.reason).toBe("cooperative_cancellation_not_supported");
    expect((await deliver(task, "another-request")).body.reason).toBe("cancellation_request_mismatch");
    expect((await deliver(task, requestId, 3)).body.reason).toBe("cancellation_delivery_sequence_mismatch");

    const delivered = await deliver(task, requestId);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({
      delivered: true,
      task_id: task.task_id,
      request_id: requestId,
      sequence: 1,
    });
    // A lost acknowledgment is retried with the same call and gets the same answer, once in history.
    expect((await deliver(task, requestId)).body).toMatchObject({ delivered: true, sequence: 1 });
    const history = historyOf(h.db, runId);
    expect(history.map((e) => e.event_type).slice(-3)).toEqual([
      "CooperativeCancellationRequested",
      "TimerCancelled",
      "CooperativeCancellationDelivered",
    ]);
    const delivery = history.at(-1)!.payload;
    expect(delivery).toMatchObject({
      workflow_command_id: requestId,
      workflow_run_id: runId,
      sequence: 1,
      call_kind: "timer",
    });
    expect(delivery.cancellation).toEqual(history.at(-3)!.payload.cancellation);

    // The workflow's cleanup returns a value; the run still closes cancelled, saying how.
    const done = await worker.completeWorkflow(task, [{ type: "complete_workflow", result: null }]);
    expect(done.body.run_status).toBe("cancelled");
    expect(runRow(h.db, runId).status).toBe("cancelled");
    const closed = historyOf(h.db, runId).at(-1)!;
    expect(closed.event_type).toBe("WorkflowCancelled");
    expect(closed.payload.cancellation_cleanup).toMatchObject({
      request_id: requestId,
      outcome: "completed",
      delivery_sequence: 1,
    });
  });

  test("a run that ignores the request is closed cancelled when the clock passes the deadline", async () => {
    const runId = await runOnTimer("cc-deadline");
    const requestId = requestIdOf(await request("cc-deadline", { cleanup_timeout_seconds: 10 }));
    h.advance(9);
    expect(runRow(h.db, runId).status).not.toBe("cancelled");
    h.advance(1);
    expect(runRow(h.db, runId)).toMatchObject({ status: "cancelled", closed_reason: "cancelled" });
    const types = typesOf(h.db, runId);
    expect(types.slice(-2)).toEqual(["TimerCancelled", "WorkflowCancelled"]);
    expect(historyOf(h.db, runId).at(-1)!.payload.cancellation_cleanup).toMatchObject({
      request_id: requestId,
      outcome: "deadline_expired",
      delivery_sequence: null,
    });
    expect(await worker.pollWorkflow()).toBeNull();
    // A repeat after the close still answers the original request.
    const repeat = await request("cc-deadline");
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ duplicate: true, run_status: "cancelled" });
  });

  test("refusals: closed run, open activity, unknown workflow, historical run, bad budget", async () => {
    await runOnTimer("cc-closed");
    expect((await cp(h.url, `/workflows/cc-closed/terminate`, { body: {} })).status).toBe(200);
    const closed = await request("cc-closed");
    expect(closed.status).toBe(409);
    expect(closed.body.reason).toBe("run_not_active");

    await cp(h.url, "/workflows", { body: { workflow_id: "cc-activity", workflow_type: "w", task_queue: "default" } });
    const t = await worker.mustPollWorkflow();
    await worker.completeWorkflow(t, [{ type: "schedule_activity", activity_type: "charge", arguments: null }]);
    const blocked = await request("cc-activity");
    expect(blocked.status).toBe(422);
    expect(blocked.body.reason).toBe("cooperative_cancellation_propagation_not_available");

    expect((await request("cc-nobody")).status).toBe(404);
    expect((await request("cc-closed", {}, "not-the-current-run")).status).toBe(409);
    const budget = await request("cc-closed", { cleanup_timeout_seconds: 0 });
    expect(budget.status).toBe(422);
  });

  test("activity status: a cooperative worker reads its claim without writing; a cancelled run says stop", async () => {
    const started = await cp(h.url, "/workflows", {
      body: { workflow_id: "cc-status", workflow_type: "w", task_queue: "default" },
    });
    const runId = String(started.body.run_id);
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      { type: "schedule_activity", activity_type: "charge", arguments: null },
    ]);
    const claim = await worker.mustPollActivity();
    const status = () =>
      worker.post(
        `/activity-tasks/${claim.task_id}/status`,
        { activity_attempt_id: claim.activity_attempt_id, lease_owner: claim.lease_owner },
        { "x-durable-workflow-protocol-version": "1.20" },
      );
    const before = typesOf(h.db, runId);
    const open = await status();
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({
      task_id: claim.task_id,
      activity_attempt_id: claim.activity_attempt_id,
      lease_owner: claim.lease_owner,
      can_continue: true,
      cancel_requested: false,
      heartbeat_recorded: false,
      reason: null,
    });
    expect(typesOf(h.db, runId)).toEqual(before);
    await cp(h.url, "/workflows/cc-status/cancel", { body: {} });
    expect((await status()).body).toMatchObject({
      can_continue: false,
      cancel_requested: true,
      heartbeat_recorded: false,
    });
  });

  test("the receipts and the delivery answer carry the real shapes' keys and types (lib/dw/fixtures/cancellation.md)", async () => {
    await runOnTimer("cc-shape");
    const accepted = await request("cc-shape", { cleanup_timeout_seconds: 60 });
    expect(shapeOf(accepted.body)).toEqual(shapeOf(realShape("cancellation-accepted")));
    const task = await worker.mustPollWorkflow();
    const delivered = await deliver(task, requestIdOf(accepted));
    const answer = Object.fromEntries(
      Object.entries(delivered.body).filter(([k]) => k !== "protocol_version" && k !== "server_capabilities"),
    );
    expect(shapeOf(answer)).toEqual(shapeOf(realShape("cancellation-delivered")));
    expect(shapeOf((await request("cc-shape")).body)).toEqual(shapeOf(realShape("cancellation-duplicate")));
  });
});

/** A fixture read as data: the console's code is not imported. */
function realShape(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url), "utf8")) as unknown;
}

/** Keys and JSON types, recursively. */
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
