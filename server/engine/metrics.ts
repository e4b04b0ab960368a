import { isoMicros } from "../clock";
import type { Db } from "../store/db";
import type { Engine } from "./index";
import { repairStatus } from "./repair";
import { HISTORY_BUDGET, REPAIR_POLICY } from "./summary";
import type { JsonObject } from "./tx";

/** Limits the embedded server enforces or advertises (`structural_limits`, engine defaults). */
export const STRUCTURAL_LIMITS = {
  pending_activity_count: 2000,
  pending_child_count: 1000,
  pending_timer_count: 2000,
  pending_signal_count: 5000,
  pending_update_count: 500,
  command_batch_size: 1000,
  payload_size_bytes: 2_097_152,
  memo_size_bytes: 262_144,
  search_attribute_size_bytes: 40_960,
  history_transaction_size: 5000,
  warning_threshold_percent: 80,
} as const;

const WORKER_STALE_AFTER_MS = 60_000;
const WORKFLOW_TASK_LEASE_SECONDS = 300;
const ACTIVITY_TASK_LEASE_SECONDS = 300;

function counts(db: Db, namespace: string): Map<string, number> {
  const rows = db.prepare("SELECT dim, val, n FROM workflow_run_summary_counts WHERE namespace = ?").all(namespace) as {
    dim: string;
    val: string;
    n: number;
  }[];
  return new Map(rows.map((r) => [`${r.dim}:${r.val}`, r.n]));
}

function age(now: number, at: number | null): number {
  return at === null ? 0 : Math.max(0, now - at);
}

