import type { Db } from "../store/db";
import { REPAIR_POLICY } from "./task-health";

/**
 * The queries behind `OperatorMetrics::snapshot` (metrics.ts shapes their answers into the
 * envelope). Run counts come from the trigger-maintained `workflow_run_summary_counts` (no scan of
 * the summaries), task and activity counts from aggregates over open rows, ages from partial
 * indexes, so the cost does not grow with the number of closed runs.
 */

export const WORKER_STALE_AFTER_MS = 60_000;

function summaryCounts(db: Db, namespace: string): Map<string, number> {
  const rows = db.prepare("SELECT dim, val, n FROM workflow_run_summary_counts WHERE namespace = ?").all(namespace) as {
    dim: string;
    val: string;
    n: number;
  }[];
  return new Map(rows.map((r) => [`${r.dim}:${r.val}`, r.n]));
}

export interface TaskAggregates {
  open: number;
  ready: number;
  ready_due: number;
  delayed: number;
  leased: number;
  dispatch_failed: number;
  claim_failed: number;
  dispatch_overdue: number;
  lease_expired: number;
  oldest_lease_expired_at: number | null;
  oldest_ready_due_at: number | null;
  oldest_dispatch_overdue_since: number | null;
  oldest_claim_failed_at: number | null;
  oldest_dispatch_failed_at: number | null;
  max_attempt_count: number | null;
  max_repair_count: number | null;
}

/**
 * One aggregate pass over the namespace's open tasks (index `workflow_tasks_status_available`);
 * the predicates are the SQL forms of the ones in summary.ts.
 */
function taskAggregates(db: Db, namespace: string, now: number): TaskAggregates {
  return db
    .prepare(
      `WITH t AS (
         SELECT *,
           status = 'ready' AND (available_at IS NULL OR available_at <= @now) AS due,
           status = 'ready' AND last_dispatch_attempt_at IS NOT NULL AND COALESCE(last_dispatch_error, '') != ''
             AND (last_dispatched_at IS NULL OR last_dispatched_at < last_dispatch_attempt_at) AS dfailed,
           status = 'ready' AND last_claim_failed_at IS NOT NULL AND COALESCE(last_claim_error, '') != '' AS cfailed,
           status = 'leased' AND lease_expires_at IS NOT NULL AND lease_expires_at <= @now AS expired
         FROM workflow_tasks WHERE status IN ('ready', 'leased') AND namespace = @ns),
       u AS (SELECT *, due AND NOT dfailed AND NOT cfailed AND last_dispatch_attempt_at IS NOT NULL AND last_dispatched_at IS NULL
               AND last_dispatch_attempt_at <= @overdue AS overdue FROM t)
       SELECT COUNT(*) AS open,
         COALESCE(SUM(status = 'ready'), 0) AS ready,
         COALESCE(SUM(due), 0) AS ready_due,
         COALESCE(SUM(status = 'ready' AND NOT due), 0) AS delayed,
         COALESCE(SUM(status = 'leased'), 0) AS leased,
         COALESCE(SUM(dfailed), 0) AS dispatch_failed,
         COALESCE(SUM(cfailed), 0) AS claim_failed,
         COALESCE(SUM(overdue), 0) AS dispatch_overdue,
         COALESCE(SUM(expired), 0) AS lease_expired,
         MIN(CASE WHEN expired THEN lease_expires_at END) AS oldest_lease_expired_at,
         MIN(CASE WHEN due THEN COALESCE(available_at, created_at) END) AS oldest_ready_due_at,
         MIN(CASE WHEN overdue THEN last_dispatch_attempt_at END) AS oldest_dispatch_overdue_since,
         MIN(CASE WHEN cfailed THEN last_claim_failed_at END) AS oldest_claim_failed_at,
         MIN(CASE WHEN dfailed THEN last_dispatch_attempt_at END) AS oldest_dispatch_failed_at,
         MAX(attempt_count) AS max_attempt_count,
         MAX(repair_count) AS max_repair_count
       FROM u`,
    )
    .get({ ns: namespace, now, overdue: now - REPAIR_POLICY.redispatch_after_seconds * 1000 }) as TaskAggregates;
}

