import { isoMicros } from "../clock";
import { encodeBlob } from "../codec/codec";
import { activityParallelPath, parallelKeys } from "./parallel-groups";
import { newId } from "../ids";
import type { ActivityRow, AttemptRow, FailureRow, RunRow, TimerRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { dropNulls, parseJson } from "./tx";

export const EXCEPTION_CLASSES = {
  workflowTimeout: "Workflow\\V2\\Exceptions\\WorkflowTimeoutException",
  activityTimeout: "Workflow\\V2\\Exceptions\\ActivityTimeoutException",
  cancelled: "Workflow\\V2\\Exceptions\\WorkflowCancelledException",
  terminated: "Workflow\\V2\\Exceptions\\WorkflowTerminatedException",
} as const;

/**
 * `ActivitySnapshot::fromExecution` (durable-workflow/workflow src/V2/Support/ActivitySnapshot.php@8dc90d64):
 * nulls dropped, `execution_mode` / `local_activity` from the activity options, and `exception` as
 * the execution row stores it — the failure serialised with the activity's codec, a payload string.
 */
export function activitySnapshot(a: ActivityRow, publicException?: JsonObject): JsonObject {
  // Only what the options name, else null: the engine never writes "queued", and only "local" is
  // ever set (ActivitySnapshot.php@8dc90d64 `stringValue($execution->activity_options['execution_mode'] ?? null)`).
  const mode = parseJson<JsonObject>(a.activity_options)?.execution_mode;
  const executionMode = typeof mode === "string" && mode !== "" ? mode : null;
  return dropNulls({
    id: a.id,
    idempotency_key: a.id,
    sequence: a.sequence,
    type: a.activity_type,
    class: a.activity_class,
    execution_mode: executionMode,
    local_activity: executionMode === "local",
    attempt_id: a.current_attempt_id,
    status: a.status,
    payload_codec: a.payload_codec,
    attempt_count: a.attempt_count,
    retry_policy: parseJson<JsonObject>(a.retry_policy),
    connection: a.connection,
    queue: a.queue,
    last_heartbeat_at: isoMicros(a.last_heartbeat_at),
    created_at: isoMicros(a.created_at),
    started_at: isoMicros(a.started_at),
    closed_at: isoMicros(a.closed_at),
    arguments: a.arguments,
    result: a.result,
    // A failure event's snapshot carries the restored worker failure's public payload instead
    // (`ActivityOutcomeRecorder::publicActivitySnapshot`, workflow@8dc90d64).
    exception: publicException ?? storedException(a),
  });
}

/** The stored failure as the engine's execution row holds it: a blob in the activity's codec. */
function storedException(a: ActivityRow): string | null {
  const exception = parseJson<JsonObject>(a.exception);
  if (exception === null) return null;
  return a.payload_codec === null || a.payload_codec === "avro" ? encodeBlob(exception) : JSON.stringify(exception);
}

/**
 * The keys every attempt-level activity event opens with: the reported `attempt` when a worker
 * reported one, else the activity's current attempt (timeouts, cancellation).
 */
export function activityEventKeys(a: ActivityRow, attempt?: AttemptRow): JsonObject {
  return {
    activity_execution_id: a.id,
    activity_attempt_id: attempt ? attempt.id : a.current_attempt_id,
    activity_class: a.activity_class,
    activity_type: a.activity_type,
    sequence: a.sequence,
    attempt_number: attempt ? attempt.attempt_number : a.attempt_count,
    // A parallel-group member's events carry its group (HistoryEventPayloadContract.php@8dc90d64).
    ...parallelKeys(activityParallelPath(a)),
  };
}

export function attemptSnapshot(at: AttemptRow): JsonObject {
  return dropNulls({
    id: at.id,
    attempt_number: at.attempt_number,
    status: at.status,
    lease_owner: at.lease_owner,
    started_at: isoMicros(at.started_at),
    last_heartbeat_at: isoMicros(at.last_heartbeat_at),
    lease_expires_at: isoMicros(at.lease_expires_at),
    closed_at: isoMicros(at.closed_at),
  });
}

export interface FailureInput {
  runId: string;
  sourceKind: "activity_execution" | "workflow_run" | "child_workflow_run" | "workflow_command";
  sourceId: string;
  propagationKind: string;
  failureCategory: string;
  nonRetryable: boolean;
  exceptionClass: string;
  exceptionType?: string | null;
  message: string;
  tracePreview?: string | null;
  line?: number | null;
}

/** A worker reports no PHP class; the engine records `RuntimeException` for it (workflow@8dc90d64). */
export const WORKER_FAILURE_CLASS = "RuntimeException";

/** Inserts a `workflow_failures` row and returns its id. */
export function insertFailure(tx: Tx, f: FailureInput): string {
  const id = newId(tx.now);
  tx.db
    .prepare(
      `INSERT INTO workflow_failures (id, workflow_run_id, source_kind, source_id, propagation_kind, failure_category, non_retryable, handled,
         exception_class, exception_type, message, file, line, trace_preview, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, '', ?, ?, ?, ?)`,
    )
    .run(
      id,
      f.runId,
      f.sourceKind,
      f.sourceId,
      f.propagationKind,
      f.failureCategory,
      f.nonRetryable ? 1 : 0,
      f.exceptionClass,
      f.exceptionType ?? null,
      f.message,
      f.line ?? null,
      f.tracePreview ?? null,
      tx.now,
      tx.now,
    );
  tx.touch(f.runId);
  return id;
}

/**
 * Cancels everything still open on a closing run: activities (`ActivityCancelled`), timers
 * (`TimerCancelled`) and transport tasks. `keepTaskId` is the workflow task whose completion is
 * closing the run; it is completed by its caller instead.
 */
export function cancelOpenWork(
  tx: Tx,
  run: RunRow,
  opts: { commandId?: string | null; keepTaskId?: string | null } = {},
): void {
  const activities = tx.db
    .prepare(
      "SELECT * FROM activity_executions WHERE workflow_run_id = ? AND status IN ('pending','running') ORDER BY sequence",
    )
    .all(run.id) as ActivityRow[];
  for (const a of activities) {
    const attempt = a.current_attempt_id ? tx.attempt(a.current_attempt_id) : undefined;
    if (attempt && attempt.status === "running") {
      tx.db
        .prepare(
          "UPDATE activity_attempts SET status = 'cancelled', closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ?",
        )
        .run(tx.now, tx.now, attempt.id);
    }
    tx.db
      .prepare("UPDATE activity_executions SET status = 'cancelled', closed_at = ?, updated_at = ? WHERE id = ?")
      .run(tx.now, tx.now, a.id);
    const fresh = tx.activity(a.id);
    const freshAttempt = attempt ? tx.attempt(attempt.id) : undefined;
    if (!fresh) continue;
    tx.appendEvent(
      run.id,
      "ActivityCancelled",
      {
        workflow_command_id: opts.commandId ?? null,
        ...activityEventKeys(a),
        cancelled_at: isoMicros(tx.now),
        activity: activitySnapshot(fresh),
        activity_attempt: freshAttempt ? attemptSnapshot(freshAttempt) : undefined,
      },
      { commandId: opts.commandId },
    );
  }
  const timers = tx.db
    .prepare("SELECT * FROM workflow_run_timers WHERE workflow_run_id = ? AND status = 'pending' ORDER BY sequence")
    .all(run.id) as TimerRow[];
  for (const t of timers) {
    tx.db
      .prepare("UPDATE workflow_run_timers SET status = 'cancelled', cancelled_at = ?, updated_at = ? WHERE id = ?")
      .run(tx.now, tx.now, t.id);
    tx.appendEvent(
      run.id,
      "TimerCancelled",
      { ...timerEventKeys(tx, t), cancelled_at: isoMicros(tx.now) },
      { commandId: opts.commandId },
    );
  }
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET status = 'cancelled', lease_expires_at = NULL, updated_at = ? WHERE workflow_run_id = ? AND status IN ('ready','leased') AND id IS NOT ?",
    )
    .run(tx.now, run.id, opts.keepTaskId ?? null);
}

