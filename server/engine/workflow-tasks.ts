/**
 * A workflow task's lease: the claim (which enforces an expired run deadline) and its view, the
 * ownership check every later call makes, history pages, heartbeat and a failed task's retry.
 * Completion is workflow-task-completion.ts; the completion commands, workflow-task-commands.ts.
 */
import { isoMicros } from "../clock";
import { cancellationObservation } from "./cooperative-cancellation";
import { EngineError } from "./errors";
import type { HistoryEventView } from "./history";
import type { HistoryPage } from "./history";
import { readHistoryPage } from "./history";
import { historyCacheOf } from "./history-cache";
import { cancelOpenWork, EXCEPTION_CLASSES, finishRun, insertFailure } from "./lifecycle";
import type { RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import { releaseHeldSignals, SIGNAL_RESUME } from "./signal-delivery";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, envelope, parseJson } from "./tx";

export const HISTORY_PAGE_SIZE_DEFAULT = 500;
export const HISTORY_PAGE_SIZE_MAX = 1000;

export interface WorkflowTaskView {
  task_id: string;
  workflow_id: string;
  run_id: string;
  workflow_task_attempt: number;
  workflow_type: string;
  payload_codec: string;
  arguments: PayloadEnvelope | null;
  run_status: string;
  last_history_sequence: number;
  history_events: HistoryEventView[];
  total_history_events: number;
  next_history_page_token: string | null;
  task_queue: string | null;
  connection: string | null;
  compatibility: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  [resumeKey: string]: unknown;
}

const RESUME_KEYS = [
  "workflow_wait_kind",
  "open_wait_id",
  "resume_source_kind",
  "resume_source_id",
  "workflow_update_id",
  "workflow_signal_id",
  "signal_name",
  "signal_wait_id",
  "workflow_command_id",
  "activity_execution_id",
  "activity_attempt_id",
  "activity_type",
  "child_call_id",
  "child_workflow_run_id",
  "workflow_sequence",
  "workflow_event_type",
  "timer_id",
  "condition_wait_id",
  "condition_key",
  "condition_definition_fingerprint",
] as const;

/** A history page for a workflow task, reusing (and offering back) the run's cached committed prefix. */
function taskHistoryPage(tx: Tx, runId: string, token: string | null, pageSize: number): HistoryPage {
  const cache = historyCacheOf(tx.db);
  const page = readHistoryPage(tx.db, runId, token, pageSize, cache?.prefix(runId));
  if (cache && page.events[0]?.sequence === 1) tx.historyOffers.set(runId, page.events);
  return page;
}

function view(tx: Tx, task: TaskRow, run: RunRow, pageSize: number): WorkflowTaskView {
  const page = taskHistoryPage(tx, run.id, null, pageSize);
  const resume = parseJson<JsonObject>(task.payload) ?? {};
  const v: WorkflowTaskView = {
    task_id: task.id,
    workflow_id: run.workflow_instance_id,
    run_id: run.id,
    workflow_task_attempt: task.attempt_count,
    workflow_type: run.workflow_type,
    // Never null: both official SDKs refuse such a task (DefaultWorkflowTaskBridge.php@8dc90d64
    // `$run->payload_codec ?? CodecRegistry::defaultCodec()`).
    payload_codec: run.payload_codec ?? DEFAULT_PAYLOAD_CODEC,
    arguments: envelope(run.payload_codec, run.arguments),
    run_status: run.status,
    last_history_sequence: run.last_history_sequence,
    history_events: page.events,
    total_history_events: page.total,
    next_history_page_token: page.next_page_token,
    task_queue: task.queue,
    connection: task.connection,
    compatibility: null,
    lease_owner: task.lease_owner,
    lease_expires_at: isoMicros(task.lease_expires_at),
  };
  for (const k of RESUME_KEYS) v[k] = resume[k] ?? null;
  if (resume.resume_source_kind === SIGNAL_RESUME) v.signal_arguments = signalArguments(tx, resume.workflow_signal_id);
  // A run asked to cancel tells its worker on every claim (sdk-python 2.12.0 worker.py `_replay_workflow_claim`).
  const cancellation = cancellationObservation(run);
  if (cancellation) v.cancellation_request = cancellation;
  return v;
}

/**
 * The resuming signal's arguments on its task. sdk-rust 4.10.2 resumes a signal wait from them
 * (`WorkflowTask.signal_arguments`, lib.rs `decode_resume_signal`), since the wait's SignalApplied
 * is written only when the task completes; the real server at 11d35b7 sends none, so the SDK decides.
 */
function signalArguments(tx: Tx, signalId: unknown): PayloadEnvelope | null {
  if (typeof signalId !== "string") return null;
  const s = tx.db.prepare("SELECT payload_codec, arguments FROM workflow_signal_records WHERE id = ?").get(signalId) as
    { payload_codec: string | null; arguments: string | null } | undefined;
  return s ? envelope(s.payload_codec, s.arguments) : null;
}

