import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedServer } from "@/server/http/test-support";
import { CONSOLE, consoleRequest, SAME_ORIGIN, startActionServer } from "@/app/api/actions/_shared/route-test-support";

/**
 * The action handler against the real embedded server (SQLite in a temp dir, HTTP on 127.0.0.1):
 * guard, request validation, the command with its request id, and the answer shape the screens read.
 */

let server: EmbeddedServer;
let dwUrl: string;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer({ DW_WORKER_TOKEN: "wrk-token" });
  dwUrl = server.url;
  ({ POST } = await import("@/app/api/actions/runs/route"));
});

afterAll(async () => {
  await server.close();
});

function actionRequest(body: unknown, headers: Record<string, string> = SAME_ORIGIN): NextRequest {
  return consoleRequest("/api/actions/runs", body, headers);
}

async function start(workflowId: string): Promise<string> {
  const response = await fetch(`${dwUrl}/api/workflows`, {
    method: "POST",
    headers: {
      authorization: "Bearer adm-token",
      "content-type": "application/json",
      "x-durable-workflow-control-plane-version": "2",
    },
    body: JSON.stringify({ workflow_type: "OpsTest", workflow_id: workflowId, task_queue: "q", input: ["a", 1] }),
  });
  const body = (await response.json()) as { run_id: string };
  return body.run_id;
}

async function history(
  workflowId: string,
  runId: string,
): Promise<{ event_type: string; payload: Record<string, unknown> }[]> {
  const response = await fetch(`${dwUrl}/api/workflows/${workflowId}/runs/${runId}/history?page_size=1000`, {
    headers: { authorization: "Bearer adm-token", "x-durable-workflow-control-plane-version": "2" },
  });
  return ((await response.json()) as { events: { event_type: string; payload: Record<string, unknown> }[] }).events;
}

