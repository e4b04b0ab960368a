import { isoMicros } from "../clock";
import { policyOf } from "./activities";
import type { FailureFacts } from "./activity-outcomes";
import { closeAttempt, resumeWorkflow, retryAllowed, scheduleRetry } from "./activity-outcomes";
import { activityEventKeys, activitySnapshot, EXCEPTION_CLASSES, insertFailure } from "./lifecycle";
import type { ActivityRow, AttemptRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { parseJson } from "./tx";

/**
 * The sweep's side of activities: deadlines that passed with no report (ActivityTimeoutEnforcer)
 * and attempt leases that expired.
 */

type TimeoutKind = "schedule_to_close" | "schedule_to_start" | "heartbeat" | "start_to_close";

function expiredKind(a: ActivityRow, now: number): TimeoutKind | null {
  const due = (t: number | null): boolean => t !== null && t <= now;
  if (due(a.schedule_to_close_deadline_at)) return "schedule_to_close";
  if (a.status === "pending" && due(a.schedule_deadline_at)) return "schedule_to_start";
  if (a.status === "running" && due(a.heartbeat_deadline_at)) return "heartbeat";
  if (a.status === "running" && due(a.close_deadline_at)) return "start_to_close";
  return null;
}

function timeoutMessage(a: ActivityRow, kind: TimeoutKind): string {
  const label = kind.replaceAll("_", "-");
  const deadline = {
    schedule_to_close: a.schedule_to_close_deadline_at,
    schedule_to_start: a.schedule_deadline_at,
    heartbeat: a.heartbeat_deadline_at,
    start_to_close: a.close_deadline_at,
  }[kind];
  if (kind === "heartbeat")
    return `Activity ${a.activity_type} heartbeat deadline expired at ${isoMicros(deadline)} (last heartbeat: ${isoMicros(a.last_heartbeat_at) ?? "never"}).`;
  return `Activity ${a.activity_type} ${label} deadline expired at ${isoMicros(deadline)}.`;
}

/**
 * ActivityTimeoutEnforcer (v2-model §8.4): for each open execution with an expired deadline, fail the
 * running attempt, cancel its task, then retry (not for schedule_to_close) or time it out for good.
 */
export function enforceActivityTimeouts(tx: Tx): number {
  // One query per deadline, each pinned to its partial index (migration 3): a sweep runs every second
  // and must never fall back to scanning all open activities.
  const byId = new Map<string, ActivityRow>();
  for (const sql of [
    "SELECT * FROM activity_executions INDEXED BY activity_executions_open_schedule_to_close WHERE status IN ('pending','running') AND schedule_to_close_deadline_at IS NOT NULL AND schedule_to_close_deadline_at <= ? LIMIT 500",
    "SELECT * FROM activity_executions INDEXED BY activity_executions_pending_schedule_deadline WHERE status = 'pending' AND schedule_deadline_at IS NOT NULL AND schedule_deadline_at <= ? LIMIT 500",
    "SELECT * FROM activity_executions INDEXED BY activity_executions_running_close_deadline WHERE status = 'running' AND close_deadline_at IS NOT NULL AND close_deadline_at <= ? LIMIT 500",
    "SELECT * FROM activity_executions INDEXED BY activity_executions_running_heartbeat_deadline WHERE status = 'running' AND heartbeat_deadline_at IS NOT NULL AND heartbeat_deadline_at <= ? LIMIT 500",
  ]) {
    for (const row of tx.db.prepare(sql).all(tx.now) as ActivityRow[]) byId.set(row.id, row);
  }
  const candidates = [...byId.values()].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  let enforced = 0;
  for (const a of candidates) {
    const run = tx.mustRun(a.workflow_run_id);
    if (isTerminal(run.status)) continue;
    const kind = expiredKind(a, tx.now);
    if (!kind) continue;
    const policy = policyOf(a);
    const message = timeoutMessage(a, kind);
    const attempt = a.current_attempt_id ? tx.attempt(a.current_attempt_id) : undefined;
    const attemptRan = attempt !== undefined && attempt.status === "running";
    if (attempt && attemptRan) closeAttempt(tx, attempt.id, "failed");
    const openTask = tx.db
      .prepare(
        "SELECT * FROM workflow_tasks WHERE task_type = 'activity' AND status IN ('ready','leased') AND json_extract(payload, '$.activity_execution_id') = ? ORDER BY created_at DESC LIMIT 1",
      )
      .get(a.id) as TaskRow | undefined;
    if (openTask)
      tx.db
        .prepare("UPDATE workflow_tasks SET status = 'cancelled', lease_expires_at = NULL, updated_at = ? WHERE id = ?")
        .run(tx.now, openTask.id);
    const exception: JsonObject = { type: "ActivityTimeoutException", message, code: 0, timeout_kind: kind };
    const facts: FailureFacts = {
      exceptionType: "ActivityTimeoutException",
      exceptionClass: EXCEPTION_CLASSES.activityTimeout,
      message,
      exception,
      timeoutKind: kind,
    };
    enforced += 1;
    // Only an attempt that was running when its deadline passed is retried; a task never picked up
    // (schedule-to-start) or a spent overall budget (schedule-to-close) is terminal.
    if (
      (kind === "heartbeat" || kind === "start_to_close") &&
      attempt &&
      attemptRan &&
      retryAllowed(policy, attempt.attempt_number)
    ) {
      const taskRow =
        openTask ??
        (tx.db.prepare("SELECT * FROM workflow_tasks WHERE id = ?").get(attempt.workflow_task_id) as TaskRow);
      scheduleRetry(tx, { task: taskRow, attempt, activity: a, run }, facts, policy);
      continue;
    }
    tx.db
      .prepare(
        "UPDATE activity_executions SET status = 'failed', exception = ?, closed_at = ?, updated_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(exception), tx.now, tx.now, a.id);
    const failureId = insertFailure(tx, {
      runId: run.id,
      sourceKind: "activity_execution",
      sourceId: a.id,
      propagationKind: "timeout",
      failureCategory: "timeout",
      nonRetryable: false,
      exceptionClass: EXCEPTION_CLASSES.activityTimeout,
      exceptionType: "ActivityTimeoutException",
      message,
      line: 0,
    });
    const fresh = tx.activity(a.id) as ActivityRow;
    tx.appendEvent(
      run.id,
      "ActivityTimedOut",
      {
        ...activityEventKeys(a),
        failure_id: failureId,
        failure_category: "timeout",
        timeout_kind: kind,
        message,
        exception_class: EXCEPTION_CLASSES.activityTimeout,
        schedule_deadline_at: isoMicros(a.schedule_deadline_at),
        close_deadline_at: isoMicros(a.close_deadline_at),
        schedule_to_close_deadline_at: isoMicros(a.schedule_to_close_deadline_at),
        heartbeat_deadline_at: isoMicros(a.heartbeat_deadline_at),
        // ActivityTimeoutEnforcer.php@8dc90d64: the attempt is `activity_attempt_id`, no attempt snapshot.
        activity: activitySnapshot(fresh),
      },
      { taskId: openTask?.id ?? null },
    );
    resumeWorkflow(tx, run, fresh, a.current_attempt_id ?? "", "ActivityTimedOut");
  }
  return enforced;
}

/** Expired activity leases: the attempt closes `expired`, the task is ready again with repair_count + 1. */
export function expireActivityLeases(tx: Tx): number {
  return tx.expireLeases("activity", (task) => {
    const open = tx.db
      .prepare("SELECT * FROM activity_attempts WHERE workflow_task_id = ? AND status = 'running'")
      .all(task.id) as AttemptRow[];
    for (const at of open) closeAttempt(tx, at.id, "expired");
    const executionId = (parseJson<JsonObject>(task.payload) ?? {}).activity_execution_id;
    if (typeof executionId === "string")
      tx.db
        .prepare(
          "UPDATE activity_executions SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'running'",
        )
        .run(tx.now, executionId);
  });
}
