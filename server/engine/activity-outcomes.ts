import { isoMicros } from "../clock";
import { activitySnapshot } from "./lifecycle";
import type { ActivityRow, AttemptRow, RetryPolicySnapshot, RunRow, TaskRow } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { taskSnapshot } from "./tx";

/**
 * How an activity attempt ends, shared by the worker's reports (activity-reports.ts) and the timeout
 * sweep (activity-timeouts.ts): the attempt closed, a retry scheduled by the policy, or the workflow
 * woken to see the outcome.
 */

/** Closes an attempt and returns it as written. */
export function closeAttempt(tx: Tx, attemptId: string, status: string): AttemptRow {
  return tx.db
    .prepare(
      "UPDATE activity_attempts SET status = ?, closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ? RETURNING *",
    )
    .get(status, tx.now, tx.now, attemptId) as AttemptRow;
}

export function resumeWorkflow(tx: Tx, run: RunRow, a: ActivityRow, attemptId: string, eventType: string): string {
  return tx.ensureWorkflowTask(run, {
    resume_source_kind: "activity_execution",
    resume_source_id: a.id,
    activity_execution_id: a.id,
    activity_attempt_id: attemptId,
    activity_type: a.activity_type,
    workflow_sequence: a.sequence,
    workflow_event_type: eventType,
  });
}

export interface FailureFacts {
  exceptionType: string | null;
  exceptionClass: string;
  message: string;
  exception: JsonObject;
  timeoutKind?: string;
  trace?: string | null;
}

/** Backoff after the failure of attempt n: backoff[min(n-1, len-1)]; an empty list means 0. */
export function backoffFor(policy: RetryPolicySnapshot, attempt: number): number {
  const list = policy.backoff_seconds;
  if (list.length === 0) return 0;
  return list[Math.min(attempt - 1, list.length - 1)] ?? 0;
}

/**
 * Retry: attempt closed `failed` by the caller, execution back to `pending` (attempt count kept), the
 * old task completed/cancelled, ActivityRetryScheduled and a new task at now + backoff. No failure row.
 */
export function scheduleRetry(
  tx: Tx,
  ctx: { task: TaskRow; attempt: AttemptRow; activity: ActivityRow; run: RunRow },
  facts: FailureFacts,
  policy: RetryPolicySnapshot,
): string {
  const { task, attempt, activity, run } = ctx;
  const backoff = backoffFor(policy, attempt.attempt_number);
  const availableAt = tx.now + backoff * 1000;
  tx.db
    .prepare(
      `UPDATE activity_executions SET status = 'pending', exception = ?, last_heartbeat_at = NULL, close_deadline_at = NULL, heartbeat_deadline_at = NULL,
         schedule_deadline_at = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      JSON.stringify(facts.exception),
      policy.schedule_to_start_timeout ? availableAt + policy.schedule_to_start_timeout * 1000 : null,
      tx.now,
      activity.id,
    );
  const retryPayload: JsonObject = {
    activity_execution_id: activity.id,
    retry_of_task_id: task.id,
    retry_after_attempt_id: attempt.id,
    retry_after_attempt: attempt.attempt_number,
    retry_backoff_seconds: backoff,
    max_attempts: policy.max_attempts,
    retry_policy: policy,
  };
  if (facts.timeoutKind) retryPayload.timeout_kind = facts.timeoutKind;
  const retryTaskId = tx.createTask(run, "activity", retryPayload, {
    availableAt,
    queue: task.queue,
    attemptCount: attempt.attempt_number,
  });
  const fresh = tx.activity(activity.id) as ActivityRow;
  tx.appendEvent(
    run.id,
    "ActivityRetryScheduled",
    {
      activity_execution_id: activity.id,
      activity_attempt_id: attempt.id,
      activity_class: activity.activity_class,
      activity_type: activity.activity_type,
      sequence: activity.sequence,
      retry_task_id: retryTaskId,
      retry_of_task_id: task.id,
      retry_available_at: isoMicros(availableAt),
      retry_backoff_seconds: backoff,
      retry_after_attempt_id: attempt.id,
      retry_after_attempt: attempt.attempt_number,
      max_attempts: policy.max_attempts,
      retry_policy: policy,
      // Only the timeout enforcer's retries name a timeout kind (ActivityTimeoutEnforcer.php@8dc90d64);
      // a reported failure's retry has none (ActivityOutcomeRecorder.php@8dc90d64).
      ...(facts.timeoutKind ? { timeout_kind: facts.timeoutKind } : {}),
      exception_type: facts.exceptionType,
      exception_class: facts.exceptionClass,
      message: facts.message,
      code: 0,
      exception: facts.exception,
      activity: activitySnapshot(fresh, facts.exception),
      // The event is recorded with the attempt's own (now completed) task, whose snapshot
      // `WorkflowHistoryEvent::record` adds; the retry task is `retry_task_id` (workflow@8dc90d64).
      task: taskSnapshot(tx.task(task.id) as TaskRow),
    },
    { taskId: task.id },
  );
  return retryTaskId;
}

export function retryAllowed(policy: RetryPolicySnapshot, attemptNumber: number): boolean {
  return policy.max_attempts === null || attemptNumber < policy.max_attempts;
}
