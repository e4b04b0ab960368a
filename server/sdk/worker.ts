import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { WorkerClient, WorkerProtocolError } from "./client";
import {
  activityPollResponseSchema,
  heartbeatResponseSchema,
  queryPollResponseSchema,
  registerResponseSchema,
  workflowPollResponseSchema,
} from "./protocol";
import type { ActivityTask, QueryTask, WorkflowTask } from "./protocol";
import { runActivityTask, runQueryTask, runWorkflowTask } from "./worker-tasks";
import type { TaskRunContext, WorkerStats } from "./worker-tasks";
import type { ActivityDefinition } from "./activity";
import type { WorkflowDefinition } from "./workflow";

export type { WorkerStats } from "./worker-tasks";

export interface WorkerOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
  taskQueue: string;
  workerId?: string;
  buildId?: string;
  workflows?: WorkflowDefinition[];
  activities?: ActivityDefinition[];
  maxConcurrentWorkflowTasks?: number;
  maxConcurrentActivityTasks?: number;
  /** Long-polls kept open per task kind (bounded by the concurrency limit). */
  pollers?: number;
  /** Liveness heartbeat to `POST /worker/heartbeat` (default 30 000 ms; 0 disables). */
  heartbeatIntervalMs?: number;
  /** Called for every error the loops survive (bad responses, transient network errors); default: console.error. */
  onError?: (error: unknown, where: string) => void;
}

const SDK_VERSION = "0.1.0";
const POLL_TIMEOUT_MS = 40_000;
const RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 5_000;

/** Counting semaphore: a poll is only sent while a slot is free, so a claimed task always runs. */
class Slots {
  private used = 0;
  private waiters: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.used -= 1;
  }
}

/**
 * Polls one task queue for workflow and activity tasks and runs them. `start()` registers the
 * worker and starts the loops; `shutdown()` stops polling, lets in-flight tasks finish and
 * resolves when they have.
 */
export class Worker {
  readonly workerId: string;
  readonly stats: WorkerStats = {
    workflowTasksCompleted: 0,
    workflowTasksFailed: 0,
    workflowTasksWithoutProgress: 0,
    activitiesCompleted: 0,
    activitiesFailed: 0,
    staleReports: 0,
    queriesAnswered: 0,
    queriesFailed: 0,
    updatesCompleted: 0,
    updatesFailed: 0,
  };
  private readonly client: WorkerClient;
  private readonly workflows: Map<string, WorkflowDefinition>;
  private readonly activities: Map<string, ActivityDefinition>;
  private readonly stopPolling = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly activityAborts = new Set<AbortController>();
  private loops: Promise<void>[] = [];
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private queryTasksUnsupported = false;
  private readonly tasks: TaskRunContext;

