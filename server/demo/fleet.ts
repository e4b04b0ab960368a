import { z } from "zod";
import type { Db } from "../store/db";
import type { CommandResult, StartWorkflowInput } from "../engine";
import { encodePayload } from "../codec/codec";
import { Worker } from "../sdk/worker";
import { startCrashingWorker } from "./crashing-worker";
import { DEMO_BUILDS, drainPreviousBuild, previousBuildWorker, promoteCurrentBuild } from "./demo-build-ids";
import { seedDemoSchedules } from "./demo-schedules";
import { DEMO_SECOND_NAMESPACE, ensureDemoNamespace } from "./demo-namespace";
import { orderSearchAttributes, registerDemoSearchAttributes } from "./demo-search-attributes";
import type { CrashingWorker } from "./crashing-worker";
import { loseTransport, waitForReadyTask } from "./faults";
import { DELIVERY_HOLD, defaultQueueActivities, demoWorkflows, paymentsQueueActivities } from "./workflows";
import type { Order, OrderScenario } from "./workflows";
import { at } from "../invariant";
import type { FleetState } from "./fleet-state";
import { loadFleetState, saveFleetState } from "./fleet-state";

export interface DemoFleetOptions {
  /** Server origin, e.g. `http://127.0.0.1:8080` (the `/api` prefix is added). */
  baseUrl: string;
  /** Bearer token for both planes; `workerToken` / `operatorToken` override it per plane. */
  token?: string;
  workerToken?: string;
  operatorToken?: string;
  /** Makes the second namespace (demo-namespace.ts); without it the fleet runs in one namespace. */
  adminToken?: string;
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
  /**
   * Where the fleet keeps what it seeded (`fleetStatePath(dataFile)`). With a saved state the fleet
   * resumes: same id suffix and worker ids, no second seeding, counters continue. Without the
   * option every start seeds afresh (tests).
   */
  statePath?: string;
  log?: (line: string) => void;
}

export interface DemoFleet {
  /** Run ids of the seeded scenarios, by scenario name. */
  readonly seeded: Record<string, { workflowId: string; runId: string | null }>;
  /** True when the fleet resumed a saved state instead of seeding. */
  readonly resumed: boolean;
  /** Null when the fleet resumed: the crash scenario plays once per data file. */
  readonly crashingWorker: CrashingWorker | null;
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
  searchAttributes?: Record<string, unknown>;
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
          ...(req.searchAttributes ? { search_attributes: req.searchAttributes } : {}),
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
      search_attributes: req.searchAttributes ?? null,
    });
    return { workflowId: result.workflow_id, runId: result.run_id };
  };
}

/**
 * Sends an update through `POST /api/workflows/{id}/update/{name}` without waiting for the handler
 * (`wait_for: accepted`): the worker answers it, and the run's history keeps the outcome.
 */
