import { z } from "zod";
import type { Db } from "../store/db";
import type { CommandResult, StartWorkflowInput } from "../engine";
import { encodePayload } from "../sdk/codec";
import { Worker } from "../sdk/worker";
import { startCrashingWorker } from "./crashing-worker";
import type { CrashingWorker } from "./crashing-worker";
import { loseTransport, waitForReadyTask } from "./faults";
import { defaultQueueActivities, demoWorkflows, paymentsQueueActivities } from "./workflows";
import type { Order, OrderScenario } from "./workflows";
import { at } from "../invariant";

export interface DemoFleetOptions {
  /** Server origin, e.g. `http://127.0.0.1:8080` (the `/api` prefix is added). */
  baseUrl: string;
  /** Bearer token for both planes; `workerToken` / `operatorToken` override it per plane. */
  token?: string;
  workerToken?: string;
  operatorToken?: string;
  namespace?: string;
  /** The server's SQLite handle, needed only for the lost-transport fault injection. */
  db?: Db;
  /** Fallback for starting runs when the control plane has no `POST /api/workflows`. */
  engine?: { startWorkflow(input: StartWorkflowInput): CommandResult };
  /** Milliseconds between trickle orders (default 4000; 0 disables the trickle). */
  trickleMs?: number;
  /**
   * Milliseconds between further lost-transport injections (default 60000; 0: only the seeded
   * one). A new run loses its transport only once the previous one was repaired (by an operator,
   * or within seconds by the server's automatic repair pass), so one stays on screen.
   */
  lostTransportEveryMs?: number;
  /** How long the lost-transport restock run sleeps before its last step (default 120 s). */
  restockSleepSeconds?: number;
  log?: (line: string) => void;
}

export interface DemoFleet {
  /** Run ids of the seeded scenarios, by scenario name. */
  readonly seeded: Record<string, { workflowId: string; runId: string | null }>;
  readonly crashingWorker: CrashingWorker;
  stop(): Promise<void>;
}

const startResponseSchema = z
  .object({ workflow_id: z.string(), run_id: z.string().nullish(), outcome: z.string().nullish() })
  .loose();

export interface StartRequest {
  workflowId: string;
  workflowType: string;
  taskQueue?: string;
  args: unknown[];
  businessKey?: string;
  executionTimeoutSeconds?: number;
}

/** Starts runs through `POST /api/workflows`, or the engine when the control plane lacks the route. */
export function createStarter(
  opts: DemoFleetOptions,
): (req: StartRequest) => Promise<{ workflowId: string; runId: string | null }> {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const token = opts.operatorToken ?? opts.token;
  let httpAvailable = true;
  return async (req) => {
    const input = encodePayload(req.args);
    if (httpAvailable) {
      const res = await fetch(`${base}/api/workflows`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Durable-Workflow-Control-Plane-Version": "2",
          ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          workflow_id: req.workflowId,
          workflow_type: req.workflowType,
          task_queue: req.taskQueue ?? "default",
          input,
          ...(req.businessKey ? { business_key: req.businessKey } : {}),
          ...(req.executionTimeoutSeconds ? { execution_timeout_seconds: req.executionTimeoutSeconds } : {}),
        }),
      });
      if (res.status !== 404 && res.status !== 405) {
        const body: unknown = await res.json();
        if (!res.ok)
          throw new Error(
            `start ${req.workflowType} ${req.workflowId}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`,
          );
        const parsed = startResponseSchema.parse(body);
        return { workflowId: parsed.workflow_id, runId: parsed.run_id ?? null };
      }
      httpAvailable = false;
    }
    if (!opts.engine) throw new Error("the server has no POST /api/workflows and no engine was given to start runs");
    const result = opts.engine.startWorkflow({
      namespace: opts.namespace ?? "default",
      workflow_id: req.workflowId,
      workflow_type: req.workflowType,
      task_queue: req.taskQueue ?? "default",
      input,
      business_key: req.businessKey ?? null,
      execution_timeout_seconds: req.executionTimeoutSeconds ?? null,
    });
    return { workflowId: result.workflow_id, runId: result.run_id };
  };
}

const CUSTOMERS = ["ada", "grace", "linus", "margaret", "ken", "barbara", "edsger", "radia", "donald", "frances"];

/** Mostly healthy traffic with the occasional retry and decline, like a real checkout. */
function trickleScenario(n: number): OrderScenario {
  const r = n % 20;
  if (r === 7 || r === 15) return "transient";
  if (r === 11) return "declined";
  return "happy";
}

/**
 * Starts the demo fleet against a running server: a crashing worker, the `default` and `payments`
 * workers, one run of every scenario the console needs to show, and a steady trickle of orders.
 */
