import { newId } from "../ids";
import type { Db } from "../store/db";
import { EngineError } from "./errors";
import type { RegisterWorkerInput } from "./index";
import type { TaskRow } from "./rows";
import { releaseHeldSignals } from "./signal-delivery";
import type { Tx } from "./tx";
import type { WorkflowTaskView } from "./workflow-tasks";
import { claimWorkflowTask, reclaimView } from "./workflow-tasks";

/** Worker registrations: register, heartbeat, deregister (transitions) and the queue lookup every poll makes. */

const UPSERT_WORKER_SQL = `INSERT INTO worker_registrations (worker_id, namespace, task_queue, runtime, sdk_version, build_id, host, process_id, supported_workflow_types,
               supported_activity_types, max_concurrent_workflow_tasks, max_concurrent_activity_tasks, status, registered_at, last_heartbeat_at, created_at, updated_at,
               workflow_command_contracts, max_concurrent_worker_sessions, available_workflow_slots, available_activity_slots, available_session_slots,
               process_metrics, heartbeat_interval_seconds, capabilities, workflow_definition_fingerprints)
             VALUES (@worker_id, @namespace, @task_queue, @runtime, @sdk_version, @build_id, @host, @process_id, @wf, @act, @mwt, @mat, 'active', @now, @now, @now, @now, @contracts,
               @mws, @wslots, @aslots, @sslots, @metrics, @interval, @capabilities, @fingerprints)
             ON CONFLICT(namespace, worker_id) DO UPDATE SET task_queue = excluded.task_queue, runtime = excluded.runtime, sdk_version = excluded.sdk_version,
               build_id = excluded.build_id, supported_workflow_types = excluded.supported_workflow_types, supported_activity_types = excluded.supported_activity_types,
               max_concurrent_workflow_tasks = excluded.max_concurrent_workflow_tasks, max_concurrent_activity_tasks = excluded.max_concurrent_activity_tasks,
               status = 'active', registered_at = excluded.registered_at, last_heartbeat_at = excluded.last_heartbeat_at, updated_at = excluded.updated_at,
               workflow_command_contracts = excluded.workflow_command_contracts, max_concurrent_worker_sessions = excluded.max_concurrent_worker_sessions,
               available_workflow_slots = excluded.available_workflow_slots, available_activity_slots = excluded.available_activity_slots,
               available_session_slots = excluded.available_session_slots, process_metrics = excluded.process_metrics,
               heartbeat_interval_seconds = excluded.heartbeat_interval_seconds, capabilities = excluded.capabilities,
               workflow_definition_fingerprints = excluded.workflow_definition_fingerprints`;

/** Free task slots per family as a worker reports them (`task_slots`, sdk-python `_current_task_slots`). */
export interface TaskSlotsInput {
  workflow_available?: number | null;
  activity_available?: number | null;
  session_available?: number | null;
}

/** What a heartbeat may carry besides the worker id (sdk-python client.py `heartbeat_worker`). */
export interface WorkerStatusInput {
  task_slots?: TaskSlotsInput | null;
  process_metrics?: Record<string, unknown> | null;
  heartbeat_interval_seconds?: number | null;
}

/** A reported free-slot count clamped into [0, capacity], as the real server keeps it; null when not reported. */
function clampSlots(value: number | null | undefined, capacity: number | null): number | null {
  if (value === null || value === undefined) return null;
  return Math.max(0, capacity === null ? value : Math.min(value, capacity));
}

/** Creates or replaces a registration (a re-registration reactivates it with the new declaration). */
export function registerWorker(
  tx: Tx,
  namespace: string,
  input: RegisterWorkerInput,
): { worker_id: string; registered: true } {
  const workerId = input.worker_id ?? newId(tx.now);
  tx.db.prepare(UPSERT_WORKER_SQL).run({
    worker_id: workerId,
    namespace,
    task_queue: input.task_queue,
    runtime: input.runtime,
    sdk_version: input.sdk_version ?? null,
    build_id: input.build_id ?? null,
    host: input.host ?? null,
    process_id: input.process_id ?? null,
    wf: JSON.stringify(input.supported_workflow_types ?? []),
    act: JSON.stringify(input.supported_activity_types ?? []),
    mwt: input.max_concurrent_workflow_tasks ?? 100,
    mat: input.max_concurrent_activity_tasks ?? 100,
    contracts: input.workflow_command_contracts ? JSON.stringify(input.workflow_command_contracts) : null,
    mws: input.max_concurrent_worker_sessions ?? null,
    wslots: clampSlots(input.task_slots?.workflow_available, input.max_concurrent_workflow_tasks ?? 100),
    aslots: clampSlots(input.task_slots?.activity_available, input.max_concurrent_activity_tasks ?? 100),
    sslots: clampSlots(input.task_slots?.session_available, input.max_concurrent_worker_sessions ?? null),
    metrics: input.process_metrics ? JSON.stringify(input.process_metrics) : null,
    interval: input.heartbeat_interval_seconds ?? null,
    capabilities: input.capabilities ? JSON.stringify(input.capabilities) : null,
    fingerprints: input.workflow_definition_fingerprints
      ? JSON.stringify(input.workflow_definition_fingerprints)
      : null,
    now: tx.now,
  });
  return { worker_id: workerId, registered: true as const };
}

/**
 * Refreshes liveness and records the status the heartbeat reports: free slots (clamped into
 * [0, capacity]), the process metrics exactly as reported and the cadence; what it omits is kept.
 */
