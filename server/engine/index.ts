import type { Clock } from "../clock";
import { newId } from "../ids";
import type { Db } from "../store/db";
import type { ActivityFailureInput, ActivityTaskView, HeartbeatInput } from "./activities";
import {
  claimActivityTask,
  completeActivityTask,
  enforceActivityTimeouts,
  expireActivityLeases,
  failActivityTask,
  heartbeatActivityTask,
} from "./activities";
import type { CloseWorkflowInput, CommandResult, SignalWorkflowInput, StartWorkflowInput } from "./commands";
import { cancelWorkflow, signalWorkflow, startWorkflow, terminateWorkflow } from "./commands";
import { EngineError } from "./errors";
import { GroupCommitter } from "./group-commit";
import { attachHistoryCache, HistoryCache } from "./history-cache";
import { SummaryCache } from "./summary-cache";
import { EngineNotifier } from "./notifier";
import { withStatementCache } from "./statement-cache";
import { refreshRunSummary } from "./summary";
import { createDeadlineTasks, dueQueues, expireWorkflowLeases, fireTimers } from "./sweep";
import type { TaskRow } from "./rows";
import type { JsonObject, LeaseConfig, PayloadEnvelope } from "./tx";
import { DEFAULT_LEASES, Tx } from "./tx";
import type { WorkflowTaskCommand, WorkflowTaskView } from "./workflow-tasks";
import {
  claimWorkflowTask,
  completeWorkflowTask,
  failWorkflowTask,
  heartbeatWorkflowTask,
  reclaimView,
  workflowTaskHistory,
} from "./workflow-tasks";

export type { ActivityFailureInput, ActivityTaskView, HeartbeatInput } from "./activities";
export type { CloseWorkflowInput, CommandResult, SignalWorkflowInput, StartWorkflowInput } from "./commands";
export { EngineError } from "./errors";
export { EngineNotifier } from "./notifier";
export type { LeaseConfig, PayloadEnvelope } from "./tx";
export { Tx } from "./tx";
export type { WorkflowTaskCommand, WorkflowTaskView } from "./workflow-tasks";

export interface RegisterWorkerInput {
  worker_id?: string | null;
  task_queue: string;
  runtime: string;
  sdk_version?: string | null;
  build_id?: string | null;
  supported_workflow_types?: string[] | null;
  /** Per workflow type: `{signals, signal_contracts, queries, …}` as the SDK declares them. */
  workflow_command_contracts?: Record<string, unknown> | null;
  supported_activity_types?: string[] | null;
  max_concurrent_workflow_tasks?: number | null;
  max_concurrent_activity_tasks?: number | null;
  host?: string | null;
  process_id?: string | null;
}

export interface SweepReport {
  activity_timeouts: number;
  activity_leases_expired: number;
  workflow_leases_expired: number;
  timers_fired: number;
  deadline_tasks_created: number;
}

export interface Engine {
  readonly db: Db;
  readonly clock: Clock;
  readonly notifier: EngineNotifier;
  /**
   * Runs `fn` as one state transition: one immediate SQLite transaction, summaries of every touched
   * run refreshed inside it, wake-ups (`task-ready`, `history`) emitted after commit.
   */
  transaction<T>(fn: (tx: Tx) => T): T;
  /** Starts a workflow (command `start`, outcomes started_new | returned_existing_active | rejected_duplicate). */
  startWorkflow(input: StartWorkflowInput): CommandResult;
  /** Signals the current run (signal_received | rejected_not_active | rejected_not_current | rejected_not_started); 404 instance_not_found throws. */
  signalWorkflow(input: SignalWorkflowInput): CommandResult;
  /** Cancels the current run (cancelled | rejected_not_active …). */
  cancelWorkflow(input: CloseWorkflowInput): CommandResult;
  /** Terminates the current run (terminated | rejected_not_active …). */
  terminateWorkflow(input: CloseWorkflowInput): CommandResult;
  registerWorker(namespace: string, input: RegisterWorkerInput): { worker_id: string; registered: true };
  workerHeartbeat(namespace: string, workerId: string): { worker_id: string; acknowledged: true };
  /** Removes a registration and readies the workflow tasks its worker leases; 404 worker_not_found when there is none. */
  deregisterWorker(
    namespace: string,
    workerId: string,
  ): { worker_id: string; outcome: "deregistered"; recovered_workflow_task_count: number };
  /** The queue a registered worker polls; throws 412 worker_not_registered. */
  workerQueue(namespace: string, workerId: string): string;
  /* Worker-plane transitions below are group-committed: answered after the COMMIT they share. */
  pollWorkflowTask(
    namespace: string,
    workerId: string,
    queue: string,
    pageSize: number,
    pollRequestId?: string | null,
  ): Promise<WorkflowTaskView | null>;
  workflowTaskHistory(
    taskId: string,
    leaseOwner: string | undefined,
    attempt: number | undefined,
    token: string | null,
    pageSize: number,
  ): JsonObject;
  heartbeatWorkflowTask(
    taskId: string,
    leaseOwner: string | undefined,
    attempt: number | undefined,
  ): Promise<JsonObject>;
  completeWorkflowTask(
    taskId: string,
    leaseOwner: string | undefined,
    attempt: number | undefined,
    commands: WorkflowTaskCommand[],
  ): Promise<JsonObject>;
  failWorkflowTask(
    taskId: string,
    leaseOwner: string | undefined,
    attempt: number | undefined,
    failure: { message: string; type?: string | null; stack_trace?: string | null },
  ): Promise<JsonObject>;
  pollActivityTask(namespace: string, workerId: string, queue: string): Promise<ActivityTaskView | null>;
  heartbeatActivityTask(taskId: string, input: HeartbeatInput): Promise<JsonObject>;
  completeActivityTask(
    taskId: string,
    attemptId: string,
    leaseOwner: string | undefined,
    result: PayloadEnvelope | null,
  ): Promise<JsonObject>;
  failActivityTask(
    taskId: string,
    attemptId: string,
    leaseOwner: string | undefined,
    failure: ActivityFailureInput,
  ): Promise<JsonObject>;
  /** Timeouts, lease expiry, timers, deadline watchdog, and wake-ups for tasks now due; `now` defaults to the clock. */
  sweep(now?: number): SweepReport;
}