/** The keys TimerScheduled/TimerFired/TimerCancelled share, read back from the TimerScheduled event. */
export function timerEventKeys(tx: Tx, t: TimerRow): JsonObject {
  const scheduled = tx.db
    .prepare(
      "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'TimerScheduled' AND json_extract(payload, '$.timer_id') = ?",
    )
    .get(t.workflow_run_id, t.id) as { payload: string } | undefined;
  const base = scheduled ? (JSON.parse(scheduled.payload) as JsonObject) : {};
  return {
    ...base,
    timer_id: t.id,
    sequence: t.sequence,
    delay_seconds: t.delay_seconds,
    fire_at: isoMicros(t.fire_at),
  };
}

/** Sets the terminal status of a run and wakes a waiting parent. */
export function finishRun(
  tx: Tx,
  runId: string,
  status: "completed" | "failed" | "cancelled" | "terminated",
  closedReason: string,
  output?: { codec: string | null; blob: string | null },
): void {
  tx.db
    .prepare(
      "UPDATE workflow_runs SET status = ?, closed_reason = ?, closed_at = ?, output = COALESCE(?, output), output_payload_codec = COALESCE(?, output_payload_codec), updated_at = ? WHERE id = ?",
    )
    .run(status, closedReason, tx.now, output?.blob ?? null, output?.blob ? output.codec : null, tx.now, runId);
  tx.touch(runId);
  if (closedReason !== "continued") notifyParent(tx, tx.mustRun(runId));
}