/** Times a run out (v2-model §8.5): cancels open work, failure row, run failed/timed_out, WorkflowTimedOut. */
export function timeoutRun(
  tx: Tx,
  run: RunRow,
  kind: "execution_timeout" | "run_timeout",
  keepTaskId: string | null,
): void {
  cancelOpenWork(tx, run, { keepTaskId });
  const deadline = kind === "execution_timeout" ? run.execution_deadline_at : run.run_deadline_at;
  const message = `Workflow ${kind === "execution_timeout" ? "execution" : "run"} deadline expired at ${isoMicros(deadline)}.`;
  const failureId = insertFailure(tx, {
    runId: run.id,
    sourceKind: "workflow_run",
    sourceId: run.id,
    propagationKind: "timeout",
    failureCategory: "timeout",
    nonRetryable: false,
    exceptionClass: EXCEPTION_CLASSES.workflowTimeout,
    message,
  });
  tx.appendEvent(
    run.id,
    "WorkflowTimedOut",
    {
      failure_id: failureId,
      timeout_kind: kind,
      failure_category: "timeout",
      message,
      exception_class: EXCEPTION_CLASSES.workflowTimeout,
      execution_deadline_at: isoMicros(run.execution_deadline_at),
      run_deadline_at: isoMicros(run.run_deadline_at),
    },
    { taskId: keepTaskId },
  );
  finishRun(tx, run.id, "failed", "timed_out");
}

export function expiredDeadline(run: RunRow, now: number): "execution_timeout" | "run_timeout" | null {
  if (run.execution_deadline_at !== null && run.execution_deadline_at <= now) return "execution_timeout";
  if (run.run_deadline_at !== null && run.run_deadline_at <= now) return "run_timeout";
  return null;
}

/**
 * Claims the oldest due workflow task of the queue whose run has no other leased workflow task.
 * An expired execution/run deadline is enforced here (the task is consumed and the search goes on).
 */
export function claimWorkflowTask(
  tx: Tx,
  namespace: string,
  workerId: string,
  queue: string,
  pageSize: number,
): WorkflowTaskView | null {
  for (;;) {
    const task = tx.db
      .prepare(
        `SELECT t.* FROM workflow_tasks t WHERE t.namespace = ? AND t.task_type = 'workflow' AND t.queue = ? AND t.status = 'ready' AND t.available_at <= ?
           AND NOT EXISTS (SELECT 1 FROM workflow_tasks l WHERE l.workflow_run_id = t.workflow_run_id AND l.task_type = 'workflow' AND l.status = 'leased')
         ORDER BY t.available_at LIMIT 1`,
      )
      .get(namespace, queue, tx.now) as TaskRow | undefined;
    if (!task) return null;
    const run = tx.run(task.workflow_run_id);
    if (!run || isTerminal(run.status)) {
      tx.db.prepare("UPDATE workflow_tasks SET status = 'cancelled', updated_at = ? WHERE id = ?").run(tx.now, task.id);
      if (run) tx.touch(run.id);
      continue;
    }
    // Signals held during a lease that ended without a completion (expiry, a departed worker)
    // go in before this claim reads history.
    releaseHeldSignals(tx, run.id);
    const expired = expiredDeadline(run, tx.now);
    if (expired) {
      timeoutRun(tx, run, expired, task.id);
      tx.db.prepare("UPDATE workflow_tasks SET status = 'completed', updated_at = ? WHERE id = ?").run(tx.now, task.id);
      continue;
    }
    tx.db.prepare("UPDATE workflow_runs SET status = 'running', updated_at = ? WHERE id = ?").run(tx.now, run.id);
    tx.touch(run.id);
    const current = tx.mustRun(run.id);
    // The lease also remembers how much history it delivered: failures in it that the completion
    // does not turn into a workflow failure were caught by the workflow (FailureHandled).
    const leased = tx.db
      .prepare(
        `UPDATE workflow_tasks SET status = 'leased', leased_at = ?, lease_owner = ?, lease_expires_at = ?, attempt_count = attempt_count + 1,
           last_dispatch_attempt_at = ?, last_dispatched_at = ?, last_claim_error = NULL, last_claim_failed_at = NULL, updated_at = ?,
           payload = json_set(COALESCE(payload, '{}'), '$.claimed_history_sequence', ?) WHERE id = ? RETURNING *`,
      )
      .get(
        tx.now,
        workerId,
        tx.now + tx.leases.workflowTaskMs,
        tx.now,
        tx.now,
        tx.now,
        current.last_history_sequence,
        task.id,
      ) as TaskRow;
    return view(tx, leased, current, pageSize);
  }
}

/** Re-reads a claim for an idempotent poll retry (same worker, same poll_request_id, still leased). */
export function reclaimView(tx: Tx, taskId: string, workerId: string, pageSize: number): WorkflowTaskView | null {
  const task = tx.task(taskId);
  if (!task || task.status !== "leased" || task.lease_owner !== workerId) return null;
  const run = tx.run(task.workflow_run_id);
  return run ? view(tx, task, run, pageSize) : null;
}

