import { isoMicros } from "../clock";
import { newId } from "../ids";
import { scheduleActivity } from "./activities";
import { openConditionWait, satisfyConditionWaitOnSignalResume } from "./condition-waits";
import { EngineError } from "./errors";
import type { HistoryEventView } from "./history";
import type { HistoryPage } from "./history";
import { readHistoryPage } from "./history";
import { historyCacheOf } from "./history-cache";
import { continueAsNew, startChild } from "./linked-runs";
import { cancelOpenWork, EXCEPTION_CLASSES, finishRun, insertFailure, WORKER_FAILURE_CLASS } from "./lifecycle";
import type { FailureRow, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import { createNextSignalTask, recordAppliedSignal, releaseHeldSignals, SIGNAL_RESUME } from "./signal-delivery";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, envelope, parseJson, taskSnapshot } from "./tx";
import type { WorkflowTaskCommand } from "./workflow-task-commands";
import { TERMINAL_COMMANDS } from "./workflow-task-commands";

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
  };
}

function scheduleTimer(tx: Tx, run: RunRow, taskId: string, delaySeconds: number, extra: JsonObject): string {
  const sequence = tx.nextCommandSequence(run.id);
  const id = newId(tx.now);
  const fireAt = tx.now + delaySeconds * 1000;
  tx.db
    .prepare(
      "INSERT INTO workflow_run_timers (id, workflow_run_id, sequence, status, delay_seconds, fire_at, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
    )
    .run(id, run.id, sequence, delaySeconds, fireAt, tx.now, tx.now);
  tx.appendEvent(
    run.id,
    "TimerScheduled",
    { timer_id: id, sequence, delay_seconds: delaySeconds, fire_at: isoMicros(fireAt), timer_kind: "timer", ...extra },
    { taskId },
  );
  return tx.createTask(run, "timer", { timer_id: id }, { availableAt: fireAt });
}

/** Failure category of a workflow failure, refined from the message the way FailureFactory::classify does for `terminal`. */
function classifyTerminal(message: string): string {
  const m = message.toLowerCase();
  if (m.startsWith("structural limit exceeded:")) return "structural_limit";
  if (
    m.includes("timed out") ||
    m.includes("timeout exceeded") ||
    m.includes("execution deadline") ||
    m.includes("run deadline")
  )
    return "timeout";
  return "application";
}

/**
 * A workflow that saw a failure event and went on without failing caught it: the failure row is
 * marked handled and FailureHandled is recorded (v2-model §8.3 step 6).
 */
function recordHandledFailures(tx: Tx, run: RunRow, task: TaskRow): void {
  const seen = (parseJson<JsonObject>(task.payload) ?? {}).claimed_history_sequence;
  if (typeof seen !== "number") return;
  const failures = tx.db
    .prepare(
      `SELECT f.* FROM workflow_failures f WHERE f.workflow_run_id = ? AND f.handled = 0 AND f.source_kind IN ('activity_execution', 'child_workflow_run')
         AND EXISTS (SELECT 1 FROM workflow_history_events e WHERE e.workflow_run_id = f.workflow_run_id AND e.sequence <= ?
                       AND e.event_type IN ('ActivityFailed', 'ActivityTimedOut', 'ChildRunFailed', 'ChildRunCancelled', 'ChildRunTerminated')
                       AND json_extract(e.payload, '$.failure_id') = f.id)
       ORDER BY f.created_at, f.id`,
    )
    .all(run.id, seen) as FailureRow[];
  for (const f of failures) {
    tx.db.prepare("UPDATE workflow_failures SET handled = 1, updated_at = ? WHERE id = ?").run(tx.now, f.id);
    const source =
      f.source_kind === "activity_execution"
        ? (tx.db.prepare("SELECT sequence FROM activity_executions WHERE id = ?").get(f.source_id) as
            { sequence: number } | undefined)
        : (tx.db
            .prepare(
              "SELECT sequence FROM workflow_child_calls WHERE parent_workflow_run_id = ? AND child_workflow_run_id = ?",
            )
            .get(run.id, f.source_id) as { sequence: number } | undefined);
    tx.appendEvent(
      run.id,
      "FailureHandled",
      {
        failure_id: f.id,
        sequence: source?.sequence ?? null,
        failure_category: f.failure_category,
        source_kind: f.source_kind,
        source_id: f.source_id,
        propagation_kind: f.propagation_kind,
        exception_class: f.exception_class,
        exception_type: f.exception_type,
        message: f.message,
        handled: true,
      },
      { taskId: task.id },
    );
  }
}