  constructor(private readonly opts: WorkerOptions) {
    this.workerId = opts.workerId ?? `ts-${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.client = new WorkerClient({ baseUrl: opts.baseUrl, token: opts.token, namespace: opts.namespace });
    this.workflows = new Map((opts.workflows ?? []).map((w) => [w.name, w]));
    this.activities = new Map((opts.activities ?? []).map((a) => [a.name, a]));
    // Every outstanding long-poll listens for shutdown: more than 10 pollers is not a leak.
    setMaxListeners(0, this.stopPolling.signal);
    this.tasks = {
      client: this.client,
      workerId: this.workerId,
      workflows: this.workflows,
      activities: this.activities,
      stats: this.stats,
      activityAborts: this.activityAborts,
    };
  }

  async start(): Promise<void> {
    await this.register();
    const interval = this.opts.heartbeatIntervalMs ?? 30_000;
    if (interval > 0) {
      this.heartbeatTimer = setInterval(() => void this.heartbeat(), interval);
      this.heartbeatTimer.unref();
    }
    const maxWf = this.opts.maxConcurrentWorkflowTasks ?? 10;
    const maxAct = this.opts.maxConcurrentActivityTasks ?? 10;
    const pollers = this.opts.pollers ?? 2;
    if (this.workflows.size > 0) {
      const slots = new Slots(maxWf);
      for (let i = 0; i < Math.min(pollers, maxWf); i++)
        this.loops.push(
          this.loop(
            slots,
            () => this.pollWorkflowTask(),
            (t) => runWorkflowTask(this.tasks, t),
          ),
        );
    }
    if (this.workflows.size > 0) {
      // One query poller: a query is a replay and a handler call, answered in milliseconds.
      this.loops.push(
        this.loop(
          new Slots(1),
          () => this.pollQueryTask(),
          (t) => runQueryTask(this.tasks, t),
          () => !this.queryTasksUnsupported,
        ),
      );
    }
    if (this.activities.size > 0) {
      const slots = new Slots(maxAct);
      for (let i = 0; i < Math.min(pollers, maxAct); i++)
        this.loops.push(
          this.loop(
            slots,
            () => this.pollActivityTask(),
            (t) => runActivityTask(this.tasks, t),
          ),
        );
    }
  }

  private async register(): Promise<void> {
    await this.client.post(
      "/register",
      {
        worker_id: this.workerId,
        task_queue: this.opts.taskQueue,
        runtime: "typescript",
        sdk_version: SDK_VERSION,
        ...(this.opts.buildId ? { build_id: this.opts.buildId } : {}),
        supported_workflow_types: [...this.workflows.keys()],
        supported_activity_types: [...this.activities.keys()],
        max_concurrent_workflow_tasks: this.opts.maxConcurrentWorkflowTasks ?? 10,
        max_concurrent_activity_tasks: this.opts.maxConcurrentActivityTasks ?? 10,
        ...this.commandContracts(),
      },
      registerResponseSchema,
    );
  }

  /** The declared contracts, per workflow type, of the definitions that declare one (WorkflowDefinition `contract`). */
  private commandContracts(): { workflow_command_contracts?: Record<string, Record<string, unknown>> } {
    const contracts: Record<string, Record<string, unknown>> = {};
    for (const [name, definition] of this.workflows) {
      const c = definition.contract;
      if (!c) continue;
      const named = (names: readonly string[]) => [...names].sort().map((n) => ({ name: n, parameters: [] }));
      contracts[name] = {
        queries: [...c.queries].sort(),
        query_contracts: named(c.queries),
        signals: [...c.signals].sort(),
        signal_contracts: named(c.signals),
        updates: [...(c.updates ?? [])].sort(),
        update_contracts: named(c.updates ?? []),
        update_validators: [],
      };
    }
    return Object.keys(contracts).length > 0 ? { workflow_command_contracts: contracts } : {};
  }

  /** A server that forgot this worker (restart, expiry) answers 404 `worker_not_registered`: register again. */
  private async heartbeat(): Promise<void> {
    try {
      await this.client.post("/heartbeat", { worker_id: this.workerId }, heartbeatResponseSchema);
    } catch (e) {
      if (e instanceof WorkerProtocolError && e.reason === "worker_not_registered")
        await this.register().catch((err: unknown) => this.report(err, "register"));
      else this.report(e, "heartbeat");
    }
  }

  /**
   * Stops polling and waits for in-flight tasks. Outstanding long-polls are allowed to return
   * (at most the server's long-poll timeout) so a task the server hands out meanwhile still runs;
   * `abortPolls` cuts them short instead, and a task claimed by a cut poll is redelivered after
   * its lease expires. With `abortActivities`, running activities see `ctx.signal` abort (they
   * still report whatever they end with).
   */
  async shutdown(opts: { abortPolls?: boolean; abortActivities?: boolean } = {}): Promise<void> {
    this.stopping = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (opts.abortPolls) this.stopPolling.abort();
    if (opts.abortActivities) for (const a of this.activityAborts) a.abort();
    await Promise.allSettled(this.loops);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.client.close();
  }

  private async loop<T>(
    slots: Slots,
    poll: () => Promise<T | null>,
    run: (task: T) => Promise<void>,
    alive: () => boolean = () => true,
  ): Promise<void> {
    let failures = 0;
    while (!this.stopping && alive()) {
      await slots.acquire();
      if (this.stopping) {
        slots.release();
        return;
      }
      let task: T | null = null;
      try {
        task = await poll();
        failures = 0;
      } catch (e) {
        if (!this.stopping) {
          // Back off while the server is unreachable or refusing, instead of spinning on it.
          failures += 1;
          this.report(e, "poll");
          await new Promise((r) => setTimeout(r, Math.min(RETRY_DELAY_MS * 2 ** (failures - 1), MAX_RETRY_DELAY_MS)));
        }
      }
      if (task === null) {
        slots.release();
        continue;
      }
      const p = run(task)
        .catch((e: unknown) => this.report(e, "task"))
        .finally(() => {
          slots.release();
          this.inFlight.delete(p);
        });
      this.inFlight.add(p);
    }
  }

  private report(e: unknown, where: string): void {
    if (this.opts.onError) this.opts.onError(e, where);
    else console.error(`[worker ${this.workerId}] ${where}:`, e);
  }

  /**
   * One long-poll, cut short by shutdown (with `abortPolls`) or a client-side timeout beyond the
   * server's hold. A plain controller and timer: AbortSignal.any/timeout cost more per poll than
   * the rest of the request at high task rates.
   */
  private async withPollSignal<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const onStop = (): void => abort.abort();
    this.stopPolling.signal.addEventListener("abort", onStop);
    const timer = setTimeout(onStop, POLL_TIMEOUT_MS);
    try {
      return await fn(abort.signal);
    } finally {
      clearTimeout(timer);
      this.stopPolling.signal.removeEventListener("abort", onStop);
    }
  }

  private pollBody(): Record<string, string> {
    return {
      worker_id: this.workerId,
      task_queue: this.opts.taskQueue,
      ...(this.opts.buildId ? { build_id: this.opts.buildId } : {}),
    };
  }

  private async pollWorkflowTask(): Promise<WorkflowTask | null> {
    const res = await this.withPollSignal((signal) =>
      this.client.post("/workflow-tasks/poll", this.pollBody(), workflowPollResponseSchema, signal),
    );
    return res.task;
  }

  private async pollActivityTask(): Promise<ActivityTask | null> {
    const res = await this.withPollSignal((signal) =>
      this.client.post("/activity-tasks/poll", this.pollBody(), activityPollResponseSchema, signal),
    );
    return res.task;
  }

  private async pollQueryTask(): Promise<QueryTask | null> {
    try {
      const res = await this.withPollSignal((signal) =>
        this.client.post("/query-tasks/poll", this.pollBody(), queryPollResponseSchema, signal),
      );
      return res.task;
    } catch (e) {
      // A server without query tasks (404 route): stop asking rather than back off forever.
      if (e instanceof WorkerProtocolError && e.status === 404 && e.reason !== "worker_not_registered") {
        this.queryTasksUnsupported = true;
        return null;
      }
      throw e;
    }
  }
}
