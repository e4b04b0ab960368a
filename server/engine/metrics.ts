import { isoMicros } from "../clock";
import type { Engine } from "./index";
import type {
  ActivityAggregates,
  MetricFacts,
  RunCounts,
  SummaryAges,
  TaskAggregates,
  WorkerRow,
} from "./metric-facts";
import { readMetricFacts, WORKER_STALE_AFTER_MS } from "./metric-facts";
import { repairStatus } from "./repair-pass";
import { HISTORY_BUDGET } from "./summary";
import { REPAIR_POLICY } from "./task-health";
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

const WORKFLOW_TASK_LEASE_SECONDS = 300;
const ACTIVITY_TASK_LEASE_SECONDS = 300;

function age(now: number, at: number | null): number {
  return at === null ? 0 : Math.max(0, now - at);
}

function runsSection(runs: RunCounts, ages: SummaryAges, now: number): JsonObject {
  const { n } = runs;
  return {
    total: n("total:"),
    current: n("current:"),
    running: n("status:pending") + n("status:running") + n("status:waiting"),
    completed: n("status:completed"),
    failed: n("status:failed"),
    cancelled: n("status:cancelled"),
    terminated: n("status:terminated"),
    archived: n("archived:"),
    repair_needed: n("liveness:repair_needed"),
    oldest_repair_needed_at: isoMicros(ages.oldestRepairNeeded),
    max_repair_needed_age_ms: age(now, ages.oldestRepairNeeded),
    claim_failed: runs.livenessClaimFailed,
    compatibility_blocked: runs.livenessCompatBlocked,
    waiting: n("waiting:"),
    oldest_wait_started_at: isoMicros(ages.oldestWaitStarted),
    max_wait_age_ms: age(now, ages.oldestWaitStarted),
  };
}

/** Tasks the watchdog would repair, and the oldest time any of them went wrong. */
function unhealthyTasks(t: TaskAggregates): { count: number; oldestAt: number | null } {
  const oldestAt = [
    t.oldest_lease_expired_at,
    t.oldest_dispatch_overdue_since,
    t.oldest_claim_failed_at,
    t.oldest_dispatch_failed_at,
  ]
    .filter((v): v is number => v !== null)
    .reduce<number | null>((m, v) => (m === null ? v : Math.min(m, v)), null);
  return { count: t.dispatch_failed + t.claim_failed + t.dispatch_overdue + t.lease_expired, oldestAt };
}

function tasksSection(t: TaskAggregates, now: number): JsonObject {
  const unhealthy = unhealthyTasks(t);
  return {
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
    unhealthy: unhealthy.count,
    oldest_unhealthy_at: isoMicros(unhealthy.oldestAt),
    max_unhealthy_age_ms: age(now, unhealthy.oldestAt),
  };
}

function activitiesSection(a: ActivityAggregates, failedAttempts: number, now: number): JsonObject {
  return {
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
  };
}

function backlogSection(f: MetricFacts): JsonObject {
  return {
    runnable_tasks: f.tasks.ready_due,
    delayed_tasks: f.tasks.delayed,
    leased_tasks: f.tasks.leased,
    tasks_added_last_minute: f.flow.addedLastMinute,
    tasks_dispatched_last_minute: f.flow.dispatchedLastMinute,
    retrying_activities: f.activities.retrying,
    unhealthy_tasks: unhealthyTasks(f.tasks).count,
    repair_needed_runs: f.runs.n("liveness:repair_needed"),
    claim_failed_runs: f.runs.livenessClaimFailed,
    compatibility_blocked_runs: f.runs.livenessCompatBlocked,
    oldest_compatibility_blocked_started_at: null,
    max_compatibility_blocked_age_ms: 0,
  };
}

function startsSection(f: MetricFacts, now: number): JsonObject {
  return {
    pending_runs: f.runs.n("status:pending"),
    pending_commands: f.runs.n("status:pending"),
    ready_tasks: f.flow.readyStartTasks,
    oldest_pending_start_at: isoMicros(f.ages.oldestPendingStart),
    max_pending_ms: age(now, f.ages.oldestPendingStart),
  };
}

