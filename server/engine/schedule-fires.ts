import type { CommandContextAttributes, OverlapPolicy, ScheduleRow } from "./schedule-rows";
import { listOf, saveSchedule, scheduleById, specOf } from "./schedule-rows";
import type { JitterSource, Occurrence } from "./schedule-spec";
import { computeNextFireAtWithJitter, occurrencesBetween, phpIso } from "./schedule-spec";
import {
  closeExistingRun,
  logicError,
  recordFailure,
  recordSkip,
  runningRunExists,
  startScheduledRun,
} from "./schedules";
import type { Tx } from "./tx";

/**
 * Firing schedules: manual triggers, the evaluator's tick and backfills, after ScheduleManager
 * `triggerDetailed`, `tick` and `backfill` (durable-workflow/workflow
 * src/V2/Support/ScheduleManager.php@797aa6f). Each fire is one transaction: the schedule's
 * counters, its history event and the run it started commit together.
 */

export type TriggerOutcome = "triggered" | "buffered" | "buffer_full" | "skipped";

export interface TriggerResult {
  outcome: TriggerOutcome;
  instanceId: string | null;
  runId: string | null;
  reason: string | null;
}

type Transaction = <T>(fn: (tx: Tx) => T, now?: number) => T;

function moveNextFire(tx: Tx, row: ScheduleRow, jitter: JitterSource): void {
  const after = scheduleById(tx.db, row.id);
  saveSchedule(tx.db, row.id, tx.now, {
    next_fire_at: computeNextFireAtWithJitter(specOf(after), tx.now, after.jitter_seconds, jitter),
  });
}

/** `triggerDetailed`: status and `max_runs` gates, buffering, the overlap rule, then the start. */
export function triggerSchedule(
  tx: Tx,
  scheduleRowId: string,
  override: OverlapPolicy | null,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): TriggerResult {
  const row = scheduleById(tx.db, scheduleRowId);
  const skip = (reason: string, outcome: TriggerOutcome = "skipped"): TriggerResult => ({
    outcome,
    instanceId: null,
    runId: null,
    reason,
  });
  if (row.status !== "active") {
    recordSkip(tx, row, "status_not_triggerable", context);
    return skip("status_not_triggerable");
  }
  if (row.remaining_actions !== null && row.remaining_actions <= 0) {
    recordSkip(tx, row, "remaining_actions_exhausted", context);
    return skip("remaining_actions_exhausted");
  }
  const policy = override ?? (row.overlap_policy as OverlapPolicy) ?? "skip";
  const running = policy !== "allow_all" && runningRunExists(tx, row);
  if ((policy === "buffer_one" || policy === "buffer_all") && running) {
    const buffer = listOf(row.buffered_actions);
    if (policy === "buffer_one" && buffer.length >= 1) {
      recordSkip(tx, row, "buffer_full", context);
      moveNextFire(tx, row, jitter);
      return skip("buffer_full", "buffer_full");
    }
    saveSchedule(tx.db, row.id, tx.now, {
      buffered_actions: JSON.stringify([...buffer, { buffered_at: phpIso(tx.now) }]),
    });
    moveNextFire(tx, row, jitter);
    return { outcome: "buffered", instanceId: null, runId: null, reason: null };
  }
  if (running && policy === "skip") {
    recordSkip(tx, row, "overlap_policy_skip", context);
    moveNextFire(tx, row, jitter);
    return skip("overlap_policy_skip");
  }
  if (policy === "cancel_other" || policy === "terminate_other") closeExistingRun(tx, row, policy);
  const started = startScheduledRun(tx, scheduleById(tx.db, row.id), { policy, context, jitter });
  return { outcome: "triggered", instanceId: started.instanceId, runId: started.runId, reason: null };
}

export interface TickResult {
  schedule_id: string;
  instance_id: string | null;
  outcome?: string;
  error?: string;
}

/** A start that threw rolled its transaction back; the failure is recorded in a transaction of its own. */
function failed(
  transaction: Transaction,
  id: string,
  scheduleId: string,
  e: unknown,
  jitter: JitterSource,
): TickResult {
  const message = e instanceof Error ? e.message : String(e);
  transaction((tx) => recordFailure(tx, scheduleById(tx.db, id), message, jitter));
  return { schedule_id: scheduleId, instance_id: null, error: message };
}

/**
 * `tick`: first drain one buffered action of each active schedule whose run has closed, then fire
 * every due schedule once, earliest first. A schedule that missed several fires while the server was
 * down fires once, and its next fire is computed from now: the engine does not replay missed fires.
 */
