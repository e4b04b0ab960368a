import { encodePayload } from "../codec/codec";
import { newId } from "../ids";
import { cancelWorkflow, startWorkflow, terminateWorkflow } from "./commands";
import { EngineError } from "./errors";
import type { CommandContextAttributes, OverlapPolicy, ScheduleRow } from "./schedule-rows";
import { actionOf, iso, listOf, recordScheduleEvent, saveSchedule, scheduleById, specOf } from "./schedule-rows";
import type { JitterSource, Occurrence, ScheduleSpec } from "./schedule-spec";
import { computeNextFireAtWithJitter, phpIso, specProblem, specTimezone } from "./schedule-spec";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";

/**
 * Schedule lifecycle after the engine's ScheduleManager (durable-workflow/workflow
 * src/V2/Support/ScheduleManager.php@797aa6f) with the server's RemoteScheduleStarter
 * (durable-workflow/server app/Support/RemoteScheduleStarter.php@11d35b7). Every function runs
 * inside the caller's transaction, so a fire and the run it starts commit together or not at all.
 */

/** The engine throws LogicException for these; the server does not catch it, so the wire sees a 500. */
export function logicError(message: string): EngineError {
  return new EngineError(500, "server_error", message);
}

export interface CreateScheduleInput {
  namespace: string;
  schedule_id: string;
  spec: ScheduleSpec;
  action: JsonObject;
  overlap_policy: OverlapPolicy;
  memo: JsonObject | null;
  search_attributes: JsonObject | null;
  jitter_seconds: number;
  max_runs: number | null;
  note: string | null;
}

/** `WorkflowSchedule::normalizeActionTimeouts`: the legacy `workflow_*_timeout` names become the canonical ones. */
export function normalizeActionTimeouts(action: JsonObject): JsonObject {
  const out = { ...action };
  if (out.execution_timeout_seconds == null && out.workflow_execution_timeout != null)
    out.execution_timeout_seconds = Number(out.workflow_execution_timeout);
  if (out.run_timeout_seconds == null && out.workflow_run_timeout != null)
    out.run_timeout_seconds = Number(out.workflow_run_timeout);
  delete out.workflow_execution_timeout;
  delete out.workflow_run_timeout;
  return out;
}

const nonEmpty = (o: JsonObject | null | undefined): string | null =>
  o && Object.keys(o).length > 0 ? JSON.stringify(o) : null;

function nextFire(row: ScheduleRow, now: number, jitter: JitterSource): number | null {
  return computeNextFireAtWithJitter(specOf(row), now, row.jitter_seconds, jitter);
}

