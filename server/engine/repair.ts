import { isoMicros } from "../clock";
import type { CommandRequest, CommandResponse } from "./commands";
import { commandResponse, findByRequestId, insertCommand } from "./commands";
import { EngineError } from "./errors";
import { enforceActivityTimeouts } from "./activity-timeouts";
import type { Engine } from "./index";
import type { CommandRow, CommandStatus, RunRow, TaskRow } from "./rows";
import { isTerminal, parsePayload } from "./rows";
import type { RunSummary } from "./summary";
import { projectRunSummary, refreshRunSummary } from "./summary";
import {
  REPAIR_POLICY,
  claimFailed,
  dispatchFailed,
  dispatchOverdue,
  leaseExpired,
  repairBackoffSeconds,
} from "./task-health";
import type { JsonObject, Tx } from "./tx";
import { dropNulls, taskSnapshot } from "./tx";
import { createDeadlineTasks } from "./sweep";

/** What a repair or archive command returns: the fields the control plane renders (`CommandResponse`). */
export type OperatorCommandResult = CommandResponse;

interface OperatorCommandInput {
  namespace: string;
  workflow_id: string;
  request_id?: string | null;
  reason?: string | null;
  request?: CommandRequest | null;
}

interface Target {
  run: RunRow | null;
}

function resolveTarget(tx: Tx, input: OperatorCommandInput): Target {
  const instance = tx.instance(input.namespace, input.workflow_id);
  if (!instance)
    throw new EngineError(404, "instance_not_found", "Workflow not found.", { workflow_id: input.workflow_id });
  return { run: instance.current_run_id ? (tx.run(instance.current_run_id) ?? null) : null };
}

/** Records a repair or archive command against the instance (never a requested run) and marks the run touched. */
function recordCommand(
  tx: Tx,
  input: OperatorCommandInput,
  run: RunRow | null,
  type: string,
  status: CommandStatus,
  outcome: string,
  rejectionReason: string | null,
  payload: JsonObject | null,
): CommandRow {
  const row = insertCommand(tx, {
    namespace: input.namespace,
    instanceId: input.workflow_id,
    run,
    requestedRunId: null,
    type,
    requestId: input.request_id,
    request: input.request,
    status,
    outcome,
    rejectionReason,
    reason: input.reason,
    payload: payload ? { codec: "json", blob: JSON.stringify(payload) } : null,
  });
  if (run) tx.touch(run.id);
  return row;
}

function commandSnapshot(row: CommandRow): JsonObject {
  return dropNulls({
    id: row.id,
    sequence: row.command_sequence,
    type: "repair",
    target_scope: row.target_scope,
    resolved_run_id: row.resolved_workflow_run_id,
    source: row.source,
    status: row.status,
    outcome: row.outcome,
  });
}

/** Marks a task published again: in poll mode the commit that makes it claimable is its dispatch. */
function redispatch(tx: Tx, task: TaskRow, opts: { backoff: boolean }): TaskRow {
  const repairCount = task.repair_count + 1;
  tx.db
    .prepare(
      `UPDATE workflow_tasks SET status = 'ready', available_at = CASE WHEN available_at IS NULL OR available_at < @now OR status = 'leased' THEN @now ELSE available_at END,
         leased_at = NULL, lease_owner = NULL, lease_expires_at = NULL, repair_count = @rc, repair_available_at = @rav, last_error = NULL,
         last_dispatch_attempt_at = @now, last_dispatched_at = @now, last_dispatch_error = NULL, last_claim_error = NULL, last_claim_failed_at = NULL,
         updated_at = @now WHERE id = @id`,
    )
    .run({
      now: tx.now,
      rc: repairCount,
      rav: opts.backoff ? tx.now + repairBackoffSeconds(repairCount) * 1000 : null,
      id: task.id,
    });
  const fresh = tx.task(task.id) as TaskRow;
  tx.markTaskReady(fresh);
  tx.touch(task.workflow_run_id);
  return fresh;
}

/**
 * `TaskRepair::recoverExistingTask`: an expired lease closes the running attempt `expired` and the
 * task is ready again; a failed or overdue dispatch is published again; a replay-blocked workflow
 * task loses its replay_blocked markers. Every path bumps `repair_count`.
 */
