/**
 * Completing a workflow task: the completion's commands applied in order in one transaction, in the
 * engine's order around them (the resuming signal, the satisfied condition wait, held signals, the
 * next signal's task). Terminal commands close the run; otherwise it parks as `waiting`.
 */
import { isoMicros } from "../clock";
import { newId } from "../ids";
import { scheduleActivity } from "./activities";
import { openConditionWait, satisfyConditionWaitOnSignalResume } from "./condition-waits";
import { finishCooperativeCancellation } from "./cooperative-cancellation";
import { cancelOpenWork, finishRun, insertFailure, WORKER_FAILURE_CLASS } from "./lifecycle";
import { continueAsNew, startChild } from "./linked-runs";
import type { FailureRow, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import { createNextSignalTask, recordAppliedSignal, releaseHeldSignals, SIGNAL_RESUME } from "./signal-delivery";
import type { JsonObject, Tx } from "./tx";
import { parseJson, taskSnapshot } from "./tx";
import { applyUpdateCommand, createNextUpdateTask } from "./updates";
import type { WorkflowTaskCommand } from "./workflow-task-commands";
import { TERMINAL_COMMANDS } from "./workflow-task-commands";
import { leasedWorkflowTask } from "./workflow-tasks";

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
    created.push(...applyCommand(tx, current, task, cmd));
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
    const nextUpdate = createNextUpdateTask(tx, run);
    if (nextUpdate) created.push(nextUpdate);
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

type Command<T extends WorkflowTaskCommand["type"]> = Extract<WorkflowTaskCommand, { type: T }>;

/** One command of a completion, applied to the run as the commands before it left it: the ids of the tasks it created. */
function applyCommand(tx: Tx, current: RunRow, task: TaskRow, cmd: WorkflowTaskCommand): string[] {
  switch (cmd.type) {
    case "schedule_activity":
      return [scheduleActivity(tx, current, task.id, cmd)];
    case "start_timer":
      return [scheduleTimer(tx, current, task.id, cmd.delay_seconds, {})];
    case "start_child_workflow":
      return startChild(tx, current, task.id, cmd);
    case "open_signal_wait":
      return openSignalWait(tx, current, task.id, cmd);
    case "open_condition_wait":
      return openConditionWait(tx, current, task.id, cmd);
    case "record_side_effect":
      recordSideEffect(tx, current, task.id, cmd);
      return [];
    case "upsert_search_attributes":
      upsertSearchAttributes(tx, current, task.id, cmd);
      return [];
    case "record_version_marker":
      recordVersionMarker(tx, current, task.id, cmd);
      return [];
    case "complete_workflow":
    case "fail_workflow":
      // A run asked to cancel closes cancelled however its cleanup ends (cooperative-cancellation.ts).
      if (current.cancellation_request_command_id) finishCooperativeCancellation(tx, current, task.id);
      else if (cmd.type === "complete_workflow") completeWorkflow(tx, current, task.id, cmd);
      else failWorkflow(tx, current, task, cmd);
      return [];
    case "continue_as_new":
      return continueAsNew(tx, current, task.id, cmd);
    case "complete_update":
    case "fail_update":
      applyUpdateCommand(tx, current, task, cmd);
      return [];
  }
}

function openSignalWait(tx: Tx, current: RunRow, taskId: string, cmd: Command<"open_signal_wait">): string[] {
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
    { taskId },
  );
  if (!cmd.timeout_seconds) return [];
  return [
    scheduleTimer(tx, current, taskId, cmd.timeout_seconds, {
      timer_kind: "signal_timeout",
      signal_wait_id: waitId,
      signal_name: cmd.signal_name,
    }),
  ];
}

function recordSideEffect(tx: Tx, current: RunRow, taskId: string, cmd: Command<"record_side_effect">): void {
  // As DefaultWorkflowTaskBridge::applyRecordSideEffect: the sequence and the result blob.
  const sequence = tx.nextCommandSequence(current.id);
  tx.appendEvent(
    current.id,
    "SideEffectRecorded",
    { sequence, result: typeof cmd.result === "string" ? cmd.result : cmd.result.blob },
    { taskId },
  );
}

function upsertSearchAttributes(
  tx: Tx,
  current: RunRow,
  taskId: string,
  cmd: Command<"upsert_search_attributes">,
): void {
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
    { taskId },
  );
}

function recordVersionMarker(tx: Tx, current: RunRow, taskId: string, cmd: Command<"record_version_marker">): void {
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
    { taskId },
  );
}

function completeWorkflow(tx: Tx, current: RunRow, taskId: string, cmd: Command<"complete_workflow">): void {
  cancelOpenWork(tx, current, { keepTaskId: taskId });
  tx.appendEvent(
    current.id,
    "WorkflowCompleted",
    { output: cmd.result?.blob ?? null, payload_codec: cmd.result?.codec ?? null },
    { taskId },
  );
  finishRun(tx, current.id, "completed", "completed", {
    codec: cmd.result?.codec ?? null,
    blob: cmd.result?.blob ?? null,
  });
}

function failWorkflow(tx: Tx, current: RunRow, task: TaskRow, cmd: Command<"fail_workflow">): void {
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
}