/** `createFromSpec`: the row, its first `next_fire_at`, and `ScheduleCreated`. */
export function createSchedule(
  tx: Tx,
  input: CreateScheduleInput,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): ScheduleRow {
  const action = normalizeActionTimeouts(input.action);
  const problem = specProblem(input.spec);
  if (problem) throw logicError(problem);
  const id = newId(tx.now).toLowerCase();
  const next = computeNextFireAtWithJitter(input.spec, tx.now, input.jitter_seconds, jitter);
  tx.db
    .prepare(
      `INSERT INTO workflow_schedules (id, schedule_id, namespace, spec, action, status, overlap_policy, note, memo, search_attributes,
         jitter_seconds, max_runs, remaining_actions, next_fire_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      input.schedule_id,
      input.namespace,
      JSON.stringify(input.spec),
      JSON.stringify(action),
      input.overlap_policy,
      input.note,
      nonEmpty(input.memo),
      nonEmpty(input.search_attributes),
      input.jitter_seconds,
      input.max_runs,
      input.max_runs,
      next,
      tx.now,
      tx.now,
    );
  const row = scheduleById(tx.db, id);
  recordScheduleEvent(
    tx.db,
    tx.now,
    row,
    "ScheduleCreated",
    { spec: input.spec, action, overlap_policy: row.overlap_policy, next_fire_at: iso(row.next_fire_at) },
    context,
  );
  return row;
}

export function pauseSchedule(
  tx: Tx,
  row: ScheduleRow,
  reason: string | null,
  context: CommandContextAttributes | null,
) {
  if (row.status === "deleted") throw logicError(`Cannot pause deleted schedule [${row.schedule_id}].`);
  saveSchedule(tx.db, row.id, tx.now, {
    status: "paused",
    paused_at: tx.now,
    ...(reason !== null ? { note: reason } : {}),
  });
  const after = scheduleById(tx.db, row.id);
  const payload: JsonObject = { paused_at: iso(after.paused_at) };
  if (reason !== null) payload.reason = reason;
  recordScheduleEvent(tx.db, tx.now, after, "SchedulePaused", payload, context);
}

/** `resume` (a schedule that is not paused is the engine's LogicException); the note is the controller's extra write. */
export function resumeSchedule(
  tx: Tx,
  row: ScheduleRow,
  note: string | null,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): void {
  if (row.status !== "paused") throw logicError(`Schedule [${row.schedule_id}] is not paused.`);
  saveSchedule(tx.db, row.id, tx.now, {
    status: "active",
    paused_at: null,
    next_fire_at: nextFire(row, tx.now, jitter),
  });
  const after = scheduleById(tx.db, row.id);
  recordScheduleEvent(tx.db, tx.now, after, "ScheduleResumed", { next_fire_at: iso(after.next_fire_at) }, context);
  if (note !== null) saveSchedule(tx.db, row.id, tx.now, { note });
}

export interface ScheduleChanges {
  spec?: ScheduleSpec;
  /** Already merged over the current action, as the controller does. */
  action?: JsonObject;
  overlap_policy?: OverlapPolicy;
  jitter_seconds?: number;
  note?: string;
  memo?: JsonObject | null;
  search_attributes?: JsonObject | null;
  max_runs?: number;
}

/** `update`: the given fields, `remaining_actions` recomputed from `max_runs`, next fire recomputed, `ScheduleUpdated`. */
export function updateSchedule(
  tx: Tx,
  row: ScheduleRow,
  changes: ScheduleChanges,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): void {
  if (changes.spec) {
    const problem = specProblem(changes.spec);
    if (problem) throw logicError(problem);
  }
  const updates: Partial<ScheduleRow> = {
    spec: JSON.stringify(changes.spec ?? specOf(row)),
    action: JSON.stringify(changes.action ? normalizeActionTimeouts(changes.action) : actionOf(row)),
  };
  if (changes.overlap_policy !== undefined) updates.overlap_policy = changes.overlap_policy;
  if (changes.jitter_seconds !== undefined) updates.jitter_seconds = changes.jitter_seconds;
  if (changes.note !== undefined) updates.note = changes.note;
  if (changes.memo !== undefined) updates.memo = nonEmpty(changes.memo);
  if (changes.search_attributes !== undefined) updates.search_attributes = nonEmpty(changes.search_attributes);
  if (changes.max_runs !== undefined) {
    updates.max_runs = changes.max_runs;
    updates.remaining_actions =
      row.remaining_actions === null || changes.max_runs > row.fires_count
        ? changes.max_runs - row.fires_count
        : row.remaining_actions;
  }
  const changedFields = Object.keys(updates);
  saveSchedule(tx.db, row.id, tx.now, updates);
  const mid = scheduleById(tx.db, row.id);
  saveSchedule(tx.db, row.id, tx.now, { next_fire_at: nextFire(mid, tx.now, jitter) });
  const after = scheduleById(tx.db, row.id);
  recordScheduleEvent(
    tx.db,
    tx.now,
    after,
    "ScheduleUpdated",
    {
      changed_fields: changedFields,
      spec: specOf(after),
      action: actionOf(after),
      overlap_policy: after.overlap_policy,
      next_fire_at: iso(after.next_fire_at),
    },
    context,
  );
}

/** `delete`: a tombstone (status deleted, no next fire) and `ScheduleDeleted`; the history stays readable. */
export function deleteSchedule(
  tx: Tx,
  row: ScheduleRow,
  context: CommandContextAttributes | null,
  reason = "deleted",
): void {
  if (row.status === "deleted") return;
  saveSchedule(tx.db, row.id, tx.now, { status: "deleted", deleted_at: tx.now, next_fire_at: null });
  const after = scheduleById(tx.db, row.id);
  recordScheduleEvent(tx.db, tx.now, after, "ScheduleDeleted", { reason, deleted_at: iso(after.deleted_at) }, context);
}

/** The latest run this schedule started is still open (`runningRunExists`: pending, running or waiting). */
export function runningRunExists(tx: Tx, row: ScheduleRow): boolean {
  if (!row.latest_workflow_instance_id) return false;
  const instance = tx.instance(row.namespace, row.latest_workflow_instance_id);
  const run = instance?.current_run_id ? tx.run(instance.current_run_id) : undefined;
  return !!run && ["pending", "running", "waiting"].includes(run.status);
}

/** `recordSkip`: the skip counters and `ScheduleTriggerSkipped`. */
export function recordSkip(tx: Tx, row: ScheduleRow, reason: string, context: CommandContextAttributes | null): void {
  saveSchedule(tx.db, row.id, tx.now, {
    last_skip_reason: reason,
    last_skipped_at: tx.now,
    skipped_trigger_count: row.skipped_trigger_count + 1,
  });
  const after = scheduleById(tx.db, row.id);
  recordScheduleEvent(
    tx.db,
    tx.now,
    after,
    "ScheduleTriggerSkipped",
    { reason, skipped_trigger_count: after.skipped_trigger_count, last_skipped_at: iso(after.last_skipped_at) },
    context,
  );
}

/** `closeExistingRun`: best effort, cancel or terminate the latest run with the engine's reason. */
export function closeExistingRun(tx: Tx, row: ScheduleRow, policy: "cancel_other" | "terminate_other"): void {
  if (!row.latest_workflow_instance_id) return;
  const input = {
    namespace: row.namespace,
    workflow_id: row.latest_workflow_instance_id,
    reason: `Schedule overlap: ${policy} policy applied.`,
  };
  try {
    if (policy === "cancel_other") cancelWorkflow(tx, input);
    else terminateWorkflow(tx, input);
  } catch {
    // Best-effort, as the engine's `closeExistingRun` (a run that vanished is no reason not to fire).
  }
}

/** The action's input as a start takes it: an envelope as sent, or a list of values encoded with the default codec. */
function actionInput(input: unknown): PayloadEnvelope | null {
  if (input == null) return null;
  if (Array.isArray(input)) return encodePayload(input);
  const env = input as { codec?: unknown; blob?: unknown };
  if (typeof env.codec === "string" && typeof env.blob === "string") return { codec: env.codec, blob: env.blob };
  return encodePayload([]);
}

export interface StartedRun {
  instanceId: string;
  runId: string | null;
}

/** Appends to the recent-actions ring (the engine keeps the last ten). */
function ring(row: ScheduleRow, entry: JsonObject): string {
  return JSON.stringify([...listOf(row.recent_actions), entry].slice(-10));
}

/**
 * `startRun`: RemoteScheduleStarter's start (`use-existing` duplicate policy under skip), the run's
 * `ScheduleTriggered` event (`recordScheduleTriggered`, the schedule's identity on the run), the
 * schedule's `ScheduleTriggered`, then `recordFire` and — when `max_runs` is spent — the tombstone.
 */
export function startScheduledRun(
  tx: Tx,
  row: ScheduleRow,
  opts: {
    occurrence?: Occurrence | null;
    outcome?: string;
    policy?: string;
    context?: CommandContextAttributes | null;
    jitter: JitterSource;
  },
): StartedRun {
  const action = normalizeActionTimeouts(actionOf(row));
  const policy = opts.policy ?? row.overlap_policy ?? "skip";
  const result = startWorkflow(tx, {
    namespace: row.namespace,
    workflow_type: String(action.workflow_type ?? ""),
    task_queue: typeof action.task_queue === "string" && action.task_queue !== "" ? action.task_queue : "default",
    input: actionInput(action.input),
    memo: row.memo ? (JSON.parse(row.memo) as JsonObject) : null,
    search_attributes: row.search_attributes ? (JSON.parse(row.search_attributes) as JsonObject) : null,
    execution_timeout_seconds:
      typeof action.execution_timeout_seconds === "number" ? action.execution_timeout_seconds : null,
    run_timeout_seconds: typeof action.run_timeout_seconds === "number" ? action.run_timeout_seconds : null,
    duplicate_policy: policy === "skip" ? "use-existing" : undefined,
  });
  if (result.outcome === "rejected_duplicate" || !result.workflow_id)
    throw new Error(`Workflow start was rejected: ${result.rejection_reason ?? "unknown"}.`);
  const started: StartedRun = { instanceId: result.workflow_id, runId: result.run_id ?? null };
  const spec = specOf(row);
  const occurrenceTime = opts.occurrence ? phpIso(opts.occurrence.at, opts.occurrence.zone, true) : null;
  const triggerNumber = row.fires_count + 1;
  if (started.runId && tx.run(started.runId)) {
    tx.appendEvent(started.runId, "ScheduleTriggered", {
      schedule_id: row.schedule_id,
      schedule_ulid: row.id,
      cron_expression: spec.cron_expressions?.[0] ?? null,
      timezone: spec.timezone ?? null,
      overlap_policy: row.overlap_policy,
      trigger_number: triggerNumber,
      occurrence_time: occurrenceTime,
    });
  }
  const outcome = opts.outcome ?? "scheduled";
  const triggered: JsonObject = {
    workflow_instance_id: started.instanceId,
    workflow_run_id: started.runId,
    outcome,
    effective_overlap_policy: policy,
    trigger_number: triggerNumber,
  };
  if (occurrenceTime) triggered.occurrence_time = occurrenceTime;
  recordScheduleEvent(tx.db, tx.now, row, "ScheduleTriggered", dropNull(triggered), opts.context ?? null);
  const remaining = row.remaining_actions !== null ? Math.max(0, row.remaining_actions - 1) : null;
  saveSchedule(tx.db, row.id, tx.now, {
    recent_actions: ring(row, {
      workflow_id: started.instanceId,
      run_id: started.runId,
      outcome,
      fired_at: phpIso(tx.now),
    }),
    fires_count: row.fires_count + 1,
    last_fired_at: tx.now,
    next_fire_at: nextFire(row, tx.now, opts.jitter),
    remaining_actions: remaining,
    latest_workflow_instance_id: started.instanceId,
  });
  if (remaining !== null && remaining <= 0)
    deleteSchedule(tx, scheduleById(tx.db, row.id), opts.context ?? null, "max_runs_exhausted");
  return started;
}

function dropNull(o: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/** `recordFailure`: a failed entry in the ring, the failure counter, and the next fire moved on. */
export function recordFailure(tx: Tx, row: ScheduleRow, reason: string, jitter: JitterSource): void {
  saveSchedule(tx.db, row.id, tx.now, {
    recent_actions: ring(row, { outcome: "failed", reason, fired_at: phpIso(tx.now) }),
    failures_count: row.failures_count + 1,
    last_fired_at: tx.now,
    next_fire_at: nextFire(row, tx.now, jitter),
  });
}

export { specTimezone };