/** The signal a workflow task was created for (`workflowSignalIdForTask`, DefaultWorkflowTaskBridge.php@8dc90d64). */
function resumedSignalId(task: TaskRow): string | null {
  const resume = parseJson<JsonObject>(task.payload) ?? {};
  if (resume.resume_source_kind !== SIGNAL_RESUME) return null;
  const id = resume.workflow_signal_id ?? resume.resume_source_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * Applies a completion's commands in order (one transaction). Terminal commands close the run;
 * otherwise the run parks as `waiting` until a resume task is created by an outcome.
 */
export function completeWorkflowTask(
  tx: Tx,
  taskId: string,
  leaseOwner: string | undefined,
  attempt: number | undefined,
  commands: WorkflowTaskCommand[],
): JsonObject {
  const { task, run } = leasedWorkflowTask(tx, taskId, leaseOwner, attempt);
  if (!commands.some((c) => c.type === "fail_workflow")) recordHandledFailures(tx, run, task);
  // The engine's completion order (DefaultWorkflowTaskBridge.php@8dc90d64 `complete`): the
  // resuming signal's SignalApplied, the satisfied condition wait, then the commands.
  recordAppliedSignal(tx, run, task);
  satisfyConditionWaitOnSignalResume(tx, run, task);
  const created: string[] = [];
  for (const cmd of commands) {
    // Signals held during this lease follow the task's own events, before a terminal one
    // (signal-delivery.ts, "How a signal reaches history").
    if (TERMINAL_COMMANDS.has(cmd.type)) releaseHeldSignals(tx, run.id);
    const current = tx.mustRun(run.id);
    switch (cmd.type) {
      case "schedule_activity":
        created.push(scheduleActivity(tx, current, task.id, cmd));
        break;
      case "start_timer":
        created.push(scheduleTimer(tx, current, task.id, cmd.delay_seconds, {}));
        break;
      case "start_child_workflow":
        created.push(...startChild(tx, current, task.id, cmd));
        break;
      case "open_signal_wait": {
        const sequence = tx.nextCommandSequence(current.id);
        const waitId = newId(tx.now);
        tx.appendEvent(
          current.id,
          "SignalWaitOpened",
          {
            signal_name: cmd.signal_name,
            signal_wait_id: waitId,
            sequence,
            timeout_seconds: cmd.timeout_seconds ?? null,
          },
          { taskId: task.id },
        );
        if (cmd.timeout_seconds)
          created.push(
            scheduleTimer(tx, current, task.id, cmd.timeout_seconds, {
              timer_kind: "signal_timeout",
              signal_wait_id: waitId,
              signal_name: cmd.signal_name,
            }),
          );
        break;
      }
      case "open_condition_wait":
        created.push(...openConditionWait(tx, current, task.id, cmd));
        break;
      case "record_side_effect": {
        // As DefaultWorkflowTaskBridge::applyRecordSideEffect: the sequence and the result blob.
        const sequence = tx.nextCommandSequence(current.id);
        tx.appendEvent(
          current.id,
          "SideEffectRecorded",
          { sequence, result: typeof cmd.result === "string" ? cmd.result : cmd.result.blob },
          { taskId: task.id },
        );
        break;
      }
      case "upsert_search_attributes": {
        // As DefaultWorkflowTaskBridge::applyUpsertSearchAttributes: null deletes, keys sorted,
        // the event carries what was sent and the merged result.
        const sequence = tx.nextCommandSequence(current.id);
        const merged: Record<string, unknown> = {
          ...(parseJson<Record<string, unknown>>(current.search_attributes) ?? {}),
        };
        for (const [key, value] of Object.entries(cmd.attributes)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        const sorted = Object.fromEntries(
          Object.keys(merged)
            .sort()
            .map((k) => [k, merged[k]]),
        );
        tx.db
          .prepare("UPDATE workflow_runs SET search_attributes = ?, updated_at = ? WHERE id = ?")
          .run(Object.keys(sorted).length > 0 ? JSON.stringify(sorted) : null, tx.now, current.id);
        tx.appendEvent(
          current.id,
          "SearchAttributesUpserted",
          { sequence, attributes: cmd.attributes, merged: sorted },
          { taskId: task.id },
        );
        break;
      }
      case "record_version_marker": {
        const sequence = tx.nextCommandSequence(current.id);
        tx.appendEvent(
          current.id,
          "VersionMarkerRecorded",
          {
            sequence,
            change_id: cmd.change_id,
            version: cmd.version,
            min_supported: cmd.min_supported,
            max_supported: cmd.max_supported,
          },
          { taskId: task.id },
        );
        break;
      }
      case "complete_workflow":
        cancelOpenWork(tx, current, { keepTaskId: task.id });
        tx.appendEvent(
          current.id,
          "WorkflowCompleted",
          { output: cmd.result?.blob ?? null, payload_codec: cmd.result?.codec ?? null },
          { taskId: task.id },
        );
        finishRun(tx, current.id, "completed", "completed", {
          codec: cmd.result?.codec ?? null,
          blob: cmd.result?.blob ?? null,
        });
        break;
      case "fail_workflow": {
        cancelOpenWork(tx, current, { keepTaskId: task.id });
        const category = classifyTerminal(cmd.message);
        // Structured members win over the flat fields, as DefaultWorkflowTaskBridge::applyWorkflowFailure
        // does (src/V2/Support/DefaultWorkflowTaskBridge.php@8dc90d64).
        const structured = cmd.exception ?? {};
        const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
        const exceptionClass = text(structured.class) ?? text(cmd.exception_class) ?? WORKER_FAILURE_CLASS;
        const exceptionType = text(structured.type) ?? cmd.exception_type ?? null;
        const nonRetryable = cmd.non_retryable ?? false;
        const failureId = insertFailure(tx, {
          runId: current.id,
          sourceKind: "workflow_run",
          sourceId: current.id,
          propagationKind: "terminal",
          failureCategory: category,
          nonRetryable,
          exceptionClass,
          exceptionType,
          message: cmd.message,
          // The bridge's failure row: file '', line 0, trace_preview '' (applyWorkflowFailure@8dc90d64).
          tracePreview: "",
          line: 0,
        });
        tx.appendEvent(
          current.id,
          "WorkflowFailed",
          {
            failure_id: failureId,
            source_kind: "workflow_run",
            source_id: current.id,
            failure_category: category,
            non_retryable: nonRetryable,
            exception_type: exceptionType,
            exception_class: exceptionClass,
            message: cmd.message,
            // `array_replace([...defaults], $structuredException)` (applyWorkflowFailure@8dc90d64).
            exception: {
              class: exceptionClass,
              type: exceptionType,
              message: text(structured.message) ?? cmd.message,
              code: 0,
              file: "",
              line: 0,
              trace: [],
              properties: [],
              ...structured,
            },
            // Recorded with the (still leased) workflow task, whose snapshot `WorkflowHistoryEvent::record` adds.
            task: taskSnapshot(task),
          },
          { taskId: task.id },
        );
        finishRun(tx, current.id, "failed", "failed");
        break;
      }
      case "continue_as_new":
        created.push(...continueAsNew(tx, current, task.id, cmd));
        break;
    }
  }
  let runStatus = tx.mustRun(run.id).status;
  if (!isTerminal(runStatus)) releaseHeldSignals(tx, run.id);
  tx.db
    .prepare("UPDATE workflow_tasks SET status = 'completed', lease_expires_at = NULL, updated_at = ? WHERE id = ?")
    .run(tx.now, task.id);
  if (!isTerminal(runStatus)) {
    tx.db.prepare("UPDATE workflow_runs SET status = 'waiting', updated_at = ? WHERE id = ?").run(tx.now, run.id);
    runStatus = "waiting";
    const next = createNextSignalTask(tx, run, resumedSignalId(task));
    if (next) created.push(next);
  }
  tx.touch(run.id);
  return {
    task_id: task.id,
    workflow_task_attempt: task.attempt_count,
    outcome: "completed",
    recorded: true,
    run_id: run.id,
    run_status: runStatus,
    created_task_ids: created,
    reason: null,
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