export function workerHeartbeat(
  tx: Tx,
  namespace: string,
  workerId: string,
  status: WorkerStatusInput = {},
): { worker_id: string; acknowledged: true } {
  const row = tx.db
    .prepare(
      "SELECT max_concurrent_workflow_tasks AS mwt, max_concurrent_activity_tasks AS mat, max_concurrent_worker_sessions AS mws FROM worker_registrations WHERE namespace = ? AND worker_id = ?",
    )
    .get(namespace, workerId) as { mwt: number | null; mat: number | null; mws: number | null } | undefined;
  if (!row)
    throw new EngineError(
      404,
      "worker_not_registered",
      "Worker is not registered. Call POST /api/worker/register first.",
      {
        worker_id: workerId,
      },
    );
  const slots = status.task_slots ?? {};
  tx.db
    .prepare(
      `UPDATE worker_registrations SET last_heartbeat_at = @now, status = 'active', updated_at = @now,
         available_workflow_slots = COALESCE(@wslots, available_workflow_slots),
         available_activity_slots = COALESCE(@aslots, available_activity_slots),
         available_session_slots = COALESCE(@sslots, available_session_slots),
         process_metrics = COALESCE(@metrics, process_metrics),
         heartbeat_interval_seconds = COALESCE(@interval, heartbeat_interval_seconds)
       WHERE namespace = @ns AND worker_id = @id`,
    )
    .run({
      now: tx.now,
      ns: namespace,
      id: workerId,
      wslots: clampSlots(slots.workflow_available, row.mwt),
      aslots: clampSlots(slots.activity_available, row.mat),
      sslots: clampSlots(slots.session_available, row.mws),
      metrics: status.process_metrics ? JSON.stringify(status.process_metrics) : null,
      interval: status.heartbeat_interval_seconds ?? null,
    });
  return { worker_id: workerId, acknowledged: true as const };
}

/** Removes a registration and readies the workflow tasks its worker leases. */
export function deregisterWorker(
  tx: Tx,
  namespace: string,
  workerId: string,
): { worker_id: string; outcome: "deregistered"; recovered_workflow_task_count: number } {
  const gone = tx.db
    .prepare("DELETE FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
    .run(namespace, workerId);
  if (gone.changes === 0)
    throw new EngineError(404, "worker_not_found", `Worker [${workerId}] is not registered.`, { worker_id: workerId });
  const leased = tx.db
    .prepare(
      "SELECT * FROM workflow_tasks WHERE namespace = ? AND task_type = 'workflow' AND status = 'leased' AND lease_owner = ?",
    )
    .all(namespace, workerId) as TaskRow[];
  // Same release as an expired lease (Tx.expireLeases): ready now, repair_count + 1, so a
  // completion the departed worker still sends is refused.
  for (const task of leased) {
    tx.db
      .prepare(
        "UPDATE workflow_tasks SET status = 'ready', available_at = ?, lease_owner = NULL, leased_at = NULL, lease_expires_at = NULL, repair_count = repair_count + 1, updated_at = ? WHERE id = ?",
      )
      .run(tx.now, tx.now, task.id);
    tx.markTaskReady(task);
    tx.touch(task.workflow_run_id);
    releaseHeldSignals(tx, task.workflow_run_id);
  }
  return { worker_id: workerId, outcome: "deregistered" as const, recovered_workflow_task_count: leased.length };
}

/** Bounded caches start over past this many entries. */
const MAX_CACHED = 10_000;

/** Each worker's registered queue, checked on every poll; only (de)registration changes it, and clears it. */
export class WorkerQueues {
  private readonly queues = new Map<string, string>();

  constructor(private readonly db: Db) {}

  clear(): void {
    this.queues.clear();
  }

  /** The queue a registered worker polls; throws 412 worker_not_registered. */
  get(namespace: string, workerId: string): string {
    const key = `${namespace}\u0000${workerId}`;
    const known = this.queues.get(key);
    if (known !== undefined) return known;
    const row = this.db
      .prepare("SELECT task_queue FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
      .get(namespace, workerId) as { task_queue: string } | undefined;
    if (!row)
      throw new EngineError(
        412,
        "worker_not_registered",
        "Worker is not registered. Call POST /api/worker/register first.",
        { worker_id: workerId },
      );
    if (this.queues.size > MAX_CACHED) this.queues.clear();
    this.queues.set(key, row.task_queue);
    return row.task_queue;
  }
}

/** Idempotent poll retries: (worker, poll_request_id) → the task handed out for it. */
export class PollRequests {
  private readonly handedOut = new Map<string, string>();

  /** Answers a retried poll with the task its first attempt claimed (when still its), else claims one. */
  claim(
    tx: Tx,
    namespace: string,
    workerId: string,
    queue: string,
    pageSize: number,
    pollRequestId: string | null | undefined,
  ): WorkflowTaskView | null {
    const key = pollRequestId ? `${namespace}\u0000${workerId}\u0000${pollRequestId}` : null;
    const prior = key ? this.handedOut.get(key) : undefined;
    if (prior) {
      const again = reclaimView(tx, prior, workerId, pageSize);
      if (again) return again;
    }
    const claimed = claimWorkflowTask(tx, namespace, workerId, queue, pageSize);
    if (claimed && key) {
      if (this.handedOut.size > MAX_CACHED) this.handedOut.clear();
      this.handedOut.set(key, claimed.task_id);
    }
    return claimed;
  }
}
