import { EventEmitter } from "node:events";
import type { Clock } from "../clock";
import { isoMicros } from "../clock";
import { newId } from "../ids";
import type { Db } from "../store/db";
import { WORKER_STALE_AFTER_MS } from "./metric-facts";
import { failed, queryTaskPayload, reject } from "./query-task-payloads";
import type { PayloadEnvelopeIn, QueryAnswer, QueryTask, QueryTaskReply } from "./query-task-payloads";
import type { RunRow } from "./rows";

export type { PayloadEnvelopeIn, QueryAnswer, QueryTaskReply } from "./query-task-payloads";

/**
 * Worker-routed workflow queries, after the real server's `WorkflowQueryTaskBroker`
 * (durable-workflow/server app/Support/WorkflowQueryTaskBroker.php@11d35b7). A query is ephemeral
 * there, a cache entry, never a history event or a database row, so here it lives in memory: a
 * control-plane query enqueues a task, a worker polls it with a lease, answers with a result or a
 * failure, and the waiting query answers; no answer by the deadline is `query_worker_timeout` (504).
 */

export interface QueryTaskConfig {
  /** `server.query_tasks.timeout`: DW_QUERY_TASK_TIMEOUT, else DW_WORKER_POLL_TIMEOUT, else 30 s. */
  timeoutMs: number;
  /** `server.query_tasks.lease_timeout`: DW_QUERY_TASK_LEASE_TIMEOUT, else DW_WORKFLOW_TASK_TIMEOUT, else 60 s. */
  leaseMs: number;
  /** `server.query_tasks.max_pending_per_queue`: DW_QUERY_TASK_MAX_PENDING_PER_QUEUE, 1024, clamped to [1, 10000]. */
  maxPendingPerQueue: number;
}

