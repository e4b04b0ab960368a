import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDwClient } from "@/lib/dw/client";
import type { DwCommandClient } from "@/lib/dw/commands";
import { historyTokenAfter } from "@/lib/dw/transport";
import { RunDerivation } from "@/lib/views/run-derivation";
import { systemClock } from "@/server/clock";
import { ScriptedWorker, startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * The run view's updates and exceptions over the twin's real history (HTTP, a SQLite file): updates
 * sent with the console's command client, answered by a scripted worker, read back in small pages
 * through the fold the run page streams, so a row's events may sit on different pages.
 */

let server: EmbeddedServer;
let client: DwCommandClient;
let worker: ScriptedWorker;

beforeAll(async () => {
  server = await startEmbeddedServer({
    clock: systemClock,
    auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token", DW_WORKER_TOKEN: "wrk-token" }),
  });
  client = createDwClient({ baseUrl: server.url, token: "adm-token", namespace: "default" });
  worker = new ScriptedWorker(server.url, "updates-view-worker", "q", "wrk-token");
  await worker.register();
});

afterAll(async () => {
  await server.close();
});

/** Every page of the run's history, three events at a time, through the fold. */
async function derive(workflowId: string, runId: string) {
  const derivation = new RunDerivation();
  for (let after = 0; ;) {
    const page = await client.getHistory(workflowId, runId, {
      pageSize: 3,
      nextPageToken: after > 0 ? historyTokenAfter(after) : null,
    });
    derivation.add(page.events);
    const last = page.events.at(-1);
    if (!last || !page.next_page_token) break;
    after = last.sequence;
  }
  return derivation.snapshot();
}

describe("updates in the run view, from the twin's history", () => {
  it("a completed, a non-retryably failed and a refused update, each in its state; the failure an exception of its update", async () => {
    const started = await client.startWorkflow({ workflow_type: "OpsTest", workflow_id: "upd-view", task_queue: "q" });
    const runId = started.body.run_id as string;
    const first = await worker.mustPollWorkflow();
    await worker.completeWorkflow(first, [{ type: "open_signal_wait", signal_name: "finish" }]);

    const send = (name: string, input: unknown[]) =>
      client.updateWorkflow("upd-view", name, { runId, input, requestId: `req-${name}` });
    const approve = await send("approve", [3]);
    const approveTask = await worker.mustPollWorkflow();
    await worker.completeWorkflow(approveTask, [
      { type: "complete_update", update_id: approve.body.update_id, result: { codec: "json", blob: '"ok"' } },
    ]);
    const voucher = await send("voucher", ["WINTER25"]);
    const voucherTask = await worker.mustPollWorkflow();
    await worker.completeWorkflow(voucherTask, [
      {
        type: "fail_update",
        update_id: voucher.body.update_id,
        message: "voucher WINTER25 expired",
        exception_type: "VoucherExpired",
        non_retryable: true,
      },
    ]);
    await client.terminateWorkflow("upd-view", { runId, reason: "done" });
    const late = await send("approve-late", []);
    expect(late).toMatchObject({ kind: "rejected", httpStatus: 409 });

    const snapshot = await derive("upd-view", runId);
    expect(snapshot.updates?.map((row) => [row.name, row.state, row.updateId])).toEqual([
      ["approve", "completed", approve.body.update_id],
      ["voucher", "failed", voucher.body.update_id],
      ["approve-late", "rejected", late.body.update_id],
    ]);
    const [, failed, refused] = snapshot.updates ?? [];
    expect(failed?.failure).toMatchObject({
      category: "application",
      nonRetryable: true,
      exceptionType: "VoucherExpired",
    });
    // The reason and the sender come from the command snapshot on the event, as the engine records them.
    expect(refused).toMatchObject({
      rejection: "run_closed",
      rejectionReason: "run_not_active",
      failure: null,
      sender: { requestId: "req-approve-late" },
    });
    expect(failed?.sender?.requestId).toBe("req-voucher");
    const updateFailures = snapshot.exceptions.filter((row) => row.update !== null);
    expect(updateFailures).toEqual([
      expect.objectContaining({
        update: "voucher",
        propagationKind: "update",
        category: "application",
        nonRetryable: true,
        message: "voucher WINTER25 expired",
      }),
    ]);
  });
});