export interface ActivityAggregates {
  open: number;
  pending: number;
  running: number;
  retrying: number;
  oldest_retrying_started_at: number | null;
  timeout_overdue: number;
  oldest_timeout_overdue_at: number | null;
  max_attempt_count: number | null;
}

function activityAggregates(db: Db, namespace: string, now: number): ActivityAggregates {
  return db
    .prepare(
      `WITH a AS (
         SELECT e.*,
           MIN(COALESCE(CASE WHEN e.status = 'pending' THEN e.schedule_deadline_at END, 9e18),
               COALESCE(CASE WHEN e.status = 'running' THEN e.close_deadline_at END, 9e18),
               COALESCE(CASE WHEN e.status = 'running' THEN e.heartbeat_deadline_at END, 9e18),
               COALESCE(e.schedule_to_close_deadline_at, 9e18)) AS deadline
         FROM activity_executions e JOIN workflow_runs r ON r.id = e.workflow_run_id
         WHERE e.status IN ('pending', 'running') AND r.namespace = @ns)
       SELECT COUNT(*) AS open,
         COALESCE(SUM(status = 'pending'), 0) AS pending,
         COALESCE(SUM(status = 'running'), 0) AS running,
         COALESCE(SUM(status = 'pending' AND attempt_count > 0), 0) AS retrying,
         MIN(CASE WHEN status = 'pending' AND attempt_count > 0 THEN COALESCE(started_at, created_at) END) AS oldest_retrying_started_at,
         COALESCE(SUM(deadline <= @now), 0) AS timeout_overdue,
         MIN(CASE WHEN deadline <= @now THEN deadline END) AS oldest_timeout_overdue_at,
         MAX(attempt_count) AS max_attempt_count
       FROM a`,
    )
    .get({ ns: namespace, now }) as ActivityAggregates;
}

export interface WorkerRow {
  worker_id: string;
  namespace: string;
  host: string | null;
  process_id: string | null;
  task_queue: string;
  build_id: string | null;
  last_heartbeat_at: number;
}

/** `dim:val` → count from `workflow_run_summary_counts`; a missing key counts 0. */
export interface RunCounts {
  n(key: string): number;
  /** Runs whose liveness is some `*_task_claim_failed`. */
  livenessClaimFailed: number;
  /** Runs whose liveness is some `*_task_waiting_for_compatible_worker`. */
  livenessCompatBlocked: number;
}

function runCounts(db: Db, namespace: string): RunCounts {
  const c = summaryCounts(db, namespace);
  let livenessClaimFailed = 0;
  let livenessCompatBlocked = 0;
  for (const [key, value] of c) {
    if (!key.startsWith("liveness:")) continue;
    if (key.endsWith("_task_claim_failed")) livenessClaimFailed += value;
    if (key.endsWith("_task_waiting_for_compatible_worker")) livenessCompatBlocked += value;
  }
  return { n: (key) => c.get(key) ?? 0, livenessClaimFailed, livenessCompatBlocked };
}

/** The oldest summary times the metrics report ages from (each one index-backed). */
export interface SummaryAges {
  oldestRepairNeeded: number | null;
  oldestWaitStarted: number | null;
  oldestPendingStart: number | null;
}

function minTime(db: Db, sql: string, ...params: unknown[]): number | null {
  return (db.prepare(sql).get(...params) as { t: number | null }).t;
}

function summaryAges(db: Db, namespace: string): SummaryAges {
  return {
    oldestRepairNeeded: minTime(
      db,
      "SELECT MIN(updated_at) AS t FROM workflow_run_summaries WHERE namespace = ? AND liveness_state = 'repair_needed'",
      namespace,
    ),
    oldestWaitStarted: minTime(
      db,
      "SELECT MIN(wait_started_at) AS t FROM workflow_run_summaries WHERE namespace = ? AND status_bucket = 'running' AND wait_started_at IS NOT NULL",
      namespace,
    ),
    oldestPendingStart: minTime(
      db,
      "SELECT MIN(sort_timestamp) AS t FROM workflow_run_summaries WHERE namespace = ? AND status = 'pending'",
      namespace,
    ),
  };
}