function seconds(env: Record<string, string | undefined>, names: string[], fallback: number): number {
  for (const name of names) {
    const raw = (env[name] ?? "").trim();
    if (raw === "") continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${raw}`);
    return n;
  }
  return fallback;
}

/** The real `config/server.php@11d35b7` `query_tasks` block, read from the same variables. */
export function queryTaskConfigFromEnv(env: Record<string, string | undefined> = process.env): QueryTaskConfig {
  return {
    timeoutMs: seconds(env, ["DW_QUERY_TASK_TIMEOUT", "DW_WORKER_POLL_TIMEOUT"], 30) * 1000,
    leaseMs: Math.max(1, seconds(env, ["DW_QUERY_TASK_LEASE_TIMEOUT", "DW_WORKFLOW_TASK_TIMEOUT"], 60)) * 1000,
    maxPendingPerQueue: Math.max(1, Math.min(10_000, seconds(env, ["DW_QUERY_TASK_MAX_PENDING_PER_QUEUE"], 1024))),
  };
}

const RESULT = "result:";
const PENDING = "pending:";

interface WorkerRow {
  runtime: string | null;
  supported_workflow_types: string | null;
  task_queue: string;
}

function stringList(raw: string | null): string[] {
  try {
    const v = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : [];
  } catch {
    return [];
  }
}

/** `matchesWorkflowType`: a worker that lists no types takes every type. */
function matchesType(types: string[], workflowType: string): boolean {
  return types.length === 0 || types.includes(workflowType);
}

export class QueryTaskBroker {
  private readonly tasks = new Map<string, QueryTask>();
  /** Pending task ids per `namespace\0queue`, oldest first. */
  private readonly pending = new Map<string, string[]>();
  private readonly events = new EventEmitter();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly config: QueryTaskConfig = queryTaskConfigFromEnv(),
  ) {
    // One listener per held query or query poll; bounded by open connections.
    this.events.setMaxListeners(0);
  }

  private queueKey(namespace: string, queue: string): string {
    return `${namespace}\u0000${queue}`;
  }

  /** `hasWorkerFor`: an active, fresh, non-PHP worker on the run's queue that takes its type. */
  hasWorkerFor(namespace: string, run: RunRow): boolean {
    const rows = this.db
      .prepare(
        `SELECT runtime, supported_workflow_types, task_queue FROM worker_registrations
         WHERE namespace = ? AND task_queue = ? AND status = 'active' AND last_heartbeat_at > ?`,
      )
      .all(namespace, run.queue ?? "default", this.clock.now() - WORKER_STALE_AFTER_MS) as WorkerRow[];
    return rows.some(
      (w) => w.runtime !== "php" && matchesType(stringList(w.supported_workflow_types), run.workflow_type),
    );
  }

  /** Enqueues the query and waits for its worker's answer, the deadline, or `abort` (server shutdown). */
  async query(
    namespace: string,
    run: RunRow,
    queryName: string,
    args: PayloadEnvelopeIn,
    abort: AbortSignal,
  ): Promise<QueryAnswer> {
    if (!this.hasWorkerFor(namespace, run)) {
      const queue = run.queue ?? "default";
      return failed(
        run,
        queryName,
        "query_worker_unavailable",
        `No active non-PHP worker is registered for workflow type [${run.workflow_type}] on task queue [${queue}].`,
        409,
      );
    }
    this.prune();
    const queue = run.queue ?? "default";
    const key = this.queueKey(namespace, queue);
    const ids = this.pendingIds(key);
    if (ids.length >= this.config.maxPendingPerQueue) {
      return failed(
        run,
        queryName,
        "query_task_queue_full",
        `Query task queue [${queue}] in namespace [${namespace}] has reached its pending limit of ${this.config.maxPendingPerQueue}.`,
        429,
      );
    }
    const now = this.clock.now();
    const task: QueryTask = {
      id: newId(now),
      status: "pending",
      namespace,
      workflowId: run.workflow_instance_id,
      runId: run.id,
      workflowType: run.workflow_type,
      taskQueue: queue,
      payloadCodec: run.payload_codec ?? "avro",
      queryName,
      queryArguments: args,
      attempt: 0,
      admittedAt: now,
      deadlineAt: now + this.config.timeoutMs,
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    this.tasks.set(task.id, task);
    this.pending.set(key, [...ids, task.id]);
    this.events.emit(PENDING + key);
    await this.waitForResult(task, abort);
    if (task.status === "completed") {
      return {
        status: 200,
        body: {
          workflow_id: run.workflow_instance_id,
          run_id: run.id,
          target_scope: "instance",
          query_name: queryName,
          result: task.result ?? null,
          result_envelope: task.resultEnvelope ?? null,
          reason: null,
        },
      };
    }
    if (task.status === "failed")
      return failed(run, queryName, task.reason ?? "query_rejected", task.message ?? "", task.httpStatus ?? 409);
    this.markTimedOut(task);
    return failed(
      run,
      queryName,
      "query_worker_timeout",
      "Timed out waiting for a worker to execute the workflow query.",
      504,
    );
  }

  /** Resolves when the task completes or fails, its deadline passes (see `expireDue`), or `abort` fires. */
  private waitForResult(task: QueryTask, abort: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const key = RESULT + task.id;
      const done = (): void => {
        clearTimeout(timer);
        this.events.off(key, done);
        abort.removeEventListener("abort", done);
        resolve();
      };
      // A real-time backstop for the clock's deadline; with a FakeClock, tests call `expireDue`.
      const timer = setTimeout(() => this.expireDue(), Math.max(0, task.deadlineAt - this.clock.now()));
      this.events.on(key, done);
      abort.addEventListener("abort", done, { once: true });
      if (abort.aborted) done();
    });
  }

  /** Ends every waiting query whose deadline has passed at `now`; returns how many. */
  expireDue(now: number = this.clock.now()): number {
    let n = 0;
    for (const task of this.tasks.values()) {
      if ((task.status === "pending" || task.status === "leased") && task.deadlineAt <= now) {
        this.markTimedOut(task);
        n += 1;
      }
    }
    return n;
  }

  private markTimedOut(task: QueryTask): void {
    if (task.status === "completed" || task.status === "failed" || task.status === "timed_out") return;
    task.status = "timed_out";
    task.endedAt = this.clock.now();
    this.events.emit(RESULT + task.id);
  }

  /** Ids still pending on a queue (ended ones dropped). */
  private pendingIds(key: string): string[] {
    const ids = (this.pending.get(key) ?? []).filter((id) => this.tasks.get(id)?.status === "pending");
    this.pending.set(key, ids);
    return ids;
  }

  /** Ended tasks are kept for `ttl` (`server.query_tasks.ttl_seconds`) so a late answer is told why. */
  private prune(): void {
    const now = this.clock.now();
    const ttl = Math.max(60_000, this.config.timeoutMs + this.config.leaseMs + 60_000);
    for (const [id, task] of this.tasks)
      if (task.endedAt !== undefined && task.endedAt + ttl < now) this.tasks.delete(id);
  }

  /**
   * `claimNextPendingTask`: the oldest pending task on the queue whose type the worker takes,
   * leased to it. Its lease never outlives the query's deadline.
   */
  claim(namespace: string, workerId: string, queue: string, supportedTypes: string[]): Record<string, unknown> | null {
    const key = this.queueKey(namespace, queue);
    const ids = this.pendingIds(key);
    const now = this.clock.now();
    for (const id of ids) {
      const task = this.tasks.get(id);
      if (!task || !matchesType(supportedTypes, task.workflowType)) continue;
      if (task.deadlineAt <= now) {
        this.markTimedOut(task);
        continue;
      }
      task.status = "leased";
      task.attempt += 1;
      task.leaseOwner = workerId;
      task.leaseExpiresAt = Math.min(now + this.config.leaseMs, task.deadlineAt);
      this.pending.set(
        key,
        ids.filter((x) => x !== id),
      );
      return queryTaskPayload(this.db, task, now);
    }
    return null;
  }

  /** Subscribes to the next enqueue on a queue; `ready` resolves then, after `timeoutMs`, or on abort. */
  pendingWaiter(
    namespace: string,
    queue: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): { ready: Promise<void>; cancel: () => void } {
    const key = PENDING + this.queueKey(namespace, queue);
    let finish: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), Math.max(0, timeoutMs));
      finish = (): void => {
        clearTimeout(timer);
        this.events.off(key, finish);
        signal.removeEventListener("abort", finish);
        resolve();
      };
      this.events.on(key, finish);
      signal.addEventListener("abort", finish, { once: true });
    });
    return { ready, cancel: () => finish() };
  }

  /** `guardLease`: the refusal for an answer that does not hold the task's current lease, or null. */
  private guard(
    task: QueryTask | undefined,
    namespace: string,
    id: string,
    owner: string,
    attempt: number,
  ): QueryTaskReply | null {
    if (!task || task.namespace !== namespace) return reject(404, id, "query_task_not_found", "Query task not found.");
    if (task.status !== "leased")
      return reject(409, id, "query_task_not_leased", "Query task is not currently leased.");
    if (task.leaseOwner !== owner)
      return reject(409, id, "lease_owner_mismatch", "Query task lease is owned by another worker.", {
        lease_owner: task.leaseOwner,
      });
    if (task.attempt !== attempt)
      return reject(
        409,
        id,
        "query_task_attempt_mismatch",
        "Query task lease attempt does not match the current claim.",
        {
          current_attempt: task.attempt,
        },
      );
    if (task.leaseExpiresAt !== null && task.leaseExpiresAt <= this.clock.now())
      return reject(409, id, "lease_expired", "Query task lease has expired.", {
        lease_expires_at: isoMicros(task.leaseExpiresAt),
      });
    return null;
  }

  complete(
    namespace: string,
    id: string,
    owner: string,
    attempt: number,
    result: unknown,
    resultEnvelope: PayloadEnvelopeIn | null,
  ): QueryTaskReply {
    const task = this.tasks.get(id);
    const refusal = this.guard(task, namespace, id, owner, attempt);
    if (refusal || !task) return refusal ?? reject(404, id, "query_task_not_found", "Query task not found.");
    task.status = "completed";
    task.result = result;
    task.resultEnvelope = resultEnvelope;
    task.endedAt = this.clock.now();
    this.events.emit(RESULT + id);
    return { status: 200, body: { query_task_id: id, query_task_attempt: attempt, outcome: "completed" } };
  }

  fail(
    namespace: string,
    id: string,
    owner: string,
    attempt: number,
    failure: { message: string; reason?: string | null; type?: string | null },
  ): QueryTaskReply {
    const task = this.tasks.get(id);
    const refusal = this.guard(task, namespace, id, owner, attempt);
    if (refusal || !task) return refusal ?? reject(404, id, "query_task_not_found", "Query task not found.");
    const reason = failure.reason?.trim() || "query_rejected";
    task.status = "failed";
    task.reason = reason;
    task.message = failure.message.trim() || "Query failed on the worker.";
    // `fail`: an unknown query name is the caller's 404; any other worker failure is 409.
    task.httpStatus = reason === "rejected_unknown_query" ? 404 : 409;
    task.endedAt = this.clock.now();
    this.events.emit(RESULT + id);
    return {
      status: 200,
      body: { query_task_id: id, query_task_attempt: attempt, outcome: "failed", reason },
    };
  }

  /**
   * The protocol 1.20 claim observation sdk-python 2.12.0 makes before, while and after it runs a
   * handler (`Client.query_task_status`, `_query_task_authority.py` `confirm`): the original timing,
   * never renewed, with `can_continue` true only while the claim is this worker's live lease.
   */
  status(namespace: string, id: string, owner: string, attempt: number): QueryTaskReply {
    const task = this.tasks.get(id);
    if (!task || task.namespace !== namespace) return reject(404, id, "query_task_not_found", "Query task not found.");
    const now = this.clock.now();
    if (task.status === "leased" && task.deadlineAt <= now) this.markTimedOut(task);
    const refusal = this.guard(task, namespace, id, owner, attempt);
    return {
      status: 200,
      body: {
        query_task_id: id,
        query_task_attempt: task.attempt,
        lease_owner: task.leaseOwner,
        query_task_status: task.status,
        can_continue: refusal === null,
        reason: refusal ? (refusal.body.reason as string) : null,
        lease_expires_at: isoMicros(task.leaseExpiresAt),
        query_admitted_at: isoMicros(task.admittedAt),
        query_deadline_at: isoMicros(task.deadlineAt),
        server_time: isoMicros(now),
      },
    };
  }

  /** `queueAdmission`: what the task-queue view reports for query tasks. */
  queueAdmission(namespace: string, queue: string): Record<string, unknown> {
    const count = this.pendingIds(this.queueKey(namespace, queue)).length;
    const max = this.config.maxPendingPerQueue;
    return {
      budget_source: "server.query_tasks.max_pending_per_queue",
      max_pending_per_queue: max,
      approximate_pending_count: count,
      remaining_pending_capacity: Math.max(0, max - count),
      lock_required: true,
      lock_supported: true,
      status: count >= max ? "full" : "accepting",
    };
  }
}