export function createUpdater(
  opts: DemoFleetOptions,
): (workflowId: string, name: string, args: unknown[]) => Promise<void> {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const token = opts.operatorToken ?? opts.token;
  return async (workflowId, name, args) => {
    const res = await fetch(
      `${base}/api/workflows/${encodeURIComponent(workflowId)}/update/${encodeURIComponent(name)}`,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Durable-Workflow-Control-Plane-Version": "2",
          ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          input: encodePayload(args),
          wait_for: "accepted",
          request_id: `seed-${workflowId}-${name}`,
        }),
      },
    );
    if (res.status !== 202 && res.status !== 200)
      throw new Error(`update ${name} ${workflowId}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
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

/** An order to start, with its search attributes (demo-search-attributes.ts). */
interface DemoOrder {
  workflowId: string;
  args: [Order];
  attributes: Record<string, unknown>;
}

/** The scenarios seeded once per data file: one run of each thing the console must show. */
async function seedScenarios(
  suffix: string,
  order: (scenario: OrderScenario) => DemoOrder,
  seed: (name: string, req: StartRequest) => Promise<unknown>,
  update: (workflowId: string, name: string, args: unknown[]) => Promise<void>,
): Promise<void> {
  for (const scenario of ["happy", "transient", "declined", "exhausted", "slow_invoice"] as const) {
    const o = order(scenario);
    await seed(`order_${scenario}`, {
      workflowId: o.workflowId,
      workflowType: "OrderWorkflow",
      args: o.args,
      businessKey: o.args[0].customer,
      searchAttributes: o.attributes,
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
  // Held until an operator sends `release`, with one completed and one non-retryably failed update.
  const hold = `delivery-hold-${suffix}`;
  await seed("updates_waiting", {
    workflowId: hold,
    workflowType: DELIVERY_HOLD.type,
    args: [`parcel-${suffix}-h1`, "12 Harbour Road, Lisbon"],
  });
  await update(hold, DELIVERY_HOLD.changeAddress, ["7 Quay Street, Porto"]);
  await update(hold, DELIVERY_HOLD.applyVoucher, ["WINTER25"]);
}

function demoWorkers(opts: DemoFleetOptions, suffix: string, onError: (e: unknown, where: string) => void) {
  const workerToken = opts.workerToken ?? opts.token;
  const defaultWorker = new Worker({
    baseUrl: opts.baseUrl,
    token: workerToken,
    namespace: opts.namespace,
    taskQueue: "default",
    // The current of the queue's two build ids (demo-build-ids.ts).
    buildId: DEMO_BUILDS.current,
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
  return { defaultWorker, paymentsWorker };
}

/** A saved state whose runs are not in this data file (replaced by hand) is not resumed. */
function stateOnThisFile(state: FleetState | null, db: Db | undefined, log: (line: string) => void): FleetState | null {
  if (!state || !db) return state;
  const ids = Object.values(state.seeded).map((run) => run.workflowId);
  const known = ids.filter((id) => db.prepare("SELECT 1 FROM workflow_instances WHERE id = ?").get(id) !== undefined);
  if (ids.length > 0 && known.length === ids.length) return state;
  log(`fleet state names runs this data file lacks (${ids.length - known.length} of ${ids.length}); seeding afresh`);
  return null;
}

/**
 * Starts the demo fleet against a running server: a crashing worker, the `default` and `payments`
 * workers, one run of every scenario the console needs to show, and a steady trickle of orders.
 * With a saved state (`opts.statePath`) it resumes instead: the same suffix and workers, nothing
 * seeded twice, and no second crashing worker (its scenario already played on this file).
 */
export async function startDemoFleet(opts: DemoFleetOptions): Promise<DemoFleet> {
  const log = opts.log ?? (() => undefined);
  const start = createStarter(opts);
  const saved = opts.statePath ? stateOnThisFile(loadFleetState(opts.statePath, log), opts.db, log) : null;
  const state: FleetState = saved ?? {
    version: 1,
    suffix: Date.now().toString(36),
    seeded: {},
    orderCount: 0,
    restocks: 0,
  };
  const { suffix, seeded } = state;
  const persist = (): void => {
    if (opts.statePath) saveFleetState(opts.statePath, state);
  };
  const onError = (e: unknown, where: string): void =>
    log(`worker ${where} error: ${e instanceof Error ? e.message : String(e)}`);

  const order = (scenario: OrderScenario): DemoOrder => {
    state.orderCount += 1;
    const n = state.orderCount;
    const id = `order-${suffix}-${String(n).padStart(4, "0")}`;
    const customer = at(CUSTOMERS, n % CUSTOMERS.length);
    const o: Order = { orderId: id, customer, amountCents: 1999 + (n % 7) * 1250, scenario };
    return { workflowId: id, args: [o], attributes: orderSearchAttributes(o, n, Date.now()) };
  };

  // The crashing worker polls `payments` before any healthy worker does, so it wins the settlement task.
  const crashingWorker = saved
    ? null
    : startCrashingWorker({
        baseUrl: opts.baseUrl,
        token: opts.workerToken ?? opts.token,
        namespace: opts.namespace,
        taskQueue: "payments",
        workerId: `demo-crashing-worker-${suffix}`,
        log,
      });
  const { defaultWorker, paymentsWorker } = demoWorkers(opts, suffix, onError);
  // Issue 43's rollout: the previous build drained before its worker registers, the current one
  // promoted once its worker heartbeats.
  const operator = { baseUrl: opts.baseUrl, token: opts.operatorToken ?? opts.token, namespace: opts.namespace };
  await drainPreviousBuild(operator);
  await defaultWorker.start();
  const previousWorker = previousBuildWorker({ ...opts, workerToken: opts.workerToken ?? opts.token }, suffix, onError);
  await previousWorker.start();
  if (!(await promoteCurrentBuild(operator))) log(`build ${DEMO_BUILDS.current} not promoted (refused)`);

  // Issue 43's custom search attributes, registered before the first order carries them.
  const attributes = await registerDemoSearchAttributes({
    baseUrl: opts.baseUrl,
    token: opts.operatorToken ?? opts.token,
    namespace: opts.namespace,
  });
  if (attributes.length > 0) log(`registered search attributes: ${attributes.join(", ")}`);

  if (saved) {
    log(`resumed fleet ${suffix}: ${Object.keys(seeded).length} scenarios seeded earlier, ${state.orderCount} orders`);
  } else {
    await seedScenarios(
      suffix,
      order,
      async (name, req) => {
        const started = await start(req);
        seeded[name] = started;
        log(`seeded ${name}: ${started.workflowId} (${started.runId ?? "?"})`);
      },
      createUpdater(opts),
    );
    persist();
  }

  // Issue 42's three schedules; kept as they are when they already exist (a resumed fleet).
  const schedules = await seedDemoSchedules({
    baseUrl: opts.baseUrl,
    token: opts.operatorToken ?? opts.token,
    namespace: opts.namespace,
  });
  if (schedules.length > 0) log(`seeded schedules: ${schedules.join(", ")}`);

  const second = await startSecondNamespace(opts, suffix, onError, log);

  // Only once the crashing worker holds the settlement attempt do healthy `payments` pollers join.
  const paymentsStarted = crashingWorker
    ? crashingWorker.claimed.then(
        () => paymentsWorker.start(),
        () => paymentsWorker.start(),
      )
    : paymentsWorker.start();

  const lost = lostTransportInjector(opts, state, start, persist, log);
  const lostTimer = await lost.start();

  const trickleMs = opts.trickleMs ?? 4000;
  const trickle =
    trickleMs > 0
      ? setInterval(() => {
          const o = order(trickleScenario(state.orderCount));
          persist();
          start({
            workflowId: o.workflowId,
            workflowType: "OrderWorkflow",
            args: o.args,
            businessKey: o.args[0].customer,
            searchAttributes: o.attributes,
          }).catch((e: unknown) => log(`trickle start failed: ${e instanceof Error ? e.message : String(e)}`));
        }, trickleMs)
      : null;

  return {
    seeded,
    resumed: saved !== null,
    crashingWorker,
    async stop() {
      if (trickle) clearInterval(trickle);
      if (lostTimer) clearInterval(lostTimer);
      crashingWorker?.stop();
      await paymentsStarted.catch(() => undefined);
      await Promise.all([
        defaultWorker.shutdown({ abortPolls: true, abortActivities: true }),
        previousWorker.shutdown({ abortPolls: true, abortActivities: true }),
        paymentsWorker.shutdown({ abortPolls: true, abortActivities: true }),
        ...second.map((w) => w.shutdown({ abortPolls: true, abortActivities: true })),
      ]);
    },
  };
}

/**
 * The second namespace with its own workers; four orders the first time it is made (a restart keeps
 * the ones it has). Its runs carry no search attributes: those are registered per namespace.
 */
async function startSecondNamespace(
  opts: DemoFleetOptions,
  suffix: string,
  onError: (e: unknown, where: string) => void,
  log: (line: string) => void,
): Promise<Worker[]> {
  const ns = await ensureDemoNamespace({ baseUrl: opts.baseUrl, adminToken: opts.adminToken, log });
  if (!ns.exists) return [];
  const inNamespace = { ...opts, namespace: DEMO_SECOND_NAMESPACE.name };
  const { defaultWorker, paymentsWorker } = demoWorkers(
    inNamespace,
    `${suffix}-${DEMO_SECOND_NAMESPACE.name}`,
    onError,
  );
  await Promise.all([defaultWorker.start(), paymentsWorker.start()]);
  if (ns.created) {
    const start = createStarter(inNamespace);
    const scenarios: OrderScenario[] = ["happy", "happy", "declined", "happy"];
    for (const [i, scenario] of scenarios.entries()) {
      const id = `invoice-${suffix}-${i + 1}`;
      const o: Order = { orderId: id, customer: at(CUSTOMERS, i), amountCents: 12_000 + i * 250, scenario };
      await start({ workflowId: id, workflowType: "OrderWorkflow", args: [o], businessKey: o.customer }).catch(
        (e: unknown) =>
          log(`${DEMO_SECOND_NAMESPACE.name} start failed: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    log(`second namespace ${DEMO_SECOND_NAMESPACE.name}: made, ${scenarios.length} orders started`);
  }
  return [defaultWorker, paymentsWorker];
}

