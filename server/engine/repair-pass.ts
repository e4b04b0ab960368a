import { isoMicros } from "../clock";
import type { Engine } from "./index";
import type { TaskRow } from "./rows";
import { isTerminal } from "./rows";
import { projectRunSummary, refreshRunSummary } from "./summary";
import { REPAIR_POLICY } from "./task-health";
import type { JsonObject } from "./tx";
import { needsRecovery, recoverExistingTask, repairRun } from "./repair";
import { createDeadlineTasks } from "./sweep";
import { enforceActivityTimeouts } from "./activity-timeouts";

/**
 * The task watchdog's pass (`TaskWatchdog`): which runs need repair, chosen fairly across
 * (connection, queue, compatibility) scopes, and the pass that refreshes stale summaries, repairs
 * them (repair.ts) and runs the engine sweep. `repairStatus` reports the same selection.
 */

export interface RepairScope {
  scope_key: string;
  connection: string | null;
  queue: string | null;
  compatibility: string | null;
}

function scopeKey(connection: string | null, queue: string | null, compatibility: string | null): string {
  return `${connection ?? "default"}:${queue ?? "default"}:${compatibility ?? "any"}`;
}

interface ExistingCandidate {
  id: string;
  workflow_run_id: string;
  connection: string | null;
  queue: string | null;
  compatibility: string | null;
  created_at: number;
  ord: number;
}

interface MissingCandidate {
  id: string;
  connection: string | null;
  queue: string | null;
  compatibility: string | null;
  since: number;
}

/**
 * Existing-task candidates (`TaskRepairCandidates::taskIds`): leased tasks whose lease expired, and
 * ready due tasks whose dispatch or claim failed or whose dispatch is overdue, past their repair
 * backoff. Fetched per scope, oldest first, at most `scan_limit` per scope.
 */
function existingCandidates(engine: Engine, now: number, runIds: string[] | null): ExistingCandidate[] {
  const filter = runIds ? `AND workflow_run_id IN (${runIds.map(() => "?").join(", ")})` : "";
  const overdueBefore = now - REPAIR_POLICY.redispatch_after_seconds * 1000;
  return engine.db
    .prepare(
      `SELECT id, workflow_run_id, connection, queue, compatibility, created_at, ord FROM (
         SELECT id, workflow_run_id, connection, queue, compatibility, created_at,
           ROW_NUMBER() OVER (PARTITION BY connection, queue, compatibility ORDER BY COALESCE(available_at, created_at), created_at, id) AS ord
         FROM workflow_tasks WHERE (
           (status = 'leased' AND lease_expires_at IS NOT NULL AND lease_expires_at <= @now)
           OR (status = 'ready' AND (available_at IS NULL OR available_at <= @now) AND (repair_available_at IS NULL OR repair_available_at <= @now) AND (
             (last_dispatch_attempt_at IS NOT NULL AND last_dispatch_error IS NOT NULL AND last_dispatch_error != '' AND (last_dispatched_at IS NULL OR last_dispatched_at < last_dispatch_attempt_at))
             OR (last_claim_failed_at IS NOT NULL AND last_claim_error IS NOT NULL AND last_claim_error != '')
             OR (last_dispatch_attempt_at IS NOT NULL AND last_dispatched_at IS NULL AND last_dispatch_attempt_at <= @overdue))))
           ${filter}
       ) ORDER BY ord, created_at, id`,
    )
    .all({ now, overdue: overdueBefore }, ...(runIds ?? [])) as ExistingCandidate[];
}

function missingCandidates(engine: Engine, runIds: string[] | null): MissingCandidate[] {
  const filter = runIds ? `AND id IN (${runIds.map(() => "?").join(", ")})` : "";
  return engine.db
    .prepare(
      `SELECT id, connection, queue, compatibility, COALESCE(wait_started_at, started_at, created_at) AS since FROM workflow_run_summaries
       WHERE liveness_state = 'repair_needed' AND next_task_id IS NULL AND status IN ('pending', 'running', 'waiting') ${filter}
       ORDER BY since, id LIMIT 10000`,
    )
    .all(...(runIds ?? [])) as MissingCandidate[];
}

interface ScopeStats extends RepairScope {
  existing: number;
  missing: number;
  selectedExisting: number;
  selectedMissing: number;
  oldestTask: number | null;
  oldestMissing: number | null;
}