export function recoverExistingTask(tx: Tx, task: TaskRow, opts: { backoff: boolean }): TaskRow {
  if (task.status === "leased" && task.task_type === "activity") {
    const attempts = tx.db
      .prepare("SELECT id FROM activity_attempts WHERE workflow_task_id = ? AND status = 'running'")
      .all(task.id) as { id: string }[];
    for (const at of attempts) {
      tx.db
        .prepare(
          "UPDATE activity_attempts SET status = 'expired', closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ?",
        )
        .run(tx.now, tx.now, at.id);
    }
    const executionId = parsePayload(task.payload).activity_execution_id;
    if (typeof executionId === "string") {
      tx.db
        .prepare(
          "UPDATE activity_executions SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'running'",
        )
        .run(tx.now, executionId);
    }
  }
  if (task.status === "failed") {
    const payload = parsePayload(task.payload);
    for (const k of Object.keys(payload)) if (k.startsWith("replay_blocked")) delete payload[k];
    tx.db.prepare("UPDATE workflow_tasks SET payload = ? WHERE id = ?").run(JSON.stringify(payload), task.id);
  }
  return redispatch(tx, task, opts);
}

function needsRecovery(t: TaskRow, now: number): boolean {
  if (t.status === "failed") return parsePayload(t.payload).replay_blocked === true;
  return leaseExpired(t, now) || dispatchFailed(t) || dispatchOverdue(t, now) || claimFailed(t);
}

function byAvailability(a: TaskRow, b: TaskRow): number {
  return (
    (a.available_at ?? a.created_at) - (b.available_at ?? b.created_at) ||
    a.created_at - b.created_at ||
    (a.id < b.id ? -1 : 1)
  );
}

/** Creates the missing durable task a repair-needed run is owed (`repair_count = 1`). */
function createMissingTask(tx: Tx, run: RunRow, s: RunSummary): TaskRow {
  let taskId: string | null = null;
  if (s.wait_kind === "activity" && s.resume_source_id) {
    const a = tx.activity(s.resume_source_id);
    if (a && (a.status === "pending" || a.status === "running")) {
      const retry = tx.db
        .prepare(
          `SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'ActivityRetryScheduled'
           AND json_extract(payload, '$.activity_execution_id') = ? ORDER BY sequence DESC LIMIT 1`,
        )
        .get(run.id, a.id) as { payload: string | null } | undefined;
      const r = parsePayload(retry?.payload ?? null);
      const retryAt = typeof r.retry_available_at === "string" ? Date.parse(r.retry_available_at) : NaN;
      if (a.status === "running")
        tx.db
          .prepare("UPDATE activity_executions SET status = 'pending', updated_at = ? WHERE id = ?")
          .run(tx.now, a.id);
      taskId = tx.createTask(
        run,
        "activity",
        {
          activity_execution_id: a.id,
          retry_of_task_id: r.retry_of_task_id,
          retry_after_attempt_id: r.retry_after_attempt_id,
          retry_after_attempt: r.retry_after_attempt,
          retry_backoff_seconds: r.retry_backoff_seconds,
          max_attempts: r.max_attempts,
          retry_policy: r.retry_policy,
        },
        { queue: a.queue, attemptCount: a.attempt_count, availableAt: Number.isFinite(retryAt) ? retryAt : tx.now },
      );
    }
  } else if (s.wait_kind === "timer" && s.resume_source_id) {
    const timer = tx.db
      .prepare("SELECT id, fire_at FROM workflow_run_timers WHERE id = ? AND status = 'pending'")
      .get(s.resume_source_id) as { id: string; fire_at: number } | undefined;
    if (timer) taskId = tx.createTask(run, "timer", { timer_id: timer.id }, { availableAt: timer.fire_at });
  }
  taskId ??= tx.createTask(run, "workflow", {
    workflow_wait_kind: s.wait_kind,
    open_wait_id: s.open_wait_id,
    resume_source_kind: s.resume_source_kind ?? "workflow_run",
    resume_source_id: s.resume_source_id ?? run.id,
    reason: "repair",
  });
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET repair_count = 1, last_dispatch_attempt_at = ?, last_dispatched_at = ? WHERE id = ?",
    )
    .run(tx.now, tx.now, taskId);
  return tx.task(taskId) as TaskRow;
}

/**
 * `TaskRepair::repairRun`: recover the earliest unhealthy existing task first; otherwise, when the
 * run is `repair_needed` with no task, create the one it is owed. Returns the task acted on.
 */
