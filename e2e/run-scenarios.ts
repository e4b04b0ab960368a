import { ApplicationError, defineActivity, NonRetryableError } from "../server/sdk/activity";
import { Worker } from "../server/sdk/worker";
import { defineWorkflow } from "../server/sdk/workflow";

/**
 * Runs the e2e scenarios over the real worker protocol: a TypeScript SDK worker polls the embedded
 * server, so every failure the run-detail screens show was recorded by the engine, not faked.
 *  - a payment declined by a non-retryable error (the run fails at once, `non_retryable = true`);
 *  - a stock reservation that fails twice with a retryable error, backs off, then succeeds.
 * The server accepts ids of `[a-zA-Z0-9._:-]` only; `:` and `.` still exercise route encoding.
 */

export const TASK_QUEUE = "e2e-orders";
export const SCENARIO_IDS = {
  declined: "order:42.declined",
  retried: "order:43.retried",
  quick: "order:44.quick",
  bulk: "order:45.bulk",
} as const;

/** Activities the bulk scenario runs in parallel: over 900 history events, far more rows than the DOM may hold. */
export const BULK_ACTIVITIES = 300;

class PaymentDeclined extends NonRetryableError {}

const chargeCard = defineActivity("ChargeCard", async () => {
  throw new PaymentDeclined("Card was declined by the issuer (insufficient funds).");
});

const reserveStock = defineActivity("ReserveStock", async (ctx) => {
  if (ctx.attempt < 3) throw new ApplicationError(`Warehouse busy on attempt ${ctx.attempt}.`, "WarehouseBusy");
  return { reserved: true, attempt: ctx.attempt };
});

const checkout = defineWorkflow("CheckoutWorkflow", function* (ctx) {
  return yield ctx.activity("ChargeCard", [{ amountCents: 4200 }]);
});

const reserve = defineWorkflow("ReserveWorkflow", function* (ctx) {
  return yield ctx.activity("ReserveStock", ["sku-1"], { tries: 3, backoff: [1, 1] });
});

const quick = defineWorkflow("QuickWorkflow", function* () {
  return { ok: true };
});

const pick = defineActivity("PickItem", async (_ctx, index) => ({ picked: index }));

const bulk = defineWorkflow("BulkPickWorkflow", function* (ctx) {
  const picks = Array.from({ length: BULK_ACTIVITIES }, (_, i) => ctx.activity("PickItem", [i]));
  const results = yield ctx.all(picks);
  return { picked: Array.isArray(results) ? results.length : 0 };
});

export interface ScenarioServer {
  baseUrl: string;
  adminToken: string;
  workerToken: string;
}

async function startWorkflow(
  server: ScenarioServer,
  workflowType: string,
  workflowId: string,
  input: unknown[],
  taskQueue = TASK_QUEUE,
): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/workflows`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${server.adminToken}`,
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
    body: JSON.stringify({
      workflow_type: workflowType,
      workflow_id: workflowId,
      task_queue: taskQueue,
      input,
      business_key: `bk-${workflowType}`,
      memo: { source: "e2e" },
      duplicate_policy: "use-existing",
    }),
  });
  const body = (await response.json()) as { run_id?: string; outcome?: string };
  // A re-run finds the instance already started (409 rejected_duplicate): its run is the one wanted.
  const known = response.ok || (response.status === 409 && body.outcome === "rejected_duplicate");
  if (!known || !body.run_id) throw new Error(`start ${workflowId} failed: ${response.status} ${JSON.stringify(body)}`);
  return body.run_id;
}

async function runStatus(server: ScenarioServer, workflowId: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/workflows/${encodeURIComponent(workflowId)}`, {
    headers: {
      Authorization: `Bearer ${server.adminToken}`,
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
  });
  const body = (await response.json()) as { status?: string };
  return body.status ?? "unknown";
}

const TERMINAL = new Set(["completed", "failed", "cancelled", "terminated"]);

/** Starts the scenarios, works them to completion with an SDK worker, and returns their run ids. */
export async function runScenarios(
  server: ScenarioServer,
  timeoutMs = 30_000,
): Promise<Record<keyof typeof SCENARIO_IDS, string>> {
  const worker = new Worker({
    baseUrl: server.baseUrl,
    token: server.workerToken,
    namespace: "default",
    taskQueue: TASK_QUEUE,
    workflows: [checkout, reserve, quick, bulk],
    activities: [chargeCard, reserveStock, pick],
    maxConcurrentActivityTasks: 20,
    pollers: 4,
  });
  await worker.start();
  try {
    const runs = {
      declined: await startWorkflow(server, "CheckoutWorkflow", SCENARIO_IDS.declined, [{ orderId: 42 }]),
      retried: await startWorkflow(server, "ReserveWorkflow", SCENARIO_IDS.retried, [{ orderId: 43 }]),
      quick: await startWorkflow(server, "QuickWorkflow", SCENARIO_IDS.quick, []),
      bulk: await startWorkflow(server, "BulkPickWorkflow", SCENARIO_IDS.bulk, []),
    };
    const deadline = Date.now() + timeoutMs;
    for (const id of Object.values(SCENARIO_IDS)) {
      while (!TERMINAL.has(await runStatus(server, id))) {
        if (Date.now() > deadline) throw new Error(`scenario ${id} did not finish within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    return runs;
  } finally {
    // Worker.shutdown waits out an open long-poll (~30 s); the specs need not wait for it.
    void worker.shutdown({ abortActivities: true });
  }
}

