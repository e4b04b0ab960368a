import type { Clock } from "../clock";
import type { Db } from "../store/db";
import type { ActivityTaskView } from "./activities";
import { claimActivityTask } from "./activities";
import type { ActivityFailureInput, HeartbeatInput } from "./activity-reports";
import { completeActivityTask, failActivityTask, heartbeatActivityTask } from "./activity-reports";
import { enforceActivityTimeouts, expireActivityLeases } from "./activity-timeouts";
import type { CommandResult } from "./command-rows";
import type { CommandRow } from "./rows";
import type { CloseWorkflowInput, SignalWorkflowInput, StartWorkflowInput } from "./commands";
import { cancelWorkflow, signalWorkflow, startWorkflow, terminateWorkflow } from "./commands";
import { GroupCommitter } from "./group-commit";
import { attachHistoryCache, HistoryCache } from "./history-cache";
import { SummaryCache } from "./summary-cache";
import { EngineNotifier } from "./notifier";
import { QueryTaskBroker } from "./query-tasks";
import { UpdateWaits } from "./update-waits";
import type { UpdateWorkflowInput } from "./updates";
import { acceptUpdate } from "./updates";
import { withStatementCache } from "./statement-cache";
import { refreshRunSummary } from "./summary";
import { expireCancellationDeadlines } from "./cooperative-cancellation";
import { createDeadlineTasks, dueQueues, expireWorkflowLeases, fireTimers } from "./sweep";
import type { TickResult } from "./schedule-fires";
import { tickSchedules } from "./schedule-fires";
import type { JitterSource } from "./schedule-spec";
import { randomJitter } from "./schedule-spec";
import type { JsonObject, LeaseConfig, PayloadEnvelope } from "./tx";
import { DEFAULT_LEASES, Tx } from "./tx";
import type { WorkflowTaskCommand } from "./workflow-task-commands";
import type { WorkflowTaskView } from "./workflow-tasks";
import { completeWorkflowTask } from "./workflow-task-completion";
import { failWorkflowTask, heartbeatWorkflowTask, workflowTaskHistory } from "./workflow-tasks";
import { deregisterWorker, PollRequests, registerWorker, workerHeartbeat, WorkerQueues } from "./workers";
import type { TaskSlotsInput, WorkerStatusInput } from "./workers";

export type { ActivityTaskView } from "./activities";
export type { ActivityFailureInput, HeartbeatInput } from "./activity-reports";
export type { CommandResult } from "./command-rows";
export type { CloseWorkflowInput, SignalWorkflowInput, StartWorkflowInput } from "./commands";
export { EngineError } from "./errors";
export { EngineNotifier } from "./notifier";
export type { LeaseConfig, PayloadEnvelope } from "./tx";
export { Tx } from "./tx";
export type { WorkflowTaskCommand } from "./workflow-task-commands";
export type { WorkflowTaskView } from "./workflow-tasks";
export type { UpdateWorkflowInput } from "./updates";

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
  /** Worker status at registration (durable-workflow/server WorkerManagementController.php after @c6de4c3). */
  max_concurrent_worker_sessions?: number | null;
  capabilities?: string[] | null;
  workflow_definition_fingerprints?: Record<string, string> | null;
  task_slots?: TaskSlotsInput | null;
  process_metrics?: Record<string, unknown> | null;
  heartbeat_interval_seconds?: number | null;
}

export interface SweepReport {
  activity_timeouts: number;
  activity_leases_expired: number;
  workflow_leases_expired: number;
  timers_fired: number;
  deadline_tasks_created: number;
  /** Runs closed `cancelled` at their cooperative-cancellation cleanup deadline. */
  cancellation_deadlines_expired: number;
}

export interface Engine {
  readonly db: Db;
  readonly clock: Clock;
  readonly notifier: EngineNotifier;
  /** Worker-routed workflow queries: ephemeral, in memory, never history (query-tasks.ts). */
  readonly queryTasks: QueryTaskBroker;
  /** Callers waiting for an update to close (`wait_for: completed`), with their deadlines (update-waits.ts). */
  readonly updateWaits: UpdateWaits;
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
  /** Accepts or refuses an update (updates.ts); the retained row for a repeated request id. */
  updateWorkflow(input: UpdateWorkflowInput): CommandRow;
  registerWorker(namespace: string, input: RegisterWorkerInput): { worker_id: string; registered: true };
  workerHeartbeat(
    namespace: string,
    workerId: string,
    status?: WorkerStatusInput,
  ): { worker_id: string; acknowledged: true };
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
  /** The schedule evaluator (`schedule:evaluate`): drains buffers, fires due schedules once each (schedule-fires.ts). */
  scheduleTick(now?: number, limit?: number): TickResult[];
  /** Runs `fn` as one transition at `now` (the schedule routes' backfill walks occurrences with it). */
  transactionAt<T>(fn: (tx: Tx) => T, now?: number): T;
  /** The draw of a schedule's jitter seconds; tests pin it. */
  readonly scheduleJitter: JitterSource;
}