export async function startDemoFleet(opts: DemoFleetOptions): Promise<DemoFleet> {
  const log = opts.log ?? (() => undefined);
  const workerToken = opts.workerToken ?? opts.token;
  const start = createStarter(opts);
  const suffix = Date.now().toString(36);
  const onError = (e: unknown, where: string): void =>
    log(`worker ${where} error: ${e instanceof Error ? e.message : String(e)}`);
  const seeded: DemoFleet["seeded"] = {};
  let orderCount = 0;

  const order = (scenario: OrderScenario): { workflowId: string; args: [Order] } => {
    orderCount += 1;
    const id = `order-${suffix}-${String(orderCount).padStart(4, "0")}`;
    return {
      workflowId: id,
      args: [
        {
          orderId: id,
          customer: at(CUSTOMERS, orderCount % CUSTOMERS.length),
          amountCents: 1999 + (orderCount % 7) * 1250,
          scenario,
        },
      ],
    };
  };

  // The crashing worker polls `payments` before any healthy worker does, so it wins the settlement task.
  const crashingWorker = startCrashingWorker({
    baseUrl: opts.baseUrl,
    token: workerToken,
    namespace: opts.namespace,
    taskQueue: "payments",
    workerId: `demo-crashing-worker-${suffix}`,
    log,
  });

  const defaultWorker = new Worker({
    baseUrl: opts.baseUrl,
    token: workerToken,
    namespace: opts.namespace,
    taskQueue: "default",
    workerId: `demo-worker-default-${suffix}`,
    workflows: demoWorkflows,
    activities: defaultQueueActivities,
    maxConcurrentWorkflowTasks: 8,
    maxConcurrentActivityTasks: 16,
    onError,
  });
  const paymentsWorker = new Worker({
    baseUrl: opts.baseUrl,
    token: workerToken,
    namespace: opts.namespace,
    taskQueue: "payments",
    workerId: `demo-worker-payments-${suffix}`,
    activities: paymentsQueueActivities,
    maxConcurrentActivityTasks: 4,
    onError,
  });
  await defaultWorker.start();

  const seed = async (name: string, req: StartRequest): Promise<{ workflowId: string; runId: string | null }> => {
    const started = await start(req);
    seeded[name] = started;
    log(`seeded ${name}: ${started.workflowId} (${started.runId ?? "?"})`);
    return started;
  };

  for (const scenario of ["happy", "transient", "declined", "exhausted", "slow_invoice"] as const) {
    const o = order(scenario);
    await seed(`order_${scenario}`, {
      workflowId: o.workflowId,
      workflowType: "OrderWorkflow",
      args: o.args,
      businessKey: o.args[0].customer,
    });
  }
  await seed("execution_timeout", {
    workflowId: `fulfillment-${suffix}`,
    workflowType: "FulfillmentWorkflow",
    args: [`order-${suffix}-late`],
    executionTimeoutSeconds: 20,
  });
  await seed("approval_waiting", {
    workflowId: `refund-approval-${suffix}`,
    workflowType: "RefundApprovalWorkflow",
    args: [`order-${suffix}-0001`],
  });
  await seed("approval_timeout", {
    workflowId: `refund-approval-${suffix}-auto`,
    workflowType: "RefundApprovalWorkflow",
    args: [`order-${suffix}-0002`, 30],
  });
  await seed("continue_as_new", {
    workflowId: `inventory-sync-${suffix}`,
    workflowType: "InventorySyncWorkflow",
    args: [1, 4],
  });
  await seed("parent_child", {
    workflowId: `shipment-batch-${suffix}`,
    workflowType: "ShipmentBatchWorkflow",
    args: [`batch-${suffix}`, ["parcel-a", "parcel-b", "parcel-c"]],
  });
  await seed("worker_crash", {
    workflowId: `settlement-${suffix}`,
    workflowType: "SettlementWorkflow",
    args: [`settle-${suffix}`],
  });

  // Only once the crashing worker holds the settlement attempt do healthy `payments` pollers join.
  const paymentsStarted = crashingWorker.claimed.then(
    () => paymentsWorker.start(),
    () => paymentsWorker.start(),
  );

  let restocks = 0;
  let lastLostRunId: string | null = null;
  let injecting = false;
  const injectLostTransport = async (db: Db): Promise<void> => {
    // One stuck run on screen is the point; while the last one still waits for repair, add none.
    if (injecting) return;
    if (lastLostRunId) {
      const row = db.prepare("SELECT liveness_state FROM workflow_run_summaries WHERE id = ?").get(lastLostRunId) as
        { liveness_state: string | null } | undefined;
      if (row?.liveness_state === "repair_needed") return;
    }
    injecting = true;
    try {
      await injectOne(db);
    } finally {
      injecting = false;
    }
  };
  const injectOne = async (db: Db): Promise<void> => {
    restocks += 1;
    const workflowId = restocks === 1 ? `restock-${suffix}` : `restock-${suffix}-${restocks}`;
    const restock = await start({
      workflowId,
      workflowType: "WarehouseRestockWorkflow",
      args: [`sku-${suffix}-${restocks}`, opts.restockSleepSeconds ?? 120],
    });
    if (restocks === 1) seeded.lost_transport = restock;
    if (restock.runId && (await waitForReadyTask(db, restock.runId, "timer"))) {
      const removed = loseTransport(db, restock.runId);
      lastLostRunId = restock.runId;
      log(`lost transport of ${restock.workflowId}: ${removed} task row(s) removed; it needs repair`);
    }
  };
  const db = opts.db;
  if (db) await injectLostTransport(db);
  const lostEvery = opts.lostTransportEveryMs ?? 60_000;
  const lostTimer =
    db && lostEvery > 0
      ? setInterval(() => {
          injectLostTransport(db).catch((e: unknown) =>
            log(`lost-transport injection failed: ${e instanceof Error ? e.message : String(e)}`),
          );
        }, lostEvery)
      : null;

  const trickleMs = opts.trickleMs ?? 4000;
  const trickle =
    trickleMs > 0
      ? setInterval(() => {
          const o = order(trickleScenario(orderCount));
          start({
            workflowId: o.workflowId,
            workflowType: "OrderWorkflow",
            args: o.args,
            businessKey: o.args[0].customer,
          }).catch((e: unknown) => log(`trickle start failed: ${e instanceof Error ? e.message : String(e)}`));
        }, trickleMs)
      : null;

  return {
    seeded,
    crashingWorker,
    async stop() {
      if (trickle) clearInterval(trickle);
      if (lostTimer) clearInterval(lostTimer);
      crashingWorker.stop();
      await paymentsStarted.catch(() => undefined);
      await Promise.all([
        defaultWorker.shutdown({ abortPolls: true, abortActivities: true }),
        paymentsWorker.shutdown({ abortPolls: true, abortActivities: true }),
      ]);
    },
  };
}