function stopReason(run: RunRow): string | null {
  if (run.status === "cancelled") return "run_cancelled";
  if (run.status === "terminated") return "run_terminated";
  return null;
}

/** The ownership check of every workflow-task call after the poll (v2-model §8.6). */
export function leasedWorkflowTask(
  tx: Tx,
  taskId: string,
  leaseOwner: string | undefined,
  attempt: number | undefined,
): { task: TaskRow; run: RunRow } {
  const task = tx.task(taskId);
  if (!task || task.task_type !== "workflow")
    throw new EngineError(404, "task_not_found", "Workflow task not found.", { task_id: taskId });
  const base = { task_id: taskId, workflow_task_attempt: attempt ?? null, recorded: false };
  const run = tx.mustRun(task.workflow_run_id);
  if (isTerminal(run.status)) {
    throw new EngineError(409, "run_closed", "The workflow run is already closed.", {
      ...base,
      run_id: run.id,
      run_status: run.status,
      run_closed_reason: run.closed_reason,
      stop_reason: stopReason(run),
    });
  }
  if (task.status !== "leased")
    throw new EngineError(409, "task_not_leased", "Workflow task is not leased.", {
      ...base,
      task_status: task.status,
    });
  if (leaseOwner !== undefined && task.lease_owner !== leaseOwner)
    throw new EngineError(409, "lease_owner_mismatch", "Workflow task is leased by another worker.", base);
  if (attempt !== undefined && task.attempt_count !== attempt) {
    throw new EngineError(
      409,
      "workflow_task_attempt_mismatch",
      "Workflow task attempt does not match the current lease.",
      { ...base, current_attempt: task.attempt_count },
    );
  }
  if (task.lease_expires_at !== null && task.lease_expires_at <= tx.now)
    throw new EngineError(409, "lease_expired", "Workflow task lease expired.", base);
  return { task, run };
}

export function workflowTaskHistory(
  tx: Tx,
  taskId: string,
  leaseOwner: string | undefined,
  attempt: number | undefined,
  token: string | null,
  pageSize: number,
): JsonObject {
  const { task, run } = leasedWorkflowTask(tx, taskId, leaseOwner, attempt);
  const page = taskHistoryPage(tx, run.id, token, pageSize);
  return {
    task_id: task.id,
    workflow_task_attempt: task.attempt_count,
    run_id: run.id,
    history_events: page.events,
    total_history_events: page.total,
    next_history_page_token: page.next_page_token,
  };
}

export function heartbeatWorkflowTask(
  tx: Tx,
  taskId: string,
  leaseOwner: string | undefined,
  attempt: number | undefined,
): JsonObject {
  const { task, run } = leasedWorkflowTask(tx, taskId, leaseOwner, attempt);
  const expires = tx.now + tx.leases.workflowTaskMs;
  tx.db
    .prepare("UPDATE workflow_tasks SET lease_expires_at = ?, updated_at = ? WHERE id = ?")
    .run(expires, tx.now, task.id);
  return {
    task_id: task.id,
    workflow_task_attempt: task.attempt_count,
    lease_owner: task.lease_owner,
    lease_expires_at: isoMicros(expires),
    run_status: run.status,
    can_continue: true,
    cancel_requested: false,
    reason: null,
    ...(run.cancellation_request_command_id ? { cancellation_request: cancellationObservation(run) } : {}),
  };
}

/** A failed workflow task (replay error in the worker) is retried by a new task after a capped backoff. */
export function failWorkflowTask(
  tx: Tx,
  taskId: string,
  leaseOwner: string | undefined,
  attempt: number | undefined,
  failure: { message: string; type?: string | null; stack_trace?: string | null },
): JsonObject {
  const { task, run } = leasedWorkflowTask(tx, taskId, leaseOwner, attempt);
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET status = 'failed', lease_expires_at = NULL, last_error = ?, updated_at = ? WHERE id = ?",
    )
    .run(
      JSON.stringify({
        message: failure.message,
        type: failure.type ?? null,
        stack_trace: failure.stack_trace ?? null,
      }),
      tx.now,
      task.id,
    );
  const backoffMs = Math.min(60, 2 ** Math.min(task.attempt_count, 6)) * 1000;
  const payload = { ...(parseJson<JsonObject>(task.payload) ?? {}), retry_of_task_id: task.id };
  const nextId = tx.createTask(run, "workflow", payload, {
    availableAt: tx.now + backoffMs,
    attemptCount: task.attempt_count,
  });
  tx.db.prepare("UPDATE workflow_runs SET status = 'waiting', updated_at = ? WHERE id = ?").run(tx.now, run.id);
  // The retry task is open, so held signals go into history for it without a task of their own.
  releaseHeldSignals(tx, run.id);
  return {
    task_id: task.id,
    workflow_task_attempt: task.attempt_count,
    outcome: "failed",
    recorded: true,
    reason: null,
    next_task_id: nextId,
  };
}