interface TaskAggregates {
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

interface ActivityAggregates {
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

interface WorkerRow {
  worker_id: string;
  namespace: string;
  host: string | null;
  process_id: string | null;
  task_queue: string;
  build_id: string | null;
  last_heartbeat_at: number;
}

/**
 * `OperatorMetrics::snapshot` for one namespace, from durable tables only. Run counts come from
 * the trigger-maintained `workflow_run_summary_counts` (no scan of the summaries), task and
 * activity counts from aggregates over open rows, ages from partial indexes, so the cost does not
 * grow with the number of closed runs.
 */
export function operatorMetrics(engine: Engine, namespace: string, now: number = engine.clock.now()): JsonObject {
  const db = engine.db;
  const c = counts(db, namespace);
  const n = (key: string): number => c.get(key) ?? 0;
  let livenessClaimFailed = 0;
  let livenessCompatBlocked = 0;
  for (const [key, value] of c) {
    if (!key.startsWith("liveness:")) continue;
    if (key.endsWith("_task_claim_failed")) livenessClaimFailed += value;
    if (key.endsWith("_task_waiting_for_compatible_worker")) livenessCompatBlocked += value;
  }
  const oldestRepair = (
    db
      .prepare(
        "SELECT MIN(updated_at) AS t FROM workflow_run_summaries WHERE namespace = ? AND liveness_state = 'repair_needed'",
      )
      .get(namespace) as { t: number | null }
  ).t;
  const oldestWait = (
    db
      .prepare(
        "SELECT MIN(wait_started_at) AS t FROM workflow_run_summaries WHERE namespace = ? AND status_bucket = 'running' AND wait_started_at IS NOT NULL",
      )
      .get(namespace) as {
      t: number | null;
    }
  ).t;
  const oldestPending = (
    db
      .prepare("SELECT MIN(sort_timestamp) AS t FROM workflow_run_summaries WHERE namespace = ? AND status = 'pending'")
      .get(namespace) as { t: number | null }
  ).t;

  const t = taskAggregates(db, namespace, now);
  const unhealthy = t.dispatch_failed + t.claim_failed + t.dispatch_overdue + t.lease_expired;
  const oldestUnhealthy = [
    t.oldest_lease_expired_at,
    t.oldest_dispatch_overdue_since,
    t.oldest_claim_failed_at,
    t.oldest_dispatch_failed_at,
  ]
    .filter((v): v is number => v !== null)
    .reduce<number | null>((m, v) => (m === null ? v : Math.min(m, v)), null);
  const a = activityAggregates(db, namespace, now);
  const failedAttempts = n("failed_attempts:");
  const addedLastMinute = (
    db
      .prepare("SELECT COUNT(*) AS n FROM workflow_tasks WHERE created_at > ? AND namespace = ?")
      .get(now - 60_000, namespace) as { n: number }
  ).n;
  const dispatchedLastMinute = (
    db
      .prepare("SELECT COUNT(*) AS n FROM workflow_tasks WHERE leased_at > ? AND namespace = ?")
      .get(now - 60_000, namespace) as { n: number }
  ).n;
  const readyStartTasks = (
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM workflow_tasks t JOIN workflow_runs r ON r.id = t.workflow_run_id
         WHERE t.status = 'ready' AND t.task_type = 'workflow' AND (t.available_at IS NULL OR t.available_at <= ?) AND t.namespace = ? AND r.status = 'pending'`,
      )
      .get(now, namespace) as { n: number }
  ).n;

  const workers = db
    .prepare(
      "SELECT worker_id, namespace, host, process_id, task_queue, build_id, last_heartbeat_at FROM worker_registrations WHERE namespace = ? AND status = 'active' AND last_heartbeat_at >= ? ORDER BY worker_id",
    )
    .all(namespace, now - WORKER_STALE_AFTER_MS) as WorkerRow[];
  const repair = repairStatus(engine, now).candidates as JsonObject;
  const summaries = n("total:");
  const projectionCounters = (extra: JsonObject): JsonObject => ({
    runs: summaries,
    rows: 0,
    projected_runs: 0,
    stale_projected_runs: 0,
    orphaned: 0,
    needs_rebuild: 0,
    oldest_updated_at: null,
    newest_updated_at: null,
    ...extra,
  });

  return {
    generated_at: isoMicros(now),
    runs: {
      total: summaries,
      current: n("current:"),
      running: n("status:pending") + n("status:running") + n("status:waiting"),
      completed: n("status:completed"),
      failed: n("status:failed"),
      cancelled: n("status:cancelled"),
      terminated: n("status:terminated"),
      archived: n("archived:"),
      repair_needed: n("liveness:repair_needed"),
      oldest_repair_needed_at: isoMicros(oldestRepair),
      max_repair_needed_age_ms: age(now, oldestRepair),
      claim_failed: livenessClaimFailed,
      compatibility_blocked: livenessCompatBlocked,
      waiting: n("waiting:"),
      oldest_wait_started_at: isoMicros(oldestWait),
      max_wait_age_ms: age(now, oldestWait),
    },
    tasks: {
      open: t.open,
      ready: t.ready,
      ready_due: t.ready_due,
      delayed: t.delayed,
      leased: t.leased,
      dispatch_failed: t.dispatch_failed,
      claim_failed: t.claim_failed,
      dispatch_overdue: t.dispatch_overdue,
      lease_expired: t.lease_expired,
      oldest_lease_expired_at: isoMicros(t.oldest_lease_expired_at),
      max_lease_expired_age_ms: age(now, t.oldest_lease_expired_at),
      oldest_ready_due_at: isoMicros(t.oldest_ready_due_at),
      max_ready_due_age_ms: age(now, t.oldest_ready_due_at),
      oldest_dispatch_overdue_since: isoMicros(t.oldest_dispatch_overdue_since),
      max_dispatch_overdue_age_ms: age(now, t.oldest_dispatch_overdue_since),
      oldest_claim_failed_at: isoMicros(t.oldest_claim_failed_at),
      max_claim_failed_age_ms: age(now, t.oldest_claim_failed_at),
      oldest_dispatch_failed_at: isoMicros(t.oldest_dispatch_failed_at),
      max_dispatch_failed_age_ms: age(now, t.oldest_dispatch_failed_at),
      max_attempt_count: t.max_attempt_count ?? 0,
      max_repair_count: t.max_repair_count ?? 0,
      unhealthy,
      oldest_unhealthy_at: isoMicros(oldestUnhealthy),
      max_unhealthy_age_ms: age(now, oldestUnhealthy),
    },
    activities: {
      open: a.open,
      pending: a.pending,
      running: a.running,
      // The worker protocol has no local activities, so every activity is queued.
      local: 0,
      local_open: 0,
      local_pending: 0,
      local_running: 0,
      local_attempts: 0,
      local_failed_attempts: 0,
      queued_open: a.open,
      queued_pending: a.pending,
      queued_running: a.running,
      queued_failed_attempts: failedAttempts,
      retrying: a.retrying,
      oldest_retrying_started_at: isoMicros(a.oldest_retrying_started_at),
      max_retrying_age_ms: age(now, a.oldest_retrying_started_at),
      timeout_overdue: a.timeout_overdue,
      oldest_timeout_overdue_at: isoMicros(a.oldest_timeout_overdue_at),
      max_timeout_overdue_age_ms: age(now, a.oldest_timeout_overdue_at),
      failed_attempts: failedAttempts,
      max_attempt_count: a.max_attempt_count ?? 0,
    },
    backlog: {
      runnable_tasks: t.ready_due,
      delayed_tasks: t.delayed,
      leased_tasks: t.leased,
      tasks_added_last_minute: addedLastMinute,
      tasks_dispatched_last_minute: dispatchedLastMinute,
      retrying_activities: a.retrying,
      unhealthy_tasks: unhealthy,
      repair_needed_runs: n("liveness:repair_needed"),
      claim_failed_runs: livenessClaimFailed,
      compatibility_blocked_runs: livenessCompatBlocked,
      oldest_compatibility_blocked_started_at: null,
      max_compatibility_blocked_age_ms: 0,
    },
    repair,
    starts: {
      pending_runs: n("status:pending"),
      pending_commands: n("status:pending"),
      ready_tasks: readyStartTasks,
      oldest_pending_start_at: isoMicros(oldestPending),
      max_pending_ms: age(now, oldestPending),
    },
    history: {
      continue_as_new_recommended_runs: n("pressure:continue_as_new_recommended"),
      approaching_budget_runs: n("pressure:approaching"),
      events: n("events:"),
      history_orphan_total: 0,
      max_event_count: n("max_events:"),
      max_size_bytes: n("max_size_bytes:"),
      max_fan_out: n("max_fan_out:"),
      ...HISTORY_BUDGET,
    },
    command_contracts: {
      backfill_needed_runs: 0,
      backfill_available_runs: 0,
      backfill_unavailable_runs: 0,
      actionable_backfill_needed_runs: 0,
      actionable_backfill_available_runs: 0,
      actionable_backfill_unavailable_runs: 0,
      closed_backfill_needed_runs: 0,
    },
    projections: {
      // Summaries are written in the same transaction as every transition, so none can be missing.
      run_summaries: {
        runs: summaries,
        summaries,
        missing: 0,
        orphaned: 0,
        stale: 0,
        schema_outdated: 0,
        needs_rebuild: 0,
        // Update times are not indexed; scanning a million rows for them would break the latency budget.
        oldest_updated_at: null,
        newest_updated_at: null,
        oldest_missing_run_started_at: null,
        max_missing_run_age_ms: 0,
      },
      // The selected-run projections are rebuilt from history on every read; nothing is stored to drift.
      run_waits: projectionCounters({
        runs_with_waits: 0,
        projected_runs_with_waits: 0,
        missing_runs_with_waits: 0,
        summaries_with_open_waits: 0,
        projected_current_open_waits: 0,
        missing_current_open_waits: 0,
      }),
      run_timeline_entries: projectionCounters({
        history_events: n("events:"),
        runs_with_history: summaries,
        projected_runs_with_history: 0,
        missing_runs_with_history: 0,
        missing_history_events: 0,
      }),
      run_timer_entries: projectionCounters({
        runs_with_timers: 0,
        projected_runs_with_timers: 0,
        missing_runs_with_timers: 0,
        schema_version_mismatch_runs: 0,
        schema_version_mismatch_rows: 0,
      }),
      run_lineage_entries: projectionCounters({
        runs_with_lineage: 0,
        projected_runs_with_lineage: 0,
        missing_runs_with_lineage: 0,
      }),
    },
    schedules: {
      active: 0,
      paused: 0,
      missed: 0,
      oldest_overdue_at: null,
      max_overdue_ms: 0,
      fires_total: 0,
      failures_total: 0,
    },
    workers: {
      compatibility_namespace: namespace,
      required_compatibility: null,
      active_workers: new Set(workers.map((w) => w.worker_id)).size,
      active_worker_scopes: workers.length,
      active_workers_supporting_required: new Set(workers.map((w) => w.worker_id)).size,
      fleet: workers.map((w) => ({
        worker_id: w.worker_id,
        namespace: w.namespace,
        host: w.host,
        process_id: w.process_id,
        connection: null,
        queue: w.task_queue,
        supported: w.build_id ? [w.build_id] : [],
        supports_required: true,
        recorded_at: isoMicros(w.last_heartbeat_at),
        expires_at: isoMicros(w.last_heartbeat_at + WORKER_STALE_AFTER_MS),
        source: "database",
      })),
    },
    backend: {
      generated_at: isoMicros(now),
      readiness_contract: { schema: "durable-workflow.v2.backend-readiness", version: 1 },
      supported: true,
      database: {
        connection: "sqlite",
        driver: "sqlite",
        supported: true,
        capabilities: { transactions: true, after_commit_callbacks: true, durable_ordering: true, row_locks: false },
        issues: [],
      },
      queue: {
        connection: "poll",
        driver: "poll",
        supported: true,
        capabilities: {
          async_delivery: true,
          delayed_delivery: true,
          requires_worker: true,
          max_delay_seconds: null,
          after_commit_option: true,
        },
        issues: [],
      },
      cache: { store: "memory", supported: true, issues: [] },
      codec: { default: "avro", supported: ["avro"], issues: [] },
      structural_limits: { ...STRUCTURAL_LIMITS },
      severity: "ok",
      issues: [],
    },
    structural_limits: { ...STRUCTURAL_LIMITS },
    update_wait: { completion_timeout_seconds: 10, poll_interval_milliseconds: 50 },
    repair_policy: { ...REPAIR_POLICY },
    matching_role: {
      queue_wake_enabled: true,
      shape: "in_worker",
      wake_owner: "worker_loop",
      task_dispatch_mode: "poll",
      partition_primitives: ["connection", "queue", "compatibility", "namespace"],
      backpressure_model: "lease_ownership",
      discovery_limits: {
        poll_batch_cap: 100,
        availability_ceiling_seconds: 1,
        wake_signal_ttl_seconds: 60,
        workflow_task_lease_seconds: WORKFLOW_TASK_LEASE_SECONDS,
        activity_task_lease_seconds: ACTIVITY_TASK_LEASE_SECONDS,
      },
    },
    sticky_execution: {
      enabled: false,
      ttl_seconds: 0,
      active_sticky_runs: 0,
      ready_sticky_tasks: 0,
      leased_sticky_tasks: 0,
      hit_expected_last_minute: 0,
      miss_last_minute: 0,
      forced_cold_replay_last_minute: 0,
      cold_replay_last_minute: 0,
      hit_rate_last_minute: 0,
      miss_rate_last_minute: 0,
      capacity_pressure_tasks: 0,
    },
  };
}

const PROJECTION_TABLES = [
  "run_summaries",
  "run_waits",
  "run_timeline_entries",
  "run_timer_entries",
  "run_lineage_entries",
] as const;

/** `GET /system/metrics`: consecutive workflow-task failures by type (bounded series) and projection drift. */
export function systemMetrics(
  engine: Engine,
  namespace: string,
  limit: number,
  now: number = engine.clock.now(),
): JsonObject {
  const rows = engine.db
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
  const sorted = [...byType.entries()]
    .map(([workflow_type, e]) => ({ workflow_type, max_consecutive_failures: e.max, failed_task_count: e.count }))
    .sort(
      (x, y) => y.max_consecutive_failures - x.max_consecutive_failures || (x.workflow_type < y.workflow_type ? -1 : 1),
    );
  const shown = sorted.slice(0, limit);
  const suppressed = sorted.slice(limit);
  const typePolicy = {
    namespace: "request_scope_not_label",
    workflow_type: {
      cardinality_class: "bounded_series",
      limit,
      selection: "top_by_max_consecutive_failures_then_name",
    },
  };
  const driftPolicy = {
    namespace: "server_scope_no_label",
    table: {
      cardinality_class: "finite_projection_table_inventory",
      values: [...PROJECTION_TABLES],
      selection: "fixed_projection_table_inventory",
    },
  };
  return {
    generated_at: isoMicros(now),
    namespace,
    metrics: {
      dw_workflow_task_consecutive_failures: {
        max_consecutive_failures: sorted.reduce((m, r) => Math.max(m, r.max_consecutive_failures), 0),
        failed_task_count: sorted.reduce((s, r) => s + r.failed_task_count, 0),
        workflow_type_count: sorted.length,
        workflow_type_limit: limit,
        workflow_types_truncated: suppressed.length > 0,
        suppressed_workflow_type_count: suppressed.length,
        suppressed_failed_task_count: suppressed.reduce((s, r) => s + r.failed_task_count, 0),
        label_cardinality_policy: typePolicy,
        by_workflow_type: shown,
      },
      dw_projection_drift_total: {
        total: 0,
        table_count: PROJECTION_TABLES.length,
        tables_with_drift: 0,
        scope: "server",
        label_cardinality_policy: driftPolicy,
        by_table: PROJECTION_TABLES.map((table) => ({ table, needs_rebuild: 0 })),
      },
    },
    cardinality: {
      metric_label_sets: { dw_workflow_task_consecutive_failures: typePolicy, dw_projection_drift_total: driftPolicy },
    },
  };
}
