import { test } from "@playwright/test";
import { issueRefund, refundApprovalWorkflow } from "../server/demo/workflows";
import type { WorkerOptions } from "../server/sdk/worker";
import { Worker } from "../server/sdk/worker";
import { dwBaseUrl, dwPost, liveness, waitFor } from "./operator-fixtures";

/**
 * A real SDK worker on the embedded server serving `queue` for the spec file's tests: started before
 * them, shut down after. Without a server the specs fail (dwBaseUrl throws); they never skip.
 */
export function withSdkWorker(
  queue: string,
  workflows: WorkerOptions["workflows"],
  activities: WorkerOptions["activities"],
): void {
  let worker: Worker | undefined;

  test.beforeAll(async () => {
    worker = new Worker({
      baseUrl: dwBaseUrl(),
      token: process.env.E2E_WORKER_TOKEN ?? "",
      namespace: "default",
      taskQueue: queue,
      workerId: `${queue}-${process.pid}`,
      workflows,
      activities,
    });
    await worker.start();
  });

  test.afterAll(async () => {
    await worker?.shutdown({ abortActivities: true });
  });
}

/**
 * Runs of the demo's RefundApprovalWorkflow (server/demo/workflows.ts) waiting for `approve`: the
 * signal specs' shared setup.
 */
export function withApprovalWorker(queue: string): void {
  withSdkWorker(queue, [refundApprovalWorkflow], [issueRefund]);
}

/** Starts one run on `queue` and returns its run id once it waits for the `approve` signal. */
export async function approvalRun(workflowId: string, queue: string): Promise<string> {
  const { status, body } = await dwPost("/workflows", {
    workflow_type: "RefundApprovalWorkflow",
    workflow_id: workflowId,
    task_queue: queue,
    input: [`order-${workflowId}`],
    duplicate_policy: "fail",
  });
  if (status >= 300 || typeof body.run_id !== "string") throw new Error(`start: HTTP ${status}`);
  const runId = body.run_id;
  await waitFor(
    `${workflowId} to wait for approve`,
    async () => (await liveness(workflowId, runId)) === "waiting_for_signal",
  );
  return runId;
}
