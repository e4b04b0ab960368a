import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedWorker } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";
import { consoleRequest, SAME_ORIGIN, startActionServer } from "@/app/api/actions/_shared/route-test-support";
import type { UpdateActionAnswer } from "@/lib/actions/update-action";
import { toUpdateActionAnswer } from "@/lib/actions/update-action";

/**
 * The update handler against the real embedded server (SQLite in a temp dir, HTTP on 127.0.0.1) and
 * a scripted worker: guard, body validation, the update with its request id, and each answer the tab
 * words (accepted, a failed handler's 422, a closed run's 409, an unknown workflow's 404).
 */

let server: EmbeddedServer;
let dwUrl: string;
let worker: ScriptedWorker;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer({ DW_WORKER_TOKEN: "wrk-token" });
  dwUrl = server.url;
  worker = new ScriptedWorker(dwUrl, "update-route-worker", "q", "wrk-token");
  expect((await worker.register()).status).toBeLessThan(300);
  ({ POST } = await import("@/app/api/actions/updates/route"));
});

afterAll(async () => {
  await server.close();
});

function updateRequest(body: unknown, headers: Record<string, string> = SAME_ORIGIN): NextRequest {
  return consoleRequest("/api/actions/updates", body, headers);
}

const dwHeaders = {
  authorization: "Bearer adm-token",
  "content-type": "application/json",
  "x-durable-workflow-control-plane-version": "2",
};

/** Starts a run and parks it at a signal wait, so its next workflow task is an update's. */
async function startWaiting(workflowId: string): Promise<string> {
  const response = await fetch(`${dwUrl}/api/workflows`, {
    method: "POST",
    headers: dwHeaders,
    body: JSON.stringify({ workflow_type: "OpsTest", workflow_id: workflowId, task_queue: "q" }),
  });
  const runId = ((await response.json()) as { run_id: string }).run_id;
  const task = await worker.mustPollWorkflow();
  expect((await worker.completeWorkflow(task, [{ type: "open_signal_wait", signal_name: "finish" }])).status).toBe(200);
  return runId;
}

async function history(workflowId: string, runId: string) {
  const response = await fetch(`${dwUrl}/api/workflows/${workflowId}/runs/${runId}/history?page_size=1000`, {
    headers: dwHeaders,
  });
  return ((await response.json()) as { events: { event_type: string; payload: Record<string, unknown> }[] }).events;
}

async function answerOf(response: Response): Promise<UpdateActionAnswer> {
  const answer = toUpdateActionAnswer(await response.json());
  if (!answer) throw new Error("not an update answer");
  return answer;
}

describe("POST /api/actions/updates", () => {
  it("sends the update to the run with its request id and answers its update id, recorded in history", async () => {
    const runId = await startWaiting("upd-ok");
    const body = {
      workflowId: "upd-ok",
      runId,
      requestId: "req-upd-ok-1",
      updateName: "approve",
      input: [3],
      waitFor: "accepted",
    };
    const response = await POST(updateRequest(body));
    expect(response.status).toBe(202);
    const answer = await answerOf(response);
    expect(answer).toMatchObject({
      result: "accepted",
      httpStatus: 202,
      workflowId: "upd-ok",
      runId,
      updateName: "approve",
      updateStatus: "accepted",
      waitFor: "accepted",
      waitTimedOut: false,
      rejectionReason: null,
    });
    const accepted = (await history("upd-ok", runId)).filter((event) => event.event_type === "UpdateAccepted");
    expect(accepted.map((event) => event.payload.update_id)).toEqual([answer.updateId]);

    // The handler fails for good; the same request id then answers the original update, failed (422).
    const task = await worker.mustPollWorkflow();
    expect(task.workflow_update_id).toBe(answer.updateId);
    const failure = { message: "cannot approve above the limit", exception_type: "LimitExceeded", non_retryable: true };
    const failed = await worker.completeWorkflow(task, [
      { type: "fail_update", update_id: answer.updateId, ...failure },
    ]);
    expect(failed.status).toBe(200);
    const again = await POST(updateRequest({ ...body, waitFor: "completed" }));
    expect(again.status).toBe(422);
    expect(await answerOf(again)).toMatchObject({
      result: "rejected",
      updateId: answer.updateId,
      outcome: "update_failed",
      updateStatus: "failed",
      failureMessage: "cannot approve above the limit",
    });
  });

  it("answers a closed run's refusal as a 409 with the reason, its UpdateRejected in history", async () => {
    const runId = await startWaiting("upd-closed");
    await fetch(`${dwUrl}/api/workflows/upd-closed/terminate`, { method: "POST", headers: dwHeaders, body: "{}" });
    const response = await POST(
      updateRequest({
        workflowId: "upd-closed",
        runId,
        requestId: "req-upd-closed-1",
        updateName: "approve",
        input: [],
        waitFor: "completed",
      }),
    );
    expect(response.status).toBe(409);
    const answer = await answerOf(response);
    expect(answer).toMatchObject({ result: "rejected", rejectionReason: "run_not_active", updateStatus: "rejected" });
    const rejected = (await history("upd-closed", runId)).filter((event) => event.event_type === "UpdateRejected");
    expect(rejected.map((event) => event.payload.update_id)).toEqual([answer.updateId]);
  });

  it("an unknown workflow is the server's 404 error, not an answer", async () => {
    const response = await POST(
      updateRequest({
        workflowId: "upd-nobody",
        runId: "01nobody",
        requestId: "req-upd-nobody",
        updateName: "approve",
        input: [],
        waitFor: "accepted",
      }),
    );
    expect(response.status).toBe(404);
    const body = (await response.json()) as Record<string, unknown>;
    expect(toUpdateActionAnswer(body)).toBeNull();
    expect(typeof body.reason).toBe("string");
  });

  it("refuses a body without a name or with a wait the server does not know, and a cross-origin request", async () => {
    const base = { workflowId: "w", runId: "r", requestId: "req-12345678", input: [], waitFor: "accepted" };
    const noName = await POST(updateRequest({ ...base, updateName: "  " }));
    expect(noName.status).toBe(400);
    expect(((await noName.json()) as { message: string }).message).toMatch(/^updateName:/);
    const badWait = await POST(updateRequest({ ...base, updateName: "approve", waitFor: "forever" }));
    expect(badWait.status).toBe(400);
    const crossSite = await POST(updateRequest({ ...base, updateName: "approve" }, { origin: "http://evil.test" }));
    expect(crossSite.status).toBe(403);
  });
});