let cached: Promise<Record<keyof typeof SCENARIO_IDS, string>> | null = null;

/** The scenarios against the e2e server, run once per worker process (starts are idempotent). */
export function e2eScenarios(): Promise<Record<keyof typeof SCENARIO_IDS, string>> {
  const host = process.env.E2E_DW_HOST;
  if (!host) throw new Error("E2E_DW_HOST is not set: no Durable Workflow server for e2e");
  cached ??= runScenarios({
    baseUrl: `http://${host}`,
    adminToken: process.env.E2E_TOKEN ?? "",
    workerToken: process.env.E2E_WORKER_TOKEN ?? "",
  });
  return cached;
}

/** Starts a workflow no worker serves, so it stays open: a run that appears while a list is shown. */
export async function startIdleWorkflow(workflowId: string): Promise<string> {
  const host = process.env.E2E_DW_HOST ?? "";
  return startWorkflow(
    { baseUrl: `http://${host}`, adminToken: process.env.E2E_TOKEN ?? "", workerToken: "" },
    "IdleWorkflow",
    workflowId,
    [],
    "e2e-idle",
  );
}

/** The continue-as-new chain: one instance whose runs 1 and 2 continued as new and run 3 completed. */
export const CHAIN_ID = "order:46.chain";
export const CHAIN_RUNS = 3;
const CHAIN_QUEUE = "e2e-chains";

const chainPage = defineActivity("SyncOrderPage", async (_ctx, round) => ({ page: round }));

const chain = defineWorkflow("OrderSyncWorkflow", function* (ctx, round) {
  yield ctx.activity("SyncOrderPage", [round]);
  if (typeof round === "number" && round < CHAIN_RUNS) return ctx.continueAsNew([round + 1]);
  return { rounds: round };
});

async function chainRuns(server: ScenarioServer): Promise<{ run_id: string; run_number: number; status: string }[]> {
  const response = await fetch(`${server.baseUrl}/api/workflows/${encodeURIComponent(CHAIN_ID)}/runs`, {
    headers: {
      Authorization: `Bearer ${server.adminToken}`,
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
  });
  if (!response.ok) return [];
  const body = (await response.json()) as { runs?: { run_id: string; run_number: number; status: string }[] };
  return body.runs ?? [];
}

/** Runs the chain to its completed third run with its own worker and queue; returns run ids by run number (index 0 = run 1). */
export async function runContinueAsNewScenario(server: ScenarioServer, timeoutMs = 30_000): Promise<string[]> {
  const worker = new Worker({
    baseUrl: server.baseUrl,
    token: server.workerToken,
    namespace: "default",
    taskQueue: CHAIN_QUEUE,
    workflows: [chain],
    activities: [chainPage],
  });
  await worker.start();
  try {
    await startWorkflow(server, "OrderSyncWorkflow", CHAIN_ID, [1], CHAIN_QUEUE);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const runs = await chainRuns(server);
      const last = runs.find((run) => run.run_number === CHAIN_RUNS);
      if (runs.length === CHAIN_RUNS && last && TERMINAL.has(last.status)) {
        return [...runs].sort((a, b) => a.run_number - b.run_number).map((run) => run.run_id);
      }
      if (Date.now() > deadline) throw new Error(`${CHAIN_ID} did not reach run ${CHAIN_RUNS} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    void worker.shutdown({ abortActivities: true });
  }
}

let chainCached: Promise<string[]> | null = null;

/** The continue-as-new chain against the e2e server, run once per worker process. */
export function e2eContinueAsNew(): Promise<string[]> {
  const host = process.env.E2E_DW_HOST;
  if (!host) throw new Error("E2E_DW_HOST is not set: no Durable Workflow server for e2e");
  chainCached ??= runContinueAsNewScenario({
    baseUrl: `http://${host}`,
    adminToken: process.env.E2E_TOKEN ?? "",
    workerToken: process.env.E2E_WORKER_TOKEN ?? "",
  });
  return chainCached;
}