describe("POST /api/actions/runs", () => {
  it("sends to the namespace the request names, and refuses one that names none", async () => {
    const runId = await start("wf-ns");
    const body = { action: "cancel", workflowId: "wf-ns", runId, requestId: "req-ns-1", reason: "x" };
    const same = { origin: CONSOLE, "sec-fetch-site": "same-origin" };
    const missing = await POST(actionRequest(body, { ...same, "x-namespace": "" }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ reason: "namespace_required" });
    const invalid = await POST(actionRequest(body, { ...same, "x-namespace": "no/such" }));
    expect(invalid.status).toBe(400);
    // A namespace the server does not know: the command went there, not to the default namespace.
    const elsewhere = await POST(actionRequest(body, { ...same, "x-namespace": "elsewhere" }));
    expect(elsewhere.status).toBe(404);
    expect((await history("wf-ns", runId)).map((event) => event.event_type)).not.toContain("CancelRequested");
  });

  it("refuses a cross-origin request without calling the server", async () => {
    const runId = await start("wf-csrf");
    const response = await POST(
      actionRequest(
        { action: "cancel", workflowId: "wf-csrf", runId, requestId: "req-csrf-1", reason: "x" },
        { origin: "http://evil.test" },
      ),
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ reason: "cross_origin" });
    expect((await history("wf-csrf", runId)).map((e) => e.event_type)).not.toContain("CancelRequested");
  });

  it("rejects an invalid body with the field that is wrong", async () => {
    const response = await POST(
      actionRequest({ action: "cancel", workflowId: "wf", runId: "r", requestId: "req-12345678", reason: "  " }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).message).toMatch(/^reason: A reason is required/);
  });

  it("sends cancel with the reason and request id, then answers a repeat with a 409 rejection", async () => {
    const runId = await start("wf-cancel");
    const first = await POST(
      actionRequest({
        action: "cancel",
        workflowId: "wf-cancel",
        runId,
        requestId: "req-cancel-1",
        reason: "operator says stop",
      }),
    );
    expect(first.status).toBe(200);
    const answer = await first.json();
    expect(answer).toMatchObject({
      result: "accepted",
      action: "cancel",
      workflowId: "wf-cancel",
      runId,
      outcome: "cancelled",
      rejectionReason: null,
    });
    expect(answer.commandId).toEqual(expect.any(String));
    const requested = (await history("wf-cancel", runId)).find((event) => event.event_type === "CancelRequested");
    expect(requested?.payload).toMatchObject({ workflow_command_id: answer.commandId, reason: "operator says stop" });

    const again = await POST(
      actionRequest({
        action: "terminate",
        workflowId: "wf-cancel",
        runId,
        requestId: "req-cancel-2",
        reason: "too late",
      }),
    );
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      result: "rejected",
      outcome: "rejected_not_active",
      rejectionReason: "run_not_active",
    });
  });

  it("repairs with a request id; the same request id is the same command", async () => {
    const runId = await start("wf-repair");
    const body = { action: "repair", workflowId: "wf-repair", runId, requestId: "req-repair-1" };
    const first = await (await POST(actionRequest(body))).json();
    const second = await (await POST(actionRequest(body))).json();
    expect(first).toMatchObject({ result: "accepted", action: "repair" });
    expect(["repair_dispatched", "repair_not_needed"]).toContain(first.outcome);
    expect(second.commandId).toBe(first.commandId);
    expect((await history("wf-repair", runId)).filter((event) => event.event_type === "RepairRequested")).toHaveLength(
      1,
    );
  });

  it("refuses repair aimed from a run that is not the current one", async () => {
    await start("wf-stale");
    const response = await POST(
      actionRequest({
        action: "repair",
        workflowId: "wf-stale",
        runId: "01NOTTHECURRENTRUN",
        requestId: "req-stale-1",
      }),
    );
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ result: "rejected", rejectionReason: "selected_run_not_current" });
  });

  it("answers a signal input nested 5,000 levels deep with a 400, not a stack overflow's 500", async () => {
    const runId = await start("wf-deep-signal");
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"action":"signal","workflowId":"wf-deep-signal","runId":"${runId}","requestId":"req-deep-1","signalName":"approve","input":[${deep}]}`;
    const response = await POST(
      new NextRequest(`${CONSOLE}/api/actions/runs`, {
        method: "POST",
        headers: {
          host: "console.test:3000",
          "x-breakwater-host": "console.test:3000",
          origin: CONSOLE,
          "sec-fetch-site": "same-origin",
          "content-type": "application/json",
          "x-namespace": "default",
        },
        body,
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      reason: "invalid_request",
      message: expect.stringContaining("nests deeper than 64 levels"),
    });
  });

  it("signals with JSON arguments (202) and starts again with the old run's input", async () => {
    const runId = await start("wf-signal");
    const signal = await POST(
      actionRequest({
        action: "signal",
        workflowId: "wf-signal",
        runId,
        requestId: "req-signal-1",
        signalName: "approve",
        input: [{ ok: true }],
      }),
    );
    expect(signal.status).toBe(202);
    expect(await signal.json()).toMatchObject({ result: "accepted", outcome: "signal_received" });

    await POST(
      actionRequest({ action: "terminate", workflowId: "wf-signal", runId, requestId: "req-signal-2", reason: "done" }),
    );
    const again = await POST(
      actionRequest({
        action: "startAgain",
        workflowId: "wf-signal",
        runId,
        requestId: "req-signal-3",
        newWorkflowId: "wf-signal-again",
      }),
    );
    expect(again.status).toBe(201);
    const started = await again.json();
    expect(started).toMatchObject({ result: "accepted", workflowId: "wf-signal-again", outcome: "started_new" });
    const described = await fetch(`${dwUrl}/api/workflows/wf-signal-again`, {
      headers: { authorization: "Bearer adm-token", "x-durable-workflow-control-plane-version": "2" },
    });
    expect(((await described.json()) as { input: unknown }).input).toEqual(["a", 1]);
  });

  it("relays an unknown workflow as a 404 with its reason", async () => {
    const response = await POST(
      actionRequest({
        action: "cancel",
        workflowId: "wf-missing",
        runId: "r1",
        requestId: "req-missing-1",
        reason: "x",
      }),
    );
    expect(response.status).toBe(404);
    expect((await response.json()).reason).toMatch(/not_found/);
  });
});