export interface EngineOptions {
  db: Db;
  clock: Clock;
  /** Lease durations; defaults are Durable Workflow's 300 s for both. */
  leases?: Partial<LeaseConfig>;
  /** Schedule jitter draw in [0, max] seconds; random by default. */
  scheduleJitter?: JitterSource;
}

/** How a state transition runs: alone (`transaction`) or group-committed with others (`group`). */
interface Transitions {
  transaction<T>(fn: (tx: Tx) => T, now?: number): T;
  group: GroupCommitter;
}

/**
 * Every transition refreshes the summaries of the runs it touched inside its transaction, and
 * after COMMIT publishes the history it read and wakes the pollers of what it changed.
 */
function createTransitions(rawDb: Db, db: Db, clock: Clock, leaseConfig: LeaseConfig, notifier: EngineNotifier) {
  const summaries = SummaryCache.for(rawDb);
  const historyCache = new HistoryCache();
  attachHistoryCache(db, historyCache);

  const refreshSummaries = (tx: Tx): void => {
    const scope = summaries.scope(tx.summaryStage);
    for (const runId of tx.touchedRuns) refreshRunSummary(db, runId, tx.now, scope);
  };
  // After COMMIT: the history a transition read is committed now, so later tasks may reuse it.
  const emitTaskWakeUps = (tx: Tx): void => {
    for (const [runId, events] of tx.historyOffers) historyCache.publish(runId, events);
    for (const { namespace, queue, kind } of tx.readyKeys.values()) notifier.notifyTaskReady(namespace, queue, kind);
  };
  const emitHistoryWakeUps = (tx: Tx): void => {
    for (const runId of tx.historyRuns) notifier.notifyHistory(runId);
  };

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
    emitTaskWakeUps(tx);
    emitHistoryWakeUps(tx);
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
  return { transaction, group } satisfies Transitions;
}

/** One sweep: each duty in its own transaction at the same `now`. */
function sweepAll(transaction: Transitions["transaction"], now: number): SweepReport {
  return {
    activity_timeouts: transaction((tx) => enforceActivityTimeouts(tx), now),
    activity_leases_expired: transaction((tx) => expireActivityLeases(tx), now),
    workflow_leases_expired: transaction((tx) => expireWorkflowLeases(tx), now),
    timers_fired: transaction((tx) => fireTimers(tx), now),
    cancellation_deadlines_expired: transaction((tx) => expireCancellationDeadlines(tx), now),
    deadline_tasks_created: transaction((tx) => {
      const n = createDeadlineTasks(tx);
      dueQueues(tx);
      return n;
    }, now),
  };
}

export function createEngine({ db: rawDb, clock, leases, scheduleJitter = randomJitter }: EngineOptions): Engine {
  const db = withStatementCache(rawDb);
  const leaseConfig: LeaseConfig = { ...DEFAULT_LEASES, ...leases };
  const notifier = new EngineNotifier();
  const { transaction, group } = createTransitions(rawDb, db, clock, leaseConfig, notifier);
  const pollRequests = new PollRequests();
  const workerQueues = new WorkerQueues(db);
  const queryTasks = new QueryTaskBroker(db, clock);
  const updateWaits = new UpdateWaits(db, clock, notifier);

  return {
    db,
    clock,
    notifier,
    queryTasks,
    updateWaits,
    transaction: (fn) => transaction(fn),
    startWorkflow: (input) => transaction((tx) => startWorkflow(tx, input)),
    signalWorkflow: (input) => transaction((tx) => signalWorkflow(tx, input)),
    cancelWorkflow: (input) => transaction((tx) => cancelWorkflow(tx, input)),
    terminateWorkflow: (input) => transaction((tx) => terminateWorkflow(tx, input)),
    updateWorkflow: (input) => transaction((tx) => acceptUpdate(tx, input)),
    registerWorker(namespace, input) {
      workerQueues.clear();
      return transaction((tx) => registerWorker(tx, namespace, input));
    },
    workerHeartbeat: (namespace, workerId, status) =>
      transaction((tx) => workerHeartbeat(tx, namespace, workerId, status)),
    deregisterWorker(namespace, workerId) {
      workerQueues.clear();
      return transaction((tx) => deregisterWorker(tx, namespace, workerId));
    },
    workerQueue: (namespace, workerId) => workerQueues.get(namespace, workerId),
    pollWorkflowTask: (namespace, workerId, queue, pageSize, pollRequestId) =>
      group.run((tx) => pollRequests.claim(tx, namespace, workerId, queue, pageSize, pollRequestId)),
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
    scheduleJitter,
    transactionAt: (fn, now) => transaction(fn, now),
    scheduleTick: (now = clock.now(), limit = 100) => tickSchedules(transaction, now, limit, scheduleJitter),
    sweep(now = clock.now()) {
      // Queries past their deadline answer query_worker_timeout; they write nothing, so no report field.
      queryTasks.expireDue(now);
      updateWaits.expireDue(now);
      return sweepAll(transaction, now);
    },
  };
}