export interface EngineOptions {
  db: Db;
  clock: Clock;
  /** Lease durations; defaults are Durable Workflow's 300 s for both. */
  leases?: Partial<LeaseConfig>;
}

export function createEngine({ db: rawDb, clock, leases }: EngineOptions): Engine {
  const db = withStatementCache(rawDb);
  const leaseConfig: LeaseConfig = { ...DEFAULT_LEASES, ...leases };
  const notifier = new EngineNotifier();
  // Idempotent poll retries: (worker, poll_request_id) → the task handed out for it.
  const pollRequests = new Map<string, string>();
  // Each worker's registered queue, checked on every poll; only registerWorker changes it.
  const workerQueues = new Map<string, string>();

  const summaries = SummaryCache.for(rawDb);

  function refreshSummaries(tx: Tx): void {
    const scope = summaries.scope(tx.summaryStage);
    for (const runId of tx.touchedRuns) refreshRunSummary(db, runId, tx.now, scope);
  }

  const historyCache = new HistoryCache();
  attachHistoryCache(db, historyCache);

  /** After COMMIT: the history a transition read is committed now, so later tasks may reuse it. */
  function publishHistory(tx: Tx): void {
    for (const [runId, events] of tx.historyOffers) historyCache.publish(runId, events);
  }

  function emitTaskWakeUps(tx: Tx): void {
    publishHistory(tx);
    for (const { namespace, queue, kind } of tx.readyKeys.values()) notifier.notifyTaskReady(namespace, queue, kind);
  }

  function emitHistoryWakeUps(tx: Tx): void {
    for (const runId of tx.historyRuns) notifier.notifyHistory(runId);
  }

  function emitWakeUps(tx: Tx): void {
    emitTaskWakeUps(tx);
    emitHistoryWakeUps(tx);
  }

  function transaction<T>(fn: (tx: Tx) => T, now: number = clock.now()): T {
    const tx = new Tx(db, now, leaseConfig);
    summaries.begin();
    let result: T;
    try {
      result = db
        .transaction(() => {
          const value = fn(tx);
          refreshSummaries(tx);
          return value;
        })
        .immediate();
    } catch (e) {
      summaries.end(false);
      throw e;
    }
    summaries.keep(tx.summaryStage);
    summaries.end(true);
    emitWakeUps(tx);
    return result;
  }

  const group = new GroupCommitter(
    db,
    () => clock.now(),
    leaseConfig,
    refreshSummaries,
    emitTaskWakeUps,
    emitHistoryWakeUps,
    {
      begin: () => summaries.begin(),
      kept: (tx) => summaries.keep(tx.summaryStage),
      end: (committed) => summaries.end(committed),
    },
  );

  return {
    db,
    clock,
    notifier,
    transaction: (fn) => transaction(fn),
    startWorkflow: (input) => transaction((tx) => startWorkflow(tx, input)),
    signalWorkflow: (input) => transaction((tx) => signalWorkflow(tx, input)),
    cancelWorkflow: (input) => transaction((tx) => cancelWorkflow(tx, input)),
    terminateWorkflow: (input) => transaction((tx) => terminateWorkflow(tx, input)),
    registerWorker(namespace, input) {
      workerQueues.clear();
      return transaction((tx) => {
        const workerId = input.worker_id ?? newId(tx.now);
        tx.db
          .prepare(
            `INSERT INTO worker_registrations (worker_id, namespace, task_queue, runtime, sdk_version, build_id, host, process_id, supported_workflow_types,
               supported_activity_types, max_concurrent_workflow_tasks, max_concurrent_activity_tasks, status, registered_at, last_heartbeat_at, created_at, updated_at,
               workflow_command_contracts)
             VALUES (@worker_id, @namespace, @task_queue, @runtime, @sdk_version, @build_id, @host, @process_id, @wf, @act, @mwt, @mat, 'active', @now, @now, @now, @now, @contracts)
             ON CONFLICT(namespace, worker_id) DO UPDATE SET task_queue = excluded.task_queue, runtime = excluded.runtime, sdk_version = excluded.sdk_version,
               build_id = excluded.build_id, supported_workflow_types = excluded.supported_workflow_types, supported_activity_types = excluded.supported_activity_types,
               max_concurrent_workflow_tasks = excluded.max_concurrent_workflow_tasks, max_concurrent_activity_tasks = excluded.max_concurrent_activity_tasks,
               status = 'active', registered_at = excluded.registered_at, last_heartbeat_at = excluded.last_heartbeat_at, updated_at = excluded.updated_at,
               workflow_command_contracts = excluded.workflow_command_contracts`,
          )
          .run({
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
            now: tx.now,
          });
        return { worker_id: workerId, registered: true as const };
      });
    },
    workerHeartbeat(namespace, workerId) {
      return transaction((tx) => {
        const r = tx.db
          .prepare(
            "UPDATE worker_registrations SET last_heartbeat_at = ?, status = 'active', updated_at = ? WHERE namespace = ? AND worker_id = ?",
          )
          .run(tx.now, tx.now, namespace, workerId);
        if (r.changes === 0)
          throw new EngineError(
            404,
            "worker_not_registered",
            "Worker is not registered. Call POST /api/worker/register first.",
            { worker_id: workerId },
          );
        return { worker_id: workerId, acknowledged: true as const };
      });
    },
    deregisterWorker(namespace, workerId) {
      workerQueues.clear();
      return transaction((tx) => {
        const gone = tx.db
          .prepare("DELETE FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
          .run(namespace, workerId);
        if (gone.changes === 0)
          throw new EngineError(404, "worker_not_found", `Worker [${workerId}] is not registered.`, {
            worker_id: workerId,
          });
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
        }
        return { worker_id: workerId, outcome: "deregistered" as const, recovered_workflow_task_count: leased.length };
      });
    },
    workerQueue(namespace, workerId) {
      const key = `${namespace}\u0000${workerId}`;
      const known = workerQueues.get(key);
      if (known !== undefined) return known;
      const row = db
        .prepare("SELECT task_queue FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
        .get(namespace, workerId) as { task_queue: string } | undefined;
      if (!row)
        throw new EngineError(
          412,
          "worker_not_registered",
          "Worker is not registered. Call POST /api/worker/register first.",
          { worker_id: workerId },
        );
      if (workerQueues.size > 10_000) workerQueues.clear();
      workerQueues.set(key, row.task_queue);
      return row.task_queue;
    },
    pollWorkflowTask(namespace, workerId, queue, pageSize, pollRequestId) {
      return group.run((tx) => {
        const key = pollRequestId ? `${namespace}\u0000${workerId}\u0000${pollRequestId}` : null;
        const prior = key ? pollRequests.get(key) : undefined;
        if (prior) {
          const again = reclaimView(tx, prior, workerId, pageSize);
          if (again) return again;
        }
        const claimed = claimWorkflowTask(tx, namespace, workerId, queue, pageSize);
        if (claimed && key) {
          if (pollRequests.size > 10_000) pollRequests.clear();
          pollRequests.set(key, claimed.task_id);
        }
        return claimed;
      });
    },
    workflowTaskHistory: (taskId, owner, attempt, token, pageSize) =>
      transaction((tx) => workflowTaskHistory(tx, taskId, owner, attempt, token, pageSize)),
    heartbeatWorkflowTask: (taskId, owner, attempt) =>
      group.run((tx) => heartbeatWorkflowTask(tx, taskId, owner, attempt)),
    completeWorkflowTask: (taskId, owner, attempt, commands) =>
      group.run((tx) => completeWorkflowTask(tx, taskId, owner, attempt, commands)),
    failWorkflowTask: (taskId, owner, attempt, failure) =>
      group.run((tx) => failWorkflowTask(tx, taskId, owner, attempt, failure)),
    pollActivityTask: (namespace, workerId, queue) =>
      group.run((tx) => claimActivityTask(tx, namespace, workerId, queue)),
    heartbeatActivityTask: (taskId, input) => group.run((tx) => heartbeatActivityTask(tx, taskId, input), true),
    completeActivityTask: (taskId, attemptId, owner, result) =>
      group.run((tx) => completeActivityTask(tx, taskId, attemptId, owner, result), true),
    failActivityTask: (taskId, attemptId, owner, failure) =>
      group.run((tx) => failActivityTask(tx, taskId, attemptId, owner, failure), true),
    sweep(now = clock.now()) {
      return {
        activity_timeouts: transaction((tx) => enforceActivityTimeouts(tx), now),
        activity_leases_expired: transaction((tx) => expireActivityLeases(tx), now),
        workflow_leases_expired: transaction((tx) => expireWorkflowLeases(tx), now),
        timers_fired: transaction((tx) => fireTimers(tx), now),
        deadline_tasks_created: transaction((tx) => {
          const n = createDeadlineTasks(tx);
          dueQueues(tx);
          return n;
        }, now),
      };
    },
  };
}