interface Selection {
  existing: ExistingCandidate[];
  missing: MissingCandidate[];
  selectedExisting: ExistingCandidate[];
  selectedMissing: MissingCandidate[];
  scopes: ScopeStats[];
}

/** Fair round-robin across scopes: each scope yields its oldest candidate in turn until `scan_limit`. */
function select(engine: Engine, now: number, runIds: string[] | null): Selection {
  const existing = existingCandidates(engine, now, runIds);
  const missing = missingCandidates(engine, runIds);
  const scopes = new Map<string, ScopeStats>();
  const scopeOf = (c: {
    connection: string | null;
    queue: string | null;
    compatibility: string | null;
  }): ScopeStats => {
    const key = scopeKey(c.connection, c.queue, c.compatibility);
    let s = scopes.get(key);
    if (!s) {
      s = {
        scope_key: key,
        connection: c.connection,
        queue: c.queue,
        compatibility: c.compatibility,
        existing: 0,
        missing: 0,
        selectedExisting: 0,
        selectedMissing: 0,
        oldestTask: null,
        oldestMissing: null,
      };
      scopes.set(key, s);
    }
    return s;
  };
  const queues = new Map<string, { kind: "existing" | "missing"; item: ExistingCandidate | MissingCandidate }[]>();
  // Append in place: copying the scope's list per candidate made selection quadratic (10,000
  // missing candidates in one scope were slow on every operator-metrics call).
  const pushToQueue = (
    key: string,
    entry: { kind: "existing" | "missing"; item: ExistingCandidate | MissingCandidate },
  ): void => {
    const list = queues.get(key);
    if (list) list.push(entry);
    else queues.set(key, [entry]);
  };
  for (const c of existing) {
    const s = scopeOf(c);
    s.existing += 1;
    s.oldestTask = s.oldestTask === null ? c.created_at : Math.min(s.oldestTask, c.created_at);
    pushToQueue(s.scope_key, { kind: "existing", item: c });
  }
  for (const c of missing) {
    const s = scopeOf(c);
    s.missing += 1;
    s.oldestMissing = s.oldestMissing === null ? c.since : Math.min(s.oldestMissing, c.since);
    pushToQueue(s.scope_key, { kind: "missing", item: c });
  }
  const selectedExisting: ExistingCandidate[] = [];
  const selectedMissing: MissingCandidate[] = [];
  const lists = [...queues.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, items]) => ({ key, items, i: 0 }));
  let picked = 0;
  while (picked < REPAIR_POLICY.scan_limit && lists.some((l) => l.i < l.items.length)) {
    for (const l of lists) {
      if (picked >= REPAIR_POLICY.scan_limit) break;
      const next = l.items[l.i];
      if (!next) continue;
      l.i += 1;
      picked += 1;
      const s = scopes.get(l.key) as ScopeStats;
      if (next.kind === "existing") {
        selectedExisting.push(next.item as ExistingCandidate);
        s.selectedExisting += 1;
      } else {
        selectedMissing.push(next.item as MissingCandidate);
        s.selectedMissing += 1;
      }
    }
  }
  return { existing, missing, selectedExisting, selectedMissing, scopes: [...scopes.values()] };
}

