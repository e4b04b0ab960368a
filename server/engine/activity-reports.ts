import { z } from "zod";
import { isoMicros } from "../clock";
import { policyOf } from "./activities";
import type { FailureFacts } from "./activity-outcomes";
import { closeAttempt, resumeWorkflow, retryAllowed, scheduleRetry } from "./activity-outcomes";
import { EngineError, validationError } from "./errors";
import { activityEventKeys, activitySnapshot, attemptSnapshot, insertFailure, WORKER_FAILURE_CLASS } from "./lifecycle";
import { activityParallelPath, groupsCompleted } from "./parallel-groups";
import type { ActivityRow, AttemptRow, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { taskSnapshot } from "./tx";

/**
 * A worker's reports on an activity attempt it holds — heartbeat, completion, failure — each first
 * checked against the attempt that is current (v2-model §8.3), so a superseded report writes nothing.
 */

export interface ReportContext {
  task: TaskRow;
  attempt: AttemptRow;
  activity: ActivityRow;
  run: RunRow;
}

function ignored(status: number, reason: string, message: string, extra: JsonObject): EngineError {
  return new EngineError(status, reason, message, {
    outcome: "ignored",
    recorded: false,
    next_task_id: null,
    ...extra,
  });
}

/**
 * Resolves a worker's report against the current attempt (v2-model §8.3 steps 1–2). A report from a
 * superseded attempt closes that attempt `expired` and is answered `stale_attempt`, writing no history.
 */
export function reportContext(
  tx: Tx,
  taskId: string,
  attemptId: string,
  leaseOwner: string | undefined,
): ReportContext {
  const task = tx.task(taskId);
  if (!task || task.task_type !== "activity")
    throw new EngineError(404, "task_not_found", "Activity task not found.", {
      task_id: taskId,
      activity_attempt_id: attemptId,
      outcome: "ignored",
      recorded: false,
    });
  const attempt = tx.attempt(attemptId);
  if (!attempt || attempt.workflow_task_id !== task.id) {
    throw new EngineError(404, "attempt_not_found", "Activity attempt not found for this task.", {
      task_id: taskId,
      activity_attempt_id: attemptId,
      outcome: "ignored",
      recorded: false,
    });
  }
  const activity = tx.activity(attempt.activity_execution_id);
  if (!activity)
    throw new EngineError(404, "activity_execution_missing", "Activity execution not found.", {
      task_id: taskId,
      activity_attempt_id: attemptId,
      outcome: "ignored",
      recorded: false,
    });
  const run = tx.mustRun(task.workflow_run_id);
  const base = { task_id: taskId, activity_attempt_id: attemptId };
  if (run.status === "cancelled" || run.status === "terminated") {
    if (attempt.status === "running")
      tx.db
        .prepare(
          "UPDATE activity_attempts SET status = 'cancelled', closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ?",
        )
        .run(tx.now, tx.now, attempt.id);
    const reason = run.status === "cancelled" ? "run_cancelled" : "run_terminated";
    const fresh = tx.attempt(attempt.id) as AttemptRow;
    throw ignored(409, reason, `The workflow run was ${run.status}.`, {
      ...base,
      lease_owner: attempt.lease_owner,
      last_heartbeat_at: isoMicros(attempt.last_heartbeat_at),
      cancel_requested: true,
      can_continue: false,
      run_status: run.status,
      run_closed_reason: run.closed_reason,
      run_closed_at: isoMicros(run.closed_at),
      activity_status: activity.status,
      attempt_status: fresh.status,
      task_status: task.status,
    });
  }
  if (leaseOwner !== undefined && attempt.lease_owner !== leaseOwner)
    throw ignored(409, "lease_owner_mismatch", "Activity attempt is leased by another worker.", base);
  const stale =
    task.status !== "leased" ||
    task.attempt_count !== attempt.attempt_number ||
    activity.attempt_count !== attempt.attempt_number ||
    activity.current_attempt_id !== attempt.id;
  if (stale) {
    const closedBefore = attempt.status !== "running";
    if (attempt.status === "running") {
      tx.db
        .prepare(
          "UPDATE activity_attempts SET status = 'expired', closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ?",
        )
        .run(tx.now, tx.now, attempt.id);
      tx.touch(run.id);
    }
    throw ignored(409, "stale_attempt", "Activity attempt is no longer current.", {
      ...base,
      lease_owner: attempt.lease_owner,
      last_heartbeat_at: isoMicros(attempt.last_heartbeat_at),
      attempt_closed: closedBefore,
    });
  }
  return { task, attempt, activity, run };
}

export interface HeartbeatInput {
  activity_attempt_id: string;
  lease_owner?: string;
  message?: string | null;
  current?: number | null;
  total?: number | null;
  unit?: string | null;
  details?: Record<string, unknown> | null;
}

/** The 200 a heartbeat gets when its attempt may not go on; `reason` is the engine's word for why. */
export function heartbeatRefusal(e: EngineError): JsonObject {
  const x = e.extra;
  return {
    task_id: x.task_id ?? null,
    activity_attempt_id: x.activity_attempt_id ?? null,
    lease_owner: x.lease_owner ?? null,
    cancel_requested: x.cancel_requested === true,
    can_continue: false,
    // The engine's words (`attemptContinuationState`): an attempt already closed (timed out) is
    // attempt_closed; one still running but superseded is stale_attempt.
    reason: e.reason === "stale_attempt" && x.attempt_closed === true ? "attempt_closed" : e.reason,
    run_closed_reason: x.run_closed_reason ?? null,
    run_closed_at: x.run_closed_at ?? null,
    heartbeat_recorded: false,
    lease_expires_at: null,
    last_heartbeat_at: x.last_heartbeat_at ?? null,
  };
}

/** Renews the attempt's lease and heartbeat deadline; ActivityHeartbeatRecorded with `progress`. */
export function heartbeatActivityTask(tx: Tx, taskId: string, input: HeartbeatInput): JsonObject {
  let ctx: ReportContext;
  try {
    ctx = reportContext(tx, taskId, input.activity_attempt_id, input.lease_owner);
  } catch (e) {
    // A cancelled/terminated run or an attempt that is no longer current is an answer, not an error:
    // 200 with can_continue false (DefaultActivityTaskBridge.php@8dc90d64 `observeAttempt`, answered
    // 200 by ActivityTaskController::heartbeat@11d35b7), so the SDK raises ActivityCancelled /
    // ActivityLeaseAuthorityLost. Only a lease owned by another worker stays the guard's 409.
    if (e instanceof EngineError && e.status === 409 && e.reason !== "lease_owner_mismatch") return heartbeatRefusal(e);
    if (e instanceof EngineError && e.status === 409)
      throw new EngineError(e.status, e.reason, e.message, {
        ...e.extra,
        can_continue: false,
        cancel_requested: false,
        heartbeat_recorded: false,
      });
    throw e;
  }
  const { task, attempt, activity, run } = ctx;
  const policy = policyOf(activity);
  const leaseExpires = tx.now + tx.leases.activityMs;
  tx.db
    .prepare(
      "UPDATE activity_executions SET last_heartbeat_at = ?, heartbeat_deadline_at = ?, updated_at = ? WHERE id = ?",
    )
    .run(tx.now, policy.heartbeat_timeout ? tx.now + policy.heartbeat_timeout * 1000 : null, tx.now, activity.id);
  tx.db
    .prepare("UPDATE activity_attempts SET last_heartbeat_at = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?")
    .run(tx.now, leaseExpires, tx.now, attempt.id);
  tx.db
    .prepare("UPDATE workflow_tasks SET lease_expires_at = ?, updated_at = ? WHERE id = ?")
    .run(leaseExpires, tx.now, task.id);
  const progress: JsonObject = {};
  for (const k of ["message", "current", "total", "unit", "details"] as const)
    if (input[k] !== undefined && input[k] !== null) progress[k] = input[k];
  tx.appendEvent(
    run.id,
    "ActivityHeartbeatRecorded",
    {
      ...activityEventKeys(activity, attempt),
      heartbeat_at: isoMicros(tx.now),
      lease_expires_at: isoMicros(leaseExpires),
      activity: activitySnapshot(tx.activity(activity.id) as ActivityRow),
      activity_attempt: attemptSnapshot(tx.attempt(attempt.id) as AttemptRow),
      progress: Object.keys(progress).length > 0 ? progress : null,
    },
    { taskId: task.id },
  );
  return {
    task_id: task.id,
    activity_attempt_id: attempt.id,
    lease_owner: attempt.lease_owner,
    cancel_requested: false,
    can_continue: true,
    reason: null,
    run_closed_reason: null,
    run_closed_at: null,
    heartbeat_recorded: true,
    lease_expires_at: isoMicros(leaseExpires),
    last_heartbeat_at: isoMicros(tx.now),
  };
}

/** Success: ActivityCompleted, attempt/task completed, a workflow resume task. */
export function completeActivityTask(
  tx: Tx,
  taskId: string,
  attemptId: string,
  leaseOwner: string | undefined,
  result: PayloadEnvelope | null,
): JsonObject {
  const { task, attempt, activity, run } = reportContext(tx, taskId, attemptId, leaseOwner);
  const fresh = tx.db
    .prepare(
      "UPDATE activity_executions SET status = 'completed', result = ?, payload_codec = COALESCE(?, payload_codec), closed_at = ?, updated_at = ? WHERE id = ? RETURNING *",
    )
    .get(result?.blob ?? null, result?.codec ?? null, tx.now, tx.now, activity.id) as ActivityRow;
  closeAttempt(tx, attempt.id, "completed");
  tx.db
    .prepare("UPDATE workflow_tasks SET status = 'completed', lease_expires_at = NULL, updated_at = ? WHERE id = ?")
    .run(tx.now, task.id);
  if (isTerminal(run.status))
    return {
      task_id: task.id,
      activity_attempt_id: attempt.id,
      outcome: "completed",
      recorded: false,
      reason: "run_closed",
      next_task_id: null,
    };
  tx.appendEvent(
    run.id,
    "ActivityCompleted",
    {
      ...activityEventKeys(activity, attempt),
      result: result?.blob ?? null,
      payload_codec: result?.codec ?? null,
      activity: activitySnapshot(fresh),
      // ActivityOutcomeRecorder.php@8dc90d64: no attempt snapshot; the (still leased) task's snapshot.
      task: taskSnapshot(task),
    },
    { taskId: task.id },
  );
  // A member of a parallel group wakes the workflow only with the group's last success.
  const path = activityParallelPath(fresh);
  const next =
    path.length === 0 || groupsCompleted(tx, run.id, path)
      ? resumeWorkflow(tx, run, fresh, attempt.id, "ActivityCompleted")
      : null;
  return {
    task_id: task.id,
    activity_attempt_id: attempt.id,
    outcome: "completed",
    recorded: true,
    reason: null,
    next_task_id: next,
  };
}

export interface ActivityFailureInput {
  message: string;
  type?: string | null;
  stack_trace?: string | null;
  non_retryable?: boolean | null;
  retryable?: boolean | null;
  kind?: string | null;
  timeout_type?: string | null;
  details?: unknown;
}

/**
 * A worker-reported failure: retry (ActivityRetryScheduled + delayed task) unless it is non-retryable
 * (flag, or type listed in non_retryable_error_types) or attempts are exhausted; then a failure row
 * (activity/activity), ActivityFailed, and a workflow resume task.
 */
export function failActivityTask(
  tx: Tx,
  taskId: string,
  attemptId: string,
  leaseOwner: string | undefined,
  failure: ActivityFailureInput,
): JsonObject {
  const ctx = reportContext(tx, taskId, attemptId, leaseOwner);
  const { task, attempt, activity, run } = ctx;
  const policy = policyOf(activity);
  const exceptionType = failure.type ?? null;
  const nonRetryable =
    failure.non_retryable === true ||
    failure.retryable === false ||
    (exceptionType !== null && policy.non_retryable_error_types.includes(exceptionType));
  const exception: JsonObject = { type: exceptionType, message: failure.message, code: 0 };
  if (nonRetryable) exception.non_retryable = true;
  if (failure.details !== undefined && failure.details !== null) exception.details = failure.details;
  // `DefaultActivityTaskBridge::throwable` (workflow@8dc90d64): a failure without a PHP `class` is
  // restored as RuntimeException; its type stays `exception_type`.
  const facts: FailureFacts = {
    exceptionType,
    exceptionClass: WORKER_FAILURE_CLASS,
    message: failure.message,
    exception,
    trace: failure.stack_trace ?? null,
  };
  closeAttempt(tx, attempt.id, "failed");
  tx.db
    .prepare("UPDATE workflow_tasks SET status = 'completed', lease_expires_at = NULL, updated_at = ? WHERE id = ?")
    .run(tx.now, task.id);
  tx.touch(run.id);
  if (isTerminal(run.status)) {
    tx.db
      .prepare(
        "UPDATE activity_executions SET status = 'failed', exception = ?, closed_at = ?, updated_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(exception), tx.now, tx.now, activity.id);
    return {
      task_id: task.id,
      activity_attempt_id: attempt.id,
      outcome: "failed",
      recorded: false,
      reason: "run_closed",
      next_task_id: null,
    };
  }
  if (!nonRetryable && retryAllowed(policy, attempt.attempt_number)) {
    const retryTaskId = scheduleRetry(tx, ctx, facts, policy);
    return {
      task_id: task.id,
      activity_attempt_id: attempt.id,
      outcome: "failed",
      recorded: true,
      reason: null,
      next_task_id: retryTaskId,
    };
  }
  tx.db
    .prepare(
      "UPDATE activity_executions SET status = 'failed', exception = ?, closed_at = ?, updated_at = ? WHERE id = ?",
    )
    .run(JSON.stringify(exception), tx.now, tx.now, activity.id);
  const failureId = insertFailure(tx, {
    runId: run.id,
    sourceKind: "activity_execution",
    sourceId: activity.id,
    propagationKind: "activity",
    failureCategory: "activity",
    nonRetryable,
    exceptionClass: facts.exceptionClass,
    exceptionType,
    message: failure.message,
    // A restored worker failure has no PHP file, line or frames: the row keeps '' / 0 / '' as the
    // engine's does (ActivityOutcomeRecorder.php@8dc90d64); the worker's own trace stays in the payload.
    tracePreview: failure.stack_trace ?? "",
    line: 0,
  });
  const fresh = tx.activity(activity.id) as ActivityRow;
  tx.appendEvent(
    run.id,
    "ActivityFailed",
    {
      ...activityEventKeys(activity, attempt),
      failure_id: failureId,
      failure_category: "activity",
      non_retryable: nonRetryable,
      exception_type: exceptionType,
      exception_class: facts.exceptionClass,
      message: failure.message,
      code: 0,
      exception,
      activity: activitySnapshot(fresh, exception),
      // The engine records ActivityFailed before it completes the task: the snapshot is the leased task.
      task: taskSnapshot(task),
    },
    { taskId: task.id },
  );
  const next = resumeWorkflow(tx, run, fresh, attempt.id, "ActivityFailed");
  return {
    task_id: task.id,
    activity_attempt_id: attempt.id,
    outcome: "failed",
    recorded: true,
    reason: null,
    next_task_id: next,
  };
}

export function validateFailure(raw: unknown): ActivityFailureInput {
  const parsed = z
    .object({
      message: z.string().min(1),
      type: z.string().nullish(),
      stack_trace: z.string().nullish(),
      non_retryable: z.boolean().nullish(),
      retryable: z.boolean().nullish(),
      kind: z.string().nullish(),
      timeout_type: z.string().nullish(),
      details: z.unknown().optional(),
    })
    .safeParse(raw);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) errors[["failure", ...issue.path].join(".")] = [issue.message];
    throw validationError(errors);
  }
  return parsed.data;
}
