import { isoMicros } from "../clock";
import { newId } from "../ids";
import { timerEventKeys } from "./lifecycle";
import type { RunRow, TaskRow, TimerRow } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { dropNulls, parseJson } from "./tx";

/**
 * Condition waits for workers that evaluate the condition themselves (sdk-python's
 * `ctx.wait_condition`, which sends `open_condition_wait`), following the engine's external-worker
 * bridge (durable-workflow/workflow src/V2/Support/DefaultWorkflowTaskBridge.php@8dc90d64,
 * `applyOpenConditionWait`, `recordSatisfiedConditionWaitForSignalResume`,
 * `cancelOpenConditionTimer`; payload keys from HistoryEventPayloadContract.php@8dc90d64):
 *
 * - the command records ConditionWaitOpened; with a positive timeout also a timer of
 *   `timer_kind: condition_timeout` that shares the wait's sequence;
 * - the server cannot evaluate the predicate, so a signal simply resumes the workflow; when the
 *   workflow task that signal resumed is completed, the open wait is recorded as
 *   ConditionWaitSatisfied and its timeout timer is cancelled (TimerCancelled);
 * - the timeout firing is the timer's TimerFired (with the condition keys), after which the worker
 *   sees the wait as timed out. The bridge records no ConditionWaitTimedOut for external workers
 *   (only the PHP WorkflowExecutor does), so neither does this server.
 */
export interface OpenConditionWaitCommand {
  type: "open_condition_wait";
  condition_key?: string | null;
  condition_definition_fingerprint?: string | null;
  timeout_seconds?: number | null;
}

function conditionKeys(
  waitId: string,
  cmd: { condition_key?: unknown; condition_definition_fingerprint?: unknown },
): JsonObject {
  return dropNulls({
    condition_wait_id: waitId,
    condition_key: typeof cmd.condition_key === "string" ? cmd.condition_key : null,
    condition_definition_fingerprint:
      typeof cmd.condition_definition_fingerprint === "string" ? cmd.condition_definition_fingerprint : null,
  });
}

/** Applies `open_condition_wait`; returns the ids of the tasks it created (the timeout timer's). */
export function openConditionWait(tx: Tx, run: RunRow, taskId: string, cmd: OpenConditionWaitCommand): string[] {
  const sequence = tx.nextCommandSequence(run.id);
  const waitId = newId(tx.now);
  const keys = conditionKeys(waitId, cmd);
  const timeout = cmd.timeout_seconds ?? null;
  tx.appendEvent(run.id, "ConditionWaitOpened", dropNulls({ ...keys, sequence, timeout_seconds: timeout }), { taskId });
  if (timeout === null || timeout <= 0) return [];
  const timerId = newId(tx.now);
  const fireAt = tx.now + timeout * 1000;
  tx.db
    .prepare(
      "INSERT INTO workflow_run_timers (id, workflow_run_id, sequence, status, delay_seconds, fire_at, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
    )
    .run(timerId, run.id, sequence, timeout, fireAt, tx.now, tx.now);
  tx.appendEvent(
    run.id,
    "TimerScheduled",
    {
      timer_id: timerId,
      sequence,
      delay_seconds: timeout,
      fire_at: isoMicros(fireAt),
      timer_kind: "condition_timeout",
      ...keys,
    },
    { taskId },
  );
  return [tx.createTask(run, "timer", { timer_id: timerId, condition_wait_id: waitId }, { availableAt: fireAt })];
}

interface OpenWait {
  payload: JsonObject;
  timer: TimerRow | undefined;
}

/** The most recent condition wait of the run that is neither satisfied nor timed out. */
function latestOpenWait(tx: Tx, runId: string): OpenWait | null {
  const row = tx.db
    .prepare(
      `SELECT o.payload FROM workflow_history_events o
        WHERE o.workflow_run_id = ? AND o.event_type = 'ConditionWaitOpened'
          AND NOT EXISTS (SELECT 1 FROM workflow_history_events r WHERE r.workflow_run_id = o.workflow_run_id
                            AND r.event_type IN ('ConditionWaitSatisfied', 'ConditionWaitTimedOut', 'TimerFired')
                            AND json_extract(r.payload, '$.condition_wait_id') = json_extract(o.payload, '$.condition_wait_id'))
        ORDER BY o.sequence DESC LIMIT 1`,
    )
    .get(runId) as { payload: string } | undefined;
  if (!row) return null;
  const payload = JSON.parse(row.payload) as JsonObject;
  const scheduled = tx.db
    .prepare(
      "SELECT json_extract(payload, '$.timer_id') AS id FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'TimerScheduled' AND json_extract(payload, '$.condition_wait_id') = ?",
    )
    .get(runId, payload.condition_wait_id) as { id: string | null } | undefined;
  const timer = scheduled?.id
    ? (tx.db.prepare("SELECT * FROM workflow_run_timers WHERE id = ?").get(scheduled.id) as TimerRow | undefined)
    : undefined;
  return { payload, timer };
}

/**
 * On completing a workflow task a signal resumed: the open condition wait is satisfied (the
 * worker has seen the signal and moved on) and its timeout timer is cancelled.
 */
export function satisfyConditionWaitOnSignalResume(tx: Tx, run: RunRow, task: TaskRow): void {
  const resume = parseJson<JsonObject>(task.payload) ?? {};
  if (resume.resume_source_kind !== "workflow_signal") return;
  const wait = latestOpenWait(tx, run.id);
  if (!wait) return;
  const p = wait.payload;
  // The wait consumed its resuming signal (`markConditionWaitSignalConsumed`): no longer pending.
  if (typeof resume.workflow_signal_id === "string" && typeof p.sequence === "number")
    tx.db
      .prepare(
        "UPDATE workflow_signal_records SET status = 'applied', applied_at = COALESCE(applied_at, ?), updated_at = ? WHERE id = ? AND workflow_run_id = ?",
      )
      .run(tx.now, tx.now, resume.workflow_signal_id, run.id);
  tx.appendEvent(
    run.id,
    "ConditionWaitSatisfied",
    dropNulls({
      condition_wait_id: p.condition_wait_id ?? null,
      condition_key: p.condition_key ?? null,
      condition_definition_fingerprint: p.condition_definition_fingerprint ?? null,
      sequence: p.sequence ?? null,
      timer_id: wait.timer?.id ?? null,
      timeout_seconds: p.timeout_seconds ?? null,
      workflow_signal_id: typeof resume.workflow_signal_id === "string" ? resume.workflow_signal_id : null,
      signal_name: typeof resume.signal_name === "string" ? resume.signal_name : null,
      signal_wait_id: typeof resume.signal_wait_id === "string" ? resume.signal_wait_id : null,
    }),
    { taskId: task.id },
  );
  const timer = wait.timer;
  if (!timer || timer.status !== "pending") return;
  tx.db
    .prepare("UPDATE workflow_run_timers SET status = 'cancelled', cancelled_at = ?, updated_at = ? WHERE id = ?")
    .run(tx.now, tx.now, timer.id);
  tx.appendEvent(
    run.id,
    "TimerCancelled",
    { ...timerEventKeys(tx, timer), cancelled_at: isoMicros(tx.now) },
    { taskId: task.id },
  );
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET status = 'cancelled', lease_expires_at = NULL, updated_at = ? WHERE workflow_run_id = ? AND task_type = 'timer' AND status IN ('ready','leased') AND json_extract(payload, '$.timer_id') = ?",
    )
    .run(tx.now, run.id, timer.id);
}