interface ChildCallRow {
  id: string;
  parent_workflow_run_id: string;
  sequence: number;
  child_workflow_instance_id: string;
  child_workflow_run_id: string | null;
  child_workflow_type: string;
  status: string;
}

/** Records the child's outcome in a still-open parent and creates the parent's resume task. */
function notifyParent(tx: Tx, child: RunRow): void {
  if (!child.parent_workflow_run_id) return;
  const call = tx.db.prepare("SELECT * FROM workflow_child_calls WHERE child_workflow_run_id = ?").get(child.id) as
    ChildCallRow | undefined;
  if (!call) return;
  const childStatus =
    child.status === "completed"
      ? "completed"
      : child.status === "cancelled"
        ? "cancelled"
        : child.status === "terminated"
          ? "terminated"
          : "failed";
  tx.db
    .prepare("UPDATE workflow_child_calls SET status = ?, closed_reason = ?, updated_at = ? WHERE id = ?")
    .run(childStatus, child.closed_reason, tx.now, call.id);
  const parent = tx.run(call.parent_workflow_run_id);
  if (!parent || isTerminal(parent.status)) return;
  const link = tx.db
    .prepare(
      "SELECT id FROM workflow_links WHERE parent_workflow_run_id = ? AND sequence = ? AND link_type = 'child_workflow'",
    )
    .get(parent.id, call.sequence) as { id: string } | undefined;
  const identity: JsonObject = {
    sequence: call.sequence,
    workflow_link_id: link?.id ?? null,
    child_call_id: call.id,
    child_workflow_instance_id: child.workflow_instance_id,
    child_workflow_run_id: child.id,
    child_workflow_class: child.workflow_class,
    child_workflow_type: child.workflow_type,
    child_run_number: child.run_number,
    child_status: child.status,
    closed_reason: child.closed_reason,
    closed_at: isoMicros(child.closed_at),
  };
  let eventType: string;
  let payload: JsonObject;
  if (childStatus === "completed") {
    eventType = "ChildRunCompleted";
    payload = { ...identity, output: child.output, payload_codec: child.output_payload_codec };
  } else {
    const childFailure = tx.db
      .prepare("SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at DESC, id DESC LIMIT 1")
      .get(child.id) as FailureRow | undefined;
    const category = childStatus === "failed" ? "child_workflow" : childStatus;
    const exceptionClass = childFailure?.exception_class ?? "Workflow\\V2\\Exceptions\\ChildWorkflowFailedException";
    const message =
      childFailure?.message ??
      `Child workflow ${child.workflow_instance_id} closed as ${child.closed_reason ?? childStatus}.`;
    const failureId = insertFailure(tx, {
      runId: parent.id,
      sourceKind: "child_workflow_run",
      sourceId: child.id,
      propagationKind: "child",
      failureCategory: category,
      nonRetryable: false,
      exceptionClass,
      exceptionType: childFailure?.exception_type ?? null,
      message,
    });
    eventType =
      childStatus === "failed"
        ? "ChildRunFailed"
        : childStatus === "cancelled"
          ? "ChildRunCancelled"
          : "ChildRunTerminated";
    payload = {
      ...identity,
      failure_id: failureId,
      failure_category: category,
      exception_class: exceptionClass,
      message,
    };
    if (childStatus === "failed") payload = { ...payload, exception_type: childFailure?.exception_type ?? null };
  }
  tx.appendEvent(parent.id, eventType, payload);
  tx.ensureWorkflowTask(parent, {
    resume_source_kind: "child_workflow_run",
    resume_source_id: child.id,
    child_call_id: call.id,
    child_workflow_run_id: child.id,
    workflow_sequence: call.sequence,
    workflow_event_type: eventType,
  });
}
