import { z } from "zod";
import { isoMicros } from "../clock";
import { newId } from "../ids";
import { EngineError, validationError } from "./errors";
import {
  activityEventKeys,
  activitySnapshot,
  attemptSnapshot,
  EXCEPTION_CLASSES,
  insertFailure,
  WORKER_FAILURE_CLASS,
} from "./lifecycle";
import {
  activityParallelPath,
  groupsCompleted,
  parallelFields,
  parallelKeys,
  parallelPath,
  pathMismatch,
} from "./parallel-groups";
import type { ActivityRow, AttemptRow, RetryPolicySnapshot, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, envelope, parseJson, taskSnapshot } from "./tx";

/**
 * Upper bound for any duration a client sends (timeouts, delays, backoff): about 100 years. Every
 * duration becomes a deadline rendered as ISO-8601, and past year 275 760 `Date` has no ISO form.
 */
export const MAX_DURATION_SECONDS = 3_155_760_000;

const timeout = z.number().int().min(1).max(MAX_DURATION_SECONDS).nullish();

export const scheduleActivitySchema = z
  .object({
    type: z.literal("schedule_activity"),
    activity_type: z.string().min(1),
    arguments: z.object({ codec: z.string().min(1), blob: z.string() }).nullish(),
    queue: z.string().min(1).nullish(),
    task_queue: z.string().min(1).nullish(),
    connection: z.string().nullish(),
    retry_policy: z
      .object({
        max_attempts: z.number().int().nullish(),
        backoff_seconds: z
          .union([
            z.array(z.number().int().min(0).max(MAX_DURATION_SECONDS)),
            z.number().int().min(0).max(MAX_DURATION_SECONDS),
          ])
          .nullish(),
        non_retryable_error_types: z.array(z.string()).nullish(),
      })
      .nullish(),
    start_to_close_timeout: timeout,
    schedule_to_start_timeout: timeout,
    schedule_to_close_timeout: timeout,
    heartbeat_timeout: timeout,
    ...parallelFields,
  })
  .superRefine((c, ctx) => {
    const lte = (a: number | null | undefined, b: number | null | undefined, aName: string, bName: string): void => {
      if (a && b && a > b)
        ctx.addIssue({ code: "custom", path: [aName], message: `The ${aName} must not exceed ${bName}.` });
    };
    lte(c.heartbeat_timeout, c.start_to_close_timeout, "heartbeat_timeout", "start_to_close_timeout");
    lte(c.start_to_close_timeout, c.schedule_to_close_timeout, "start_to_close_timeout", "schedule_to_close_timeout");
    lte(
      c.schedule_to_start_timeout,
      c.schedule_to_close_timeout,
      "schedule_to_start_timeout",
      "schedule_to_close_timeout",
    );
  });

export type ScheduleActivityCommand = z.infer<typeof scheduleActivitySchema>;

function policySnapshot(c: ScheduleActivityCommand): RetryPolicySnapshot {
  const rp = c.retry_policy ?? null;
  // External workers default to one attempt; tries <= 0 means unlimited (snapshotted as null).
  const requested = rp?.max_attempts ?? 1;
  const maxAttempts = requested <= 0 ? null : requested;
  const rawBackoff = rp?.backoff_seconds;
  // A worker's policy without backoff_seconds retries at once, like the engine's
  // `ActivityRetryPolicy::fromCommand` (durable-workflow/workflow src/V2/Support/ActivityRetryPolicy.php@8dc90d64:
  // no list and no PHP activity class → `[]`). The old [1, 2, 5, …, 120] was the PHP class default.
  const backoff =
    rawBackoff === undefined || rawBackoff === null ? [] : typeof rawBackoff === "number" ? [rawBackoff] : rawBackoff;
  return {
    snapshot_version: 1,
    max_attempts: maxAttempts,
    backoff_seconds: backoff,
    start_to_close_timeout: c.start_to_close_timeout ?? null,
    schedule_to_start_timeout: c.schedule_to_start_timeout ?? null,
    schedule_to_close_timeout: c.schedule_to_close_timeout ?? null,
    heartbeat_timeout: c.heartbeat_timeout ?? null,
    non_retryable_error_types: rp?.non_retryable_error_types ?? [],
  };
}

/** Backoff after the failure of attempt n: backoff[min(n-1, len-1)]; an empty list means 0. */
export function backoffFor(policy: RetryPolicySnapshot, attempt: number): number {
  const list = policy.backoff_seconds;
  if (list.length === 0) return 0;
  return list[Math.min(attempt - 1, list.length - 1)] ?? 0;
}

/** `{task: snapshot}` of a task row, or nothing when it is gone. */
function taskSnapshotOf(tx: Tx, taskId: string): JsonObject {
  const task = tx.task(taskId);
  return task ? { task: taskSnapshot(task) } : {};
}