export function repairRun(tx: Tx, run: RunRow, s: RunSummary, opts: { backoff: boolean }): TaskRow | null {
  const tasks = (
    tx.db
      .prepare("SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased', 'failed')")
      .all(run.id) as TaskRow[]
  )
    .filter((t) => needsRecovery(t, tx.now))
    .sort(byAvailability);
  if (tasks[0]) return recoverExistingTask(tx, tasks[0], opts);
  if (s.liveness_state === "repair_needed") return createMissingTask(tx, run, s);
  return null;
}

/**
 * Manual `POST /workflows/{id}/repair` (`WorkflowStub::attemptRepair`): always a command row; on an
 * open current run also a `RepairRequested` event with outcome `repair_dispatched` (a task was
 * recreated or redispatched) or `repair_not_needed`. Closed or unstarted runs are rejected (409).
 */
export function repairWorkflow(tx: Tx, input: OperatorCommandInput): OperatorCommandResult {
  const { run } = resolveTarget(tx, input);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "repair", input.request_id);
  if (prior) return commandResponse(prior);
  if (!run)
    return commandResponse(
      recordCommand(tx, input, null, "repair", "rejected", "rejected_not_started", "instance_not_started", null),
    );
  if (isTerminal(run.status))
    return commandResponse(
      recordCommand(tx, input, run, "repair", "rejected", "rejected_not_active", "run_not_active", null),
    );
  const summary = refreshRunSummary(tx.db, run.id, tx.now);
  if (!summary) throw new Error(`run ${run.id} has no summary`);
  const repairable = summary.liveness_state === "repair_needed" || summary.liveness_state === "workflow_replay_blocked";
  const task = repairable ? repairRun(tx, run, summary, { backoff: false }) : null;
  const outcome = task ? "repair_dispatched" : "repair_not_needed";
  const facts = {
    liveness_state: summary.liveness_state,
    wait_kind: summary.wait_kind,
    task_id: task?.id ?? null,
    task_type: task?.task_type ?? null,
  };
  const row = recordCommand(tx, input, run, "repair", "accepted", outcome, null, facts);
  tx.appendEvent(
    run.id,
    "RepairRequested",
    {
      workflow_command_id: row.id,
      workflow_instance_id: run.workflow_instance_id,
      workflow_run_id: run.id,
      command_type: "repair",
      outcome,
      ...facts,
      task: task ? taskSnapshot(task) : undefined,
      command: commandSnapshot(row),
    },
    { commandId: row.id, taskId: task?.id ?? null },
  );
  return commandResponse(row);
}

/**
 * `POST /workflows/{id}/archive`: a closed run is archived (`archived`, then `archive_not_needed`
 * on repeats), with `ArchiveRequested` and `WorkflowArchived`; an open run is rejected
 * `rejected_run_not_closed` (409).
 */
export function archiveWorkflow(tx: Tx, input: OperatorCommandInput): OperatorCommandResult {
  const { run } = resolveTarget(tx, input);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "archive", input.request_id);
  if (prior) return commandResponse(prior);
  if (!run)
    return commandResponse(
      recordCommand(tx, input, null, "archive", "rejected", "rejected_not_started", "instance_not_started", null),
    );
  if (!isTerminal(run.status))
    return commandResponse(
      recordCommand(tx, input, run, "archive", "rejected", "rejected_run_not_closed", "run_not_closed", null),
    );
  const archived =
    (tx.db.prepare("SELECT archived_at FROM workflow_runs WHERE id = ?").get(run.id) as { archived_at: number | null })
      .archived_at !== null;
  const outcome = archived ? "archive_not_needed" : "archived";
  const row = recordCommand(tx, input, run, "archive", "accepted", outcome, null, null);
  const ids = { workflow_command_id: row.id, workflow_instance_id: run.workflow_instance_id, workflow_run_id: run.id };
  tx.appendEvent(
    run.id,
    "ArchiveRequested",
    { ...ids, command_type: "archive", outcome, reason: input.reason ?? null },
    { commandId: row.id },
  );
  if (!archived) {
    tx.db
      .prepare(
        "UPDATE workflow_runs SET archived_at = ?, archive_command_id = ?, archive_reason = ?, updated_at = ? WHERE id = ?",
      )
      .run(tx.now, row.id, input.reason ?? null, tx.now, run.id);
    tx.appendEvent(
      run.id,
      "WorkflowArchived",
      { ...ids, archive_command_id: row.id, reason: input.reason ?? null },
      { commandId: row.id },
    );
  }
  return commandResponse(row);
}

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