/** `GET /system/repair` body: `{policy, candidates}` (global, not namespace-scoped). */
export function repairStatus(engine: Engine, now: number = engine.clock.now()): JsonObject {
  const sel = select(engine, now, null);
  const age = (t: number | null): number => (t === null ? 0 : Math.max(0, now - t));
  const oldestTask = sel.existing.reduce<number | null>(
    (m, c) => (m === null ? c.created_at : Math.min(m, c.created_at)),
    null,
  );
  const oldestMissing = sel.missing.reduce<number | null>(
    (m, c) => (m === null ? c.since : Math.min(m, c.since)),
    null,
  );
  const total = sel.existing.length + sel.missing.length;
  const scopes = sel.scopes
    .map((s) => ({
      scope_key: s.scope_key,
      connection: s.connection,
      queue: s.queue,
      compatibility: s.compatibility,
      existing_task_candidates: s.existing,
      missing_task_candidates: s.missing,
      total_candidates: s.existing + s.missing,
      selected_existing_task_candidates: s.selectedExisting,
      selected_missing_task_candidates: s.selectedMissing,
      selected_total_candidates: s.selectedExisting + s.selectedMissing,
      oldest_task_candidate_created_at: isoMicros(s.oldestTask),
      oldest_missing_run_started_at: isoMicros(s.oldestMissing),
      max_task_candidate_age_ms: age(s.oldestTask),
      max_missing_run_age_ms: age(s.oldestMissing),
      scan_limited_by_global_policy: s.selectedExisting + s.selectedMissing < s.existing + s.missing,
    }))
    .sort(
      (a, b) =>
        b.total_candidates - a.total_candidates ||
        Math.max(b.max_task_candidate_age_ms, b.max_missing_run_age_ms) -
          Math.max(a.max_task_candidate_age_ms, a.max_missing_run_age_ms) ||
        (a.scope_key < b.scope_key ? -1 : 1),
    );
  return {
    policy: { ...REPAIR_POLICY },
    candidates: {
      existing_task_candidates: sel.existing.length,
      missing_task_candidates: sel.missing.length,
      total_candidates: total,
      scan_limit: REPAIR_POLICY.scan_limit,
      scan_strategy: REPAIR_POLICY.scan_strategy,
      selected_existing_task_candidates: sel.selectedExisting.length,
      selected_missing_task_candidates: sel.selectedMissing.length,
      selected_total_candidates: sel.selectedExisting.length + sel.selectedMissing.length,
      existing_task_scan_limit_reached: sel.existing.length > sel.selectedExisting.length,
      missing_task_scan_limit_reached: sel.missing.length > sel.selectedMissing.length,
      scan_pressure: total > REPAIR_POLICY.scan_limit,
      oldest_task_candidate_created_at: isoMicros(oldestTask),
      oldest_missing_run_started_at: isoMicros(oldestMissing),
      max_task_candidate_age_ms: age(oldestTask),
      max_missing_run_age_ms: age(oldestMissing),
      scopes,
    },
  };
}

export interface RepairPassOptions {
  runIds?: string[];
  instanceId?: string | null;
}

export interface RepairPassReport extends JsonObject {
  existing_task_failures: { candidate_id: string; message: string }[];
  missing_run_failures: { run_id: string; message: string }[];
}

/** How many open summaries one pass checks for a vanished next task (rotating window). */
const NEXT_TASK_CHECK_WINDOW = 1000;
const nextTaskCursor = new WeakMap<Engine, string>();

/**
 * Liveness can change without a transition: a lease expires with time, or a summary's next task
 * stops being open through a write outside the engine. The pass first re-projects those runs so
 * lists and metrics read what debug reads (decision record docs/decisions/0003-liveness-refresh.md).
 * Expired leases come from an index; the next-task check walks open summaries in a rotating
 * window (partial index of migration 4), so one pass stays bounded however many runs are open.
 */
export function refreshStaleSummaries(engine: Engine, now: number): number {
  const expired = engine.db
    .prepare(
      `SELECT DISTINCT t.workflow_run_id AS id FROM workflow_tasks t JOIN workflow_run_summaries s ON s.id = t.workflow_run_id
       WHERE t.status = 'leased' AND t.lease_expires_at IS NOT NULL AND t.lease_expires_at <= ? AND s.liveness_state != 'repair_needed' LIMIT 500`,
    )
    .all(now) as { id: string }[];
  const cursor = nextTaskCursor.get(engine) ?? "";
  const window = engine.db
    .prepare(
      `SELECT id, next_task_id FROM workflow_run_summaries WHERE status_bucket = 'running' AND next_task_id IS NOT NULL AND id > ?
       ORDER BY id LIMIT ${NEXT_TASK_CHECK_WINDOW}`,
    )
    .all(cursor) as { id: string; next_task_id: string }[];
  nextTaskCursor.set(engine, window.length === NEXT_TASK_CHECK_WINDOW ? (window.at(-1)?.id ?? "") : "");
  const taskStatus = engine.db.prepare("SELECT status FROM workflow_tasks WHERE id = ?");
  const vanished = window.filter((s) => {
    const t = taskStatus.get(s.next_task_id) as { status: string } | undefined;
    return !t || (t.status !== "ready" && t.status !== "leased");
  });
  const runs = new Set([...expired.map((r) => r.id), ...vanished.map((r) => r.id)]);
  if (runs.size === 0) return 0;
  engine.db.transaction(() => {
    for (const id of runs) refreshRunSummary(engine.db, id, now);
  })();
  return runs.size;
}

/**
 * `TaskWatchdog::runPass`: recover existing unhealthy tasks, create tasks for repair-needed runs
 * without one (fairly across scopes, at most `scan_limit`), then the engine sweep (deadlines,
 * activity timeouts, timers). Automatic repair writes no history and no command row: its only
 * durable trace is `repair_count`.
 */
