import { z } from "zod";
import { isoMicros } from "../clock";
import { newId } from "../ids";
import { validationError } from "./errors";
import { activityEventKeys, activitySnapshot } from "./lifecycle";
import { parallelFields, parallelKeys, parallelPath, pathMismatch } from "./parallel-groups";
import type { ActivityRow, AttemptRow, RetryPolicySnapshot, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, envelope, parseJson, taskSnapshot } from "./tx";
// An activity's start: scheduled by a workflow task's command, claimed by a worker's poll. Its
// attempt's reports are activity-reports.ts, its deadlines and lost leases activity-timeouts.ts.

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

/** `{task: snapshot}` of a task row, or nothing when it is gone. */
function taskSnapshotOf(tx: Tx, taskId: string): JsonObject {
  const task = tx.task(taskId);
  return task ? { task: taskSnapshot(task) } : {};
}

/** The execution's retry policy snapshot (one attempt, no backoff when it has none). */
export function policyOf(a: ActivityRow): RetryPolicySnapshot {
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