/** Task flow over the last minute, and the ready workflow tasks of runs not started yet. */
export interface TaskFlow {
  addedLastMinute: number;
  dispatchedLastMinute: number;
  readyStartTasks: number;
}

function count(db: Db, sql: string, ...params: unknown[]): number {
  return (db.prepare(sql).get(...params) as { n: number }).n;
}

function taskFlow(db: Db, namespace: string, now: number): TaskFlow {
  return {
    addedLastMinute: count(
      db,
      "SELECT COUNT(*) AS n FROM workflow_tasks WHERE created_at > ? AND namespace = ?",
      now - 60_000,
      namespace,
    ),
    dispatchedLastMinute: count(
      db,
      "SELECT COUNT(*) AS n FROM workflow_tasks WHERE leased_at > ? AND namespace = ?",
      now - 60_000,
      namespace,
    ),
    readyStartTasks: count(
      db,
      `SELECT COUNT(*) AS n FROM workflow_tasks t JOIN workflow_runs r ON r.id = t.workflow_run_id
         WHERE t.status = 'ready' AND t.task_type = 'workflow' AND (t.available_at IS NULL OR t.available_at <= ?) AND t.namespace = ? AND r.status = 'pending'`,
      now,
      namespace,
    ),
  };
}

/** Registrations that heartbeat within the stale window, one row per (worker, queue) scope. */
function activeWorkers(db: Db, namespace: string, now: number): WorkerRow[] {
  return db
    .prepare(
      "SELECT worker_id, namespace, host, process_id, task_queue, build_id, last_heartbeat_at FROM worker_registrations WHERE namespace = ? AND status = 'active' AND last_heartbeat_at >= ? ORDER BY worker_id",
    )
    .all(namespace, now - WORKER_STALE_AFTER_MS) as WorkerRow[];
}

/** Everything the operator metrics report, read from durable tables for one namespace at `now`. */
export interface MetricFacts {
  runs: RunCounts;
  ages: SummaryAges;
  tasks: TaskAggregates;
  activities: ActivityAggregates;
  flow: TaskFlow;
  workers: WorkerRow[];
}

export function readMetricFacts(db: Db, namespace: string, now: number): MetricFacts {
  return {
    runs: runCounts(db, namespace),
    ages: summaryAges(db, namespace),
    tasks: taskAggregates(db, namespace, now),
    activities: activityAggregates(db, namespace, now),
    flow: taskFlow(db, namespace, now),
    workers: activeWorkers(db, namespace, now),
  };
}

/** Failed workflow tasks of open runs, per type: the largest count on one run, and the total. */
export interface WorkflowTypeFailures {
  workflow_type: string;
  max_consecutive_failures: number;
  failed_task_count: number;
}

/** Sorted by the largest per-run count, then by type name. */
export function workflowTaskFailuresByType(db: Db, namespace: string): WorkflowTypeFailures[] {
  const rows = db
    .prepare(
      `SELECT r.workflow_type AS workflow_type, COUNT(*) AS failures FROM workflow_tasks t JOIN workflow_runs r ON r.id = t.workflow_run_id
       WHERE t.status = 'failed' AND t.task_type = 'workflow' AND t.namespace = ? AND r.status IN ('pending', 'running', 'waiting')
       GROUP BY t.workflow_run_id`,
    )
    .all(namespace) as { workflow_type: string; failures: number }[];
  const byType = new Map<string, { max: number; count: number }>();
  for (const r of rows) {
    const e = byType.get(r.workflow_type) ?? { max: 0, count: 0 };
    e.max = Math.max(e.max, r.failures);
    e.count += r.failures;
    byType.set(r.workflow_type, e);
  }
  return [...byType.entries()]
    .map(([workflow_type, e]) => ({ workflow_type, max_consecutive_failures: e.max, failed_task_count: e.count }))
    .sort(
      (x, y) => y.max_consecutive_failures - x.max_consecutive_failures || (x.workflow_type < y.workflow_type ? -1 : 1),
    );
}