export function tickSchedules(
  transaction: Transaction,
  now: number,
  limit: number,
  jitter: JitterSource,
): TickResult[] {
  const results: TickResult[] = [];
  const buffered = transaction(
    (tx) =>
      tx.db
        .prepare(
          "SELECT id, schedule_id FROM workflow_schedules WHERE status = 'active' AND buffered_actions IS NOT NULL LIMIT ?",
        )
        .all(limit) as { id: string; schedule_id: string }[],
    now,
  );
  for (const { id, schedule_id } of buffered) {
    try {
      // Each fire at its own clock reading (`now` only picks what is due), as the engine's now() per fire.
      const started = transaction((tx) => {
        const row = scheduleById(tx.db, id);
        const buffer = listOf(row.buffered_actions);
        if (row.status !== "active" || buffer.length === 0 || runningRunExists(tx, row)) return null;
        saveSchedule(tx.db, id, tx.now, {
          buffered_actions: buffer.length > 1 ? JSON.stringify(buffer.slice(1)) : null,
        });
        return startScheduledRun(tx, scheduleById(tx.db, id), { outcome: "drained", jitter });
      });
      if (started) results.push({ schedule_id, instance_id: started.instanceId });
    } catch (e) {
      results.push(failed(transaction, id, schedule_id, e, jitter));
    }
  }
  const due = transaction(
    (tx) =>
      tx.db
        .prepare(
          "SELECT id, schedule_id FROM workflow_schedules WHERE status = 'active' AND next_fire_at IS NOT NULL AND next_fire_at <= ? ORDER BY next_fire_at LIMIT ?",
        )
        .all(now, limit) as { id: string; schedule_id: string }[],
    now,
  );
  for (let i = 0; i < due.length; i += FIRE_BATCH)
    results.push(...fireBatch(transaction, due.slice(i, i + FIRE_BATCH), jitter));
  return results;
}

/**
 * Due schedules fired together share one commit (one fsync); each fire is still whole with its run.
 * As many as the evaluator's batch (schedule-evaluator.ts), so a pass of 100 is one commit: on a
 * loaded two-core host a commit cost as much as 25 fires (docs/performance.md, fire lateness).
 */
const FIRE_BATCH = 100;

/**
 * Fires a batch in one transaction. If any start throws, the whole batch rolled back; its schedules
 * are then fired one transaction each, so only the failing one records its failure.
 */
function fireBatch(
  transaction: Transaction,
  batch: { id: string; schedule_id: string }[],
  jitter: JitterSource,
): TickResult[] {
  const asResult = (schedule_id: string, r: TriggerResult): TickResult => ({
    schedule_id,
    instance_id: r.instanceId,
    outcome: r.outcome,
  });
  try {
    return transaction((tx) =>
      batch.map(({ id, schedule_id }) => asResult(schedule_id, triggerSchedule(tx, id, null, null, jitter))),
    );
  } catch {
    return batch.map(({ id, schedule_id }) => {
      try {
        return asResult(
          schedule_id,
          transaction((tx) => triggerSchedule(tx, id, null, null, jitter)),
        );
      } catch (e) {
        return failed(transaction, id, schedule_id, e, jitter);
      }
    });
  }
}

export interface BackfillRow {
  occurrence: Occurrence;
  instanceId: string | null;
  error?: string;
}

/**
 * `backfill` over `[from, to)`: each occurrence in its own transaction with the occurrence time on
 * the run; buffer policies fire as allow_all (`triggerForBackfill`); stops once `max_runs` is spent.
 */
export function backfillSchedule(
  transaction: Transaction,
  scheduleRowId: string,
  fromMs: number,
  toMs: number,
  override: OverlapPolicy | null,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): BackfillRow[] {
  const first = transaction((tx) => scheduleById(tx.db, scheduleRowId));
  if (first.status === "deleted") throw logicError(`Cannot backfill deleted schedule [${first.schedule_id}].`);
  const rows: BackfillRow[] = [];
  for (const occurrence of occurrencesBetween(specOf(first), fromMs, toMs)) {
    try {
      const instanceId = transaction((tx) => backfillOne(tx, scheduleRowId, occurrence, override, context, jitter));
      rows.push({ occurrence, instanceId });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      transaction((tx) => recordFailure(tx, scheduleById(tx.db, scheduleRowId), message, jitter));
      rows.push({ occurrence, instanceId: null, error: message });
    }
    const now = transaction((tx) => scheduleById(tx.db, scheduleRowId));
    if (now.remaining_actions !== null && now.remaining_actions <= 0) break;
  }
  return rows;
}

function backfillOne(
  tx: Tx,
  id: string,
  occurrence: Occurrence,
  override: OverlapPolicy | null,
  context: CommandContextAttributes | null,
  jitter: JitterSource,
): string | null {
  const row = scheduleById(tx.db, id);
  const original = (row.overlap_policy as OverlapPolicy) ?? "skip";
  const chosen = override ?? original;
  const policy: OverlapPolicy = chosen === "buffer_one" || chosen === "buffer_all" ? "allow_all" : chosen;
  if (row.status !== "active") {
    recordSkip(tx, row, "status_not_triggerable", context);
    return null;
  }
  if (row.remaining_actions !== null && row.remaining_actions <= 0) {
    recordSkip(tx, row, "remaining_actions_exhausted", context);
    return null;
  }
  if (policy === "skip" && runningRunExists(tx, row)) {
    recordSkip(tx, row, "overlap_policy_skip", context);
    return null;
  }
  if (policy === "cancel_other" || policy === "terminate_other") closeExistingRun(tx, row, policy);
  return startScheduledRun(tx, scheduleById(tx.db, id), {
    occurrence,
    outcome: "backfilled",
    policy,
    context,
    jitter,
  }).instanceId;
}