function policyOf(a: ActivityRow): RetryPolicySnapshot {
  return (
    parseJson<RetryPolicySnapshot>(a.retry_policy) ?? {
      snapshot_version: 1,
      max_attempts: 1,
      backoff_seconds: [],
      start_to_close_timeout: null,
      schedule_to_start_timeout: null,
      schedule_to_close_timeout: null,
      heartbeat_timeout: null,
      non_retryable_error_types: [],
    }
  );
}

/** schedule_activity: execution row (pending, attempt_count 0, deadlines, policy), ActivityScheduled, a ready activity task. */
export function scheduleActivity(tx: Tx, run: RunRow, workflowTaskId: string, c: ScheduleActivityCommand): string {
  const sequence = tx.nextCommandSequence(run.id);
  const parallel = parallelPath(c);
  const mismatch = pathMismatch(parallel, sequence);
  // The bridge refuses such a completion as invalid_commands (DefaultWorkflowTaskBridge::parallelCommandsMatchSequences).
  if (mismatch) throw validationError({ "commands.parallel_group_base_sequence": [mismatch] });
  const policy = policySnapshot(c);
  const id = newId(tx.now);
  const queue = c.queue ?? c.task_queue ?? run.queue ?? "default";
  const a = tx.db
    .prepare(
      `INSERT INTO activity_executions (id, workflow_run_id, sequence, activity_class, activity_type, status, payload_codec, arguments, connection, queue,
         attempt_count, retry_policy, activity_options, schedule_deadline_at, schedule_to_close_deadline_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      id,
      run.id,
      sequence,
      c.activity_type,
      c.activity_type,
      c.arguments?.codec ?? null,
      c.arguments?.blob ?? null,
      c.connection ?? run.connection,
      queue,
      JSON.stringify(policy),
      JSON.stringify({
        queue,
        connection: c.connection ?? null,
        ...(parallel.length > 0 ? { parallel_group_path: parallel } : {}),
      }),
      policy.schedule_to_start_timeout ? tx.now + policy.schedule_to_start_timeout * 1000 : null,
      policy.schedule_to_close_timeout ? tx.now + policy.schedule_to_close_timeout * 1000 : null,
      tx.now,
      tx.now,
    ) as ActivityRow;
  tx.appendEvent(
    run.id,
    "ActivityScheduled",
    // The scheduling workflow task is the event's own `workflow_task_id` column, not a payload key.
    // `WorkflowHistoryEvent::record(..., $task)` adds the scheduling workflow task's snapshot (workflow@8dc90d64).
    {
      activity_execution_id: id,
      activity_class: a.activity_class,
      activity_type: a.activity_type,
      sequence,
      activity: activitySnapshot(a),
      ...parallelKeys(parallel),
      ...taskSnapshotOf(tx, workflowTaskId),
    },
    { taskId: workflowTaskId },
  );
  return tx.createTask(run, "activity", { activity_execution_id: id }, { queue });
}

export interface ActivityTaskView {
  task_id: string;
  workflow_id: string;
  run_id: string;
  activity_execution_id: string;
  activity_attempt_id: string;
  attempt_number: number;
  idempotency_key: string;
  activity_type: string;
  payload_codec: string;
  arguments?: PayloadEnvelope;
  retry_policy: RetryPolicySnapshot;
  task_queue?: string;
  connection?: string;
  lease_owner: string;
  lease_expires_at: string | null;
  deadlines?: Record<string, string>;
}

function deadlinesOf(a: ActivityRow): Record<string, string> | undefined {
  const d: Record<string, string> = {};
  const put = (k: string, v: number | null): void => {
    const iso = isoMicros(v);
    if (iso) d[k] = iso;
  };
  put("schedule_to_start", a.schedule_deadline_at);
  put("start_to_close", a.close_deadline_at);
  put("schedule_to_close", a.schedule_to_close_deadline_at);
  put("heartbeat", a.heartbeat_deadline_at);
  return Object.keys(d).length > 0 ? d : undefined;
}

/** Claims the oldest due activity task of the queue: new attempt (task.attempt_count + 1), ActivityStarted. */
export function claimActivityTask(tx: Tx, namespace: string, workerId: string, queue: string): ActivityTaskView | null {
  for (;;) {
    const task = tx.db
      .prepare(
        "SELECT * FROM workflow_tasks WHERE namespace = ? AND task_type = 'activity' AND queue = ? AND status = 'ready' AND available_at <= ? ORDER BY available_at LIMIT 1",
      )
      .get(namespace, queue, tx.now) as TaskRow | undefined;
    if (!task) return null;
    const run = tx.run(task.workflow_run_id);
    const executionId = (parseJson<JsonObject>(task.payload) ?? {}).activity_execution_id;
    const a = typeof executionId === "string" ? tx.activity(executionId) : undefined;
    if (!run || isTerminal(run.status) || !a || (a.status !== "pending" && a.status !== "running")) {
      tx.db.prepare("UPDATE workflow_tasks SET status = 'cancelled', updated_at = ? WHERE id = ?").run(tx.now, task.id);
      if (run) tx.touch(run.id);
      continue;
    }
    const policy = policyOf(a);
    const attemptNumber = task.attempt_count + 1;
    const attemptId = newId(tx.now);
    const leaseExpires = tx.now + tx.leases.activityMs;
    // RETURNING hands back the rows as written, for the event snapshots and the view.
    const leased = tx.db
      .prepare(
        `UPDATE workflow_tasks SET status = 'leased', leased_at = ?, lease_owner = ?, lease_expires_at = ?, attempt_count = ?, last_dispatch_attempt_at = ?,
           last_dispatched_at = ?, last_claim_error = NULL, last_claim_failed_at = NULL, updated_at = ? WHERE id = ? RETURNING *`,
      )
      .get(tx.now, workerId, leaseExpires, attemptNumber, tx.now, tx.now, tx.now, task.id) as TaskRow;
    const fresh = tx.db
      .prepare(
        `UPDATE activity_executions SET status = 'running', attempt_count = ?, current_attempt_id = ?, started_at = ?, last_heartbeat_at = NULL,
           close_deadline_at = ?, heartbeat_deadline_at = ?, updated_at = ? WHERE id = ? RETURNING *`,
      )
      .get(
        attemptNumber,
        attemptId,
        tx.now,
        policy.start_to_close_timeout ? tx.now + policy.start_to_close_timeout * 1000 : null,
        policy.heartbeat_timeout ? tx.now + policy.heartbeat_timeout * 1000 : null,
        tx.now,
        a.id,
      ) as ActivityRow;
    const attempt = tx.db
      .prepare(
        `INSERT INTO activity_attempts (id, workflow_run_id, activity_execution_id, workflow_task_id, attempt_number, status, lease_owner, started_at, lease_expires_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        attemptId,
        run.id,
        a.id,
        task.id,
        attemptNumber,
        workerId,
        tx.now,
        leaseExpires,
        tx.now,
        tx.now,
      ) as AttemptRow;
    tx.appendEvent(
      run.id,
      "ActivityStarted",
      {
        // `DefaultHistoryProjectionRole::recordActivityStarted` (workflow@8dc90d64): the attempt is
        // named by `activity_attempt_id`/`attempt_number`, the lease by the claimed task's snapshot.
        ...activityEventKeys(a, attempt),
        activity: activitySnapshot(fresh),
        task: taskSnapshot(leased),
      },
      { taskId: task.id },
    );
    // Never a task without a codec: both official SDKs refuse one. The engine's bridge falls back the
    // same way (DefaultActivityTaskBridge.php@8dc90d64: execution codec ?? run codec ?? default "avro").
    const codec = fresh.payload_codec ?? run.payload_codec ?? DEFAULT_PAYLOAD_CODEC;
    const args = envelope(codec, fresh.arguments);
    const v: ActivityTaskView = {
      task_id: task.id,
      workflow_id: run.workflow_instance_id,
      run_id: run.id,
      activity_execution_id: a.id,
      activity_attempt_id: attemptId,
      attempt_number: attemptNumber,
      idempotency_key: a.id,
      activity_type: a.activity_type,
      payload_codec: codec,
      retry_policy: policy,
      lease_owner: workerId,
      lease_expires_at: isoMicros(leaseExpires),
    };
    if (args) v.arguments = args;
    if (task.queue) v.task_queue = task.queue;
    if (task.connection) v.connection = task.connection;
    const deadlines = deadlinesOf(fresh);
    if (deadlines) v.deadlines = deadlines;
    return v;
  }
}

interface ReportContext {
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
function reportContext(tx: Tx, taskId: string, attemptId: string, leaseOwner: string | undefined): ReportContext {
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
function heartbeatRefusal(e: EngineError): JsonObject {
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

/** Closes an attempt and returns it as written. */
function closeAttempt(tx: Tx, attemptId: string, status: string): AttemptRow {
  return tx.db
    .prepare(
      "UPDATE activity_attempts SET status = ?, closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ? RETURNING *",
    )
    .get(status, tx.now, tx.now, attemptId) as AttemptRow;
}

function resumeWorkflow(tx: Tx, run: RunRow, a: ActivityRow, attemptId: string, eventType: string): string {
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

interface FailureFacts {
  exceptionType: string | null;
  exceptionClass: string;
  message: string;
  exception: JsonObject;
  timeoutKind?: string;
  trace?: string | null;
}

/**
 * Retry: attempt closed `failed` by the caller, execution back to `pending` (attempt count kept), the
 * old task completed/cancelled, ActivityRetryScheduled and a new task at now + backoff. No failure row.
 */
function scheduleRetry(
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

function retryAllowed(policy: RetryPolicySnapshot, attemptNumber: number): boolean {
  return policy.max_attempts === null || attemptNumber < policy.max_attempts;
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