/** One run with lost transport on screen at a time: a new one only once the last was repaired. */
function lostTransportInjector(
  opts: DemoFleetOptions,
  state: FleetState,
  start: ReturnType<typeof createStarter>,
  persist: () => void,
  log: (line: string) => void,
): { start(): Promise<ReturnType<typeof setInterval> | null> } {
  let lastLostRunId: string | null = null;
  let injecting = false;
  const injectOne = async (db: Db): Promise<void> => {
    state.restocks += 1;
    persist();
    const n = state.restocks;
    const workflowId = n === 1 ? `restock-${state.suffix}` : `restock-${state.suffix}-${n}`;
    const restock = await start({
      workflowId,
      workflowType: "WarehouseRestockWorkflow",
      args: [`sku-${state.suffix}-${n}`, opts.restockSleepSeconds ?? 120],
    });
    if (n === 1) {
      state.seeded.lost_transport = restock;
      persist();
    }
    if (restock.runId && (await waitForReadyTask(db, restock.runId, "timer"))) {
      const removed = loseTransport(db, restock.runId);
      lastLostRunId = restock.runId;
      log(`lost transport of ${restock.workflowId}: ${removed} task row(s) removed; it needs repair`);
    }
  };
  const inject = async (db: Db): Promise<void> => {
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
  return {
    async start() {
      const db = opts.db;
      if (!db) return null;
      const report = (e: unknown): void =>
        log(`lost-transport injection failed: ${e instanceof Error ? e.message : String(e)}`);
      await inject(db);
      const every = opts.lostTransportEveryMs ?? 60_000;
      return every > 0 ? setInterval(() => void inject(db).catch(report), every) : null;
    },
  };
}
