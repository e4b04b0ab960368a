import { afterAll, describe, expect, it } from "vitest";
import { crashHarness } from "../test-support/crash-server";

/**
 * A cancellation request the server acknowledged survives kill -9: after a restart on the same file
 * a repeat returns the original request and deadline, history holds it once, and the restarted
 * server's sweep still closes the run at that deadline. A real process, so real time with bounded waits
 * (as crash-safety.test.ts).
 */
const WORKER = "cancel-crash-worker-token";
const OPERATOR = "cancel-crash-operator-token";
const { launch, cleanup } = crashHarness("bw-cancel-crash", {
  DW_WORKER_TOKEN: WORKER,
  DW_OPERATOR_TOKEN: OPERATOR,
  DW_AUTO_REPAIR: "0",
});

afterAll(cleanup);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function post(url: string, path: string, body: unknown, worker = false): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (worker) {
    headers["x-durable-workflow-protocol-version"] = "1.20";
    headers.authorization = `Bearer ${WORKER}`;
  } else {
    headers["x-durable-workflow-control-plane-version"] = "2";
    headers.authorization = `Bearer ${OPERATOR}`;
  }
  const res = await fetch(`${url}/api${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Json };
}

async function events(url: string, wid: string, runId: string): Promise<string[]> {
  const res = await fetch(`${url}/api/workflows/${wid}/runs/${runId}/history?page_size=500`, {
    headers: { "x-durable-workflow-control-plane-version": "2", authorization: `Bearer ${OPERATOR}` },
  });
  return ((await res.json()) as Json).events.map((e: Json) => e.event_type as string);
}

describe("cancellation crash safety", () => {
  it("keeps an acknowledged request and its deadline across SIGKILL", { timeout: 60_000 }, async () => {
    let server = await launch();
    const started = await post(server.url, "/workflows", {
      workflow_id: "crash-cancel",
      workflow_type: "crash.cleanup",
      task_queue: "crash",
    });
    expect(started.status).toBe(201);
    const runId = String(started.body.run_id);
    await post(server.url, "/worker/register", { worker_id: "w", task_queue: "crash", runtime: "typescript" }, true);
    const poll = await post(server.url, "/worker/workflow-tasks/poll", { worker_id: "w", task_queue: "crash" }, true);
    const task = poll.body.task as Json;
    const parked = await post(
      server.url,
      `/worker/workflow-tasks/${task.task_id}/complete`,
      {
        lease_owner: task.lease_owner,
        workflow_task_attempt: task.workflow_task_attempt,
        commands: [{ type: "start_timer", delay_seconds: 300 }],
      },
      true,
    );
    expect(parked.status).toBe(200);

    const accepted = await post(server.url, "/workflows/crash-cancel/request-cancellation", {
      cleanup_timeout_seconds: 3,
    });
    expect(accepted.status).toBe(202);
    server.child.kill("SIGKILL");
    await new Promise((r) => server.child.once("exit", r));

    server = await launch();
    const repeat = await post(server.url, "/workflows/crash-cancel/request-cancellation", {});
    expect(repeat.status).toBe(200);
    expect(repeat.body.duplicate).toBe(true);
    expect(repeat.body.cancellation_request).toEqual(accepted.body.cancellation_request);
    expect(
      (await events(server.url, "crash-cancel", runId)).filter((t) => t === "CooperativeCancellationRequested"),
    ).toHaveLength(1);

    // The restarted server's own sweep closes the run at the original deadline (bounded wait).
    const until = Date.now() + 20_000;
    let kinds: string[] = [];
    while (Date.now() < until) {
      kinds = await events(server.url, "crash-cancel", runId);
      if (kinds.includes("WorkflowCancelled")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(kinds.slice(-2)).toEqual(["TimerCancelled", "WorkflowCancelled"]);
  });
});