function historySection({ n }: RunCounts): JsonObject {
  return {
    continue_as_new_recommended_runs: n("pressure:continue_as_new_recommended"),
    approaching_budget_runs: n("pressure:approaching"),
    events: n("events:"),
    history_orphan_total: 0,
    max_event_count: n("max_events:"),
    max_size_bytes: n("max_size_bytes:"),
    max_fan_out: n("max_fan_out:"),
    ...HISTORY_BUDGET,
  };
}

/** This server records no command contracts that would need a backfill. */
function commandContractsSection(): JsonObject {
  return {
    backfill_needed_runs: 0,
    backfill_available_runs: 0,
    backfill_unavailable_runs: 0,
    actionable_backfill_needed_runs: 0,
    actionable_backfill_available_runs: 0,
    actionable_backfill_unavailable_runs: 0,
    closed_backfill_needed_runs: 0,
  };
}

// Summaries are written in the same transaction as every transition, so none can be missing.
function runSummariesProjection(summaries: number): JsonObject {
  return {
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
  };
}

// The selected-run projections are rebuilt from history on every read; nothing is stored to drift.
function projectionsSection({ n }: RunCounts): JsonObject {
  const summaries = n("total:");
  const counters = (extra: JsonObject): JsonObject => ({
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
    run_summaries: runSummariesProjection(summaries),
    run_waits: counters({
      runs_with_waits: 0,
      projected_runs_with_waits: 0,
      missing_runs_with_waits: 0,
      summaries_with_open_waits: 0,
      projected_current_open_waits: 0,
      missing_current_open_waits: 0,
    }),
    run_timeline_entries: counters({
      history_events: n("events:"),
      runs_with_history: summaries,
      projected_runs_with_history: 0,
      missing_runs_with_history: 0,
      missing_history_events: 0,
    }),
    run_timer_entries: counters({
      runs_with_timers: 0,
      projected_runs_with_timers: 0,
      missing_runs_with_timers: 0,
      schema_version_mismatch_runs: 0,
      schema_version_mismatch_rows: 0,
    }),
    run_lineage_entries: counters({
      runs_with_lineage: 0,
      projected_runs_with_lineage: 0,
      missing_runs_with_lineage: 0,
    }),
  };
}

/** This server runs no schedules. */
function schedulesSection(): JsonObject {
  return {
    active: 0,
    paused: 0,
    missed: 0,
    oldest_overdue_at: null,
    max_overdue_ms: 0,
    fires_total: 0,
    failures_total: 0,
  };
}

function workersSection(namespace: string, workers: WorkerRow[]): JsonObject {
  return {
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
  };
}

/** `backend`: the readiness of this server's storage, queue, cache and codec (all built in, all supported). */
function backendSection(now: number): JsonObject {
  return {
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
  };
}

/** Workers long-poll their queue: matching happens in the worker loop, ownership by lease. */
function matchingRoleSection(): JsonObject {
  return {
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
  };
}

/** This server has no sticky execution: every workflow task replays from history. */
function stickyExecutionSection(): JsonObject {
  return {
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
  };
}

/**
 * `OperatorMetrics::snapshot` for one namespace, from durable tables only (metric-facts.ts reads
 * them; the cost does not grow with the number of closed runs), in the engine's envelope.
 */
export function operatorMetrics(engine: Engine, namespace: string, now: number = engine.clock.now()): JsonObject {
  const f = readMetricFacts(engine.db, namespace, now);
  const repair = repairStatus(engine, now).candidates as JsonObject;
  return {
    generated_at: isoMicros(now),
    runs: runsSection(f.runs, f.ages, now),
    tasks: tasksSection(f.tasks, now),
    activities: activitiesSection(f.activities, f.runs.n("failed_attempts:"), now),
    backlog: backlogSection(f),
    repair,
    starts: startsSection(f, now),
    history: historySection(f.runs),
    command_contracts: commandContractsSection(),
    projections: projectionsSection(f.runs),
    schedules: schedulesSection(),
    workers: workersSection(namespace, f.workers),
    backend: backendSection(now),
    structural_limits: { ...STRUCTURAL_LIMITS },
    update_wait: { completion_timeout_seconds: 10, poll_interval_milliseconds: 50 },
    repair_policy: { ...REPAIR_POLICY },
    matching_role: matchingRoleSection(),
    sticky_execution: stickyExecutionSection(),
  };
}