export function runRepairPass(engine: Engine, opts: RepairPassOptions = {}): RepairPassReport {
  const now = engine.clock.now();
  let runIds: string[] | null = opts.runIds && opts.runIds.length > 0 ? [...opts.runIds] : null;
  if (opts.instanceId) {
    const ids = (
      engine.db.prepare("SELECT id FROM workflow_runs WHERE workflow_instance_id = ?").all(opts.instanceId) as {
        id: string;
      }[]
    ).map((r) => r.id);
    runIds = runIds ? runIds.filter((id) => ids.includes(id)) : ids;
  }
  const report: RepairPassReport = {
    connection: null,
    queue: null,
    run_ids: opts.runIds ?? [],
    instance_id: opts.instanceId ?? null,
    // The automatic sweep runs on its own `loop_throttle_seconds` timer; a pass, once called, always runs.
    respect_throttle: false,
    throttled: false,
    selected_existing_task_candidates: 0,
    selected_missing_task_candidates: 0,
    selected_total_candidates: 0,
    repaired_existing_tasks: 0,
    repaired_missing_tasks: 0,
    dispatched_tasks: 0,
    existing_task_failures: [],
    missing_run_failures: [],
    deadline_expired_candidates: 0,
    deadline_expired_tasks_created: 0,
    deadline_expired_failures: [],
    activity_timeout_candidates: 0,
    activity_timeouts_enforced: 0,
    activity_timeout_failures: [],
    selected_command_contract_candidates: 0,
    backfilled_command_contracts: 0,
    command_contract_backfill_unavailable: 0,
    command_contract_failures: [],
  };
  if (runIds !== null && runIds.length === 0) return report;
  refreshStaleSummaries(engine, now);
  const sel = select(engine, now, runIds);
  report.selected_existing_task_candidates = sel.selectedExisting.length;
  report.selected_missing_task_candidates = sel.selectedMissing.length;
  report.selected_total_candidates = sel.selectedExisting.length + sel.selectedMissing.length;
  for (const c of sel.selectedExisting) {
    try {
      const done = engine.transaction((tx) => {
        const task = tx.task(c.id) as TaskRow | undefined;
        const run = task ? tx.run(task.workflow_run_id) : undefined;
        if (!task || !run || !needsRecovery(task, tx.now)) return false;
        if (isTerminal(run.status)) {
          tx.db
            .prepare(
              "UPDATE workflow_tasks SET status = 'cancelled', lease_expires_at = NULL, updated_at = ? WHERE id = ?",
            )
            .run(tx.now, task.id);
          tx.touch(run.id);
          return false;
        }
        recoverExistingTask(tx, task, { backoff: true });
        return true;
      });
      if (done) {
        report.repaired_existing_tasks = Number(report.repaired_existing_tasks) + 1;
        report.dispatched_tasks = Number(report.dispatched_tasks) + 1;
      }
    } catch (e) {
      engine.db.prepare("UPDATE workflow_tasks SET last_error = ? WHERE id = ?").run((e as Error).message, c.id);
      report.existing_task_failures.push({ candidate_id: c.id, message: (e as Error).message });
    }
  }
  for (const c of sel.selectedMissing) {
    try {
      const done = engine.transaction((tx) => {
        const run = tx.run(c.id);
        if (!run || isTerminal(run.status)) return false;
        const s = projectRunSummary(tx.db, run.id, tx.now);
        if (!s || s.liveness_state !== "repair_needed" || s.next_task_id !== null) return false;
        return repairRun(tx, run, s, { backoff: false }) !== null;
      });
      if (done) {
        report.repaired_missing_tasks = Number(report.repaired_missing_tasks) + 1;
        report.dispatched_tasks = Number(report.dispatched_tasks) + 1;
      }
    } catch (e) {
      report.missing_run_failures.push({ run_id: c.id, message: (e as Error).message });
    }
  }
  // Steps 4 and 5 of the real pass (deadline watchdog, activity timeouts) are the engine's own.
  const deadlineTasks = engine.transaction((tx) => createDeadlineTasks(tx));
  const timeouts = engine.transaction((tx) => enforceActivityTimeouts(tx));
  report.deadline_expired_candidates = deadlineTasks;
  report.deadline_expired_tasks_created = deadlineTasks;
  report.activity_timeout_candidates = timeouts;
  report.activity_timeouts_enforced = timeouts;
  return report;
}
