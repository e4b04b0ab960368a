/**
 * Workflow updates (durable-workflow/workflow@8dc90d64). Accepting one writes an `update` command
 * and `UpdateAccepted`, and readies a workflow task carrying `workflow_update_id` unless one is open
 * (WorkflowStub.php `recordAcceptedUpdateWithArguments`). The worker replays, runs the handler and
 * completes that task with `complete_update` (`UpdateApplied` + `UpdateCompleted` with the result) or
 * `fail_update` (a failure row and `UpdateCompleted` with failure_id, category and `non_retryable`)
 * (DefaultWorkflowTaskBridge.php `applyCompleteUpdate`, `applyFailUpdate`). A refused update is a
 * rejected command with `UpdateRejected` on the run it named, closed runs included
 * (WorkflowStub.php `rejectUpdateCommand`). History is the update's only record here: no
 * `workflow_updates` table; its state is read back from its command's events ({@link updateState}).
 */
import { isoMicros } from "../clock";
import { decodeBlob } from "../codec/codec";
import { newId } from "../ids";
import type { CommandRequest } from "./command-rows";
import { commandSnapshot, findByRequestId, insertCommand } from "./command-rows";
import { EMPTY_ARGUMENTS, rejectionFor, target } from "./commands";
import { EngineError } from "./errors";
import { insertFailure, WORKER_FAILURE_CLASS } from "./lifecycle";
import type { CommandRow, RunRow, TaskRow } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { parseJson } from "./tx";
import type { WorkflowTaskCommand } from "./workflow-task-commands";

export const UPDATE_RESUME = "workflow_update";

export interface UpdateWorkflowInput {
  namespace: string;
  workflow_id: string;
  run_id?: string | null;
  update_name: string;
  input?: PayloadEnvelope | null;
  request_id?: string | null;
  request?: CommandRequest | null;
}

/** One update as its command row and its history events say it is now. */
export interface UpdateState {
  command: CommandRow;
  update_id: string | null;
  update_name: string | null;
  /** `UpdateStatus`: accepted | rejected | completed | failed. */
  update_status: "accepted" | "rejected" | "completed" | "failed";
  workflow_sequence: number | null;
  result_envelope: PayloadEnvelope | null;
  failure_id: string | null;
  failure_message: string | null;
  accepted_at: number | null;
  applied_at: number | null;
  rejected_at: number | null;
  closed_at: number | null;
}

type UpdateCommand = Extract<WorkflowTaskCommand, { type: "complete_update" | "fail_update" }>;

interface EventRow {
  event_type: string;
  payload: string | null;
  recorded_at: number;
}

/** The update's events, oldest first (they name its command: `workflow_command_id`); the run id keeps it on the run's index. */
function updateEvents(tx: Pick<Tx, "db">, command: CommandRow): EventRow[] {
  if (!command.workflow_run_id) return [];
  return tx.db
    .prepare(
      `SELECT event_type, payload, recorded_at FROM workflow_history_events
        WHERE workflow_run_id = ? AND workflow_command_id = ?
          AND event_type IN ('UpdateAccepted', 'UpdateRejected', 'UpdateApplied', 'UpdateCompleted')
        ORDER BY sequence`,
    )
    .all(command.workflow_run_id, command.id) as EventRow[];
}

export function updateState(tx: Pick<Tx, "db">, command: CommandRow): UpdateState {
  const events = updateEvents(tx, command);
  const payloadOf = (type: string): JsonObject | null => {
    const e = events.find((x) => x.event_type === type);
    return e ? (parseJson<JsonObject>(e.payload) ?? {}) : null;
  };
  const atOf = (type: string): number | null => events.find((x) => x.event_type === type)?.recorded_at ?? null;
  const opened = payloadOf("UpdateAccepted") ?? payloadOf("UpdateRejected");
  const completed = payloadOf("UpdateCompleted");
  const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const failed = completed !== null && typeof completed.failure_id === "string";
  const status =
    command.status === "rejected" ? "rejected" : completed === null ? "accepted" : failed ? "failed" : "completed";
  const blob = completed && !failed ? text(completed.result) : null;
  return {
    command,
    update_id: text(opened?.update_id),
    update_name: command.target_name,
    update_status: status,
    workflow_sequence: typeof completed?.sequence === "number" ? completed.sequence : null,
    result_envelope: blob === null ? null : { codec: command.payload_codec ?? "avro", blob },
    failure_id: failed ? text(completed.failure_id) : null,
    failure_message: failed ? text(completed.message) : null,
    accepted_at: command.accepted_at,
    applied_at: atOf("UpdateApplied") ?? (failed ? atOf("UpdateCompleted") : null),
    rejected_at: command.rejected_at,
    closed_at: command.rejected_at ?? atOf("UpdateCompleted"),
  };
}

/** `UpdateResult::result()`: the decoded value of the result envelope (null when it cannot be read). */
export function decodedResult(s: UpdateState): unknown {
  if (!s.result_envelope) return null;
  try {
    return decodeBlob(s.result_envelope.blob);
  } catch {
    return null;
  }
}

/** The update names the run's `WorkflowStarted` declared, or null when it declared none (no contract). */
function declaredUpdates(tx: Tx, runId: string): string[] | null {
  const row = tx.db
    .prepare(
      "SELECT json_extract(payload, '$.declared_updates') AS d FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'WorkflowStarted' ORDER BY sequence LIMIT 1",
    )
    .get(runId) as { d: string | null } | undefined;
  const list = parseJson<unknown>(row?.d ?? null);
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : null;
}

/**
 * A retry with the same `request_id` returns the first receipt; the same key with another name or
 * other arguments is refused (`request_id_conflict`, the reason sdk-python maps to UpdateFailed).
 */
function retained(tx: Tx, input: UpdateWorkflowInput, args: PayloadEnvelope): CommandRow | null {
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "update", input.request_id);
  if (!prior) return null;
  const conflict = [
    prior.target_name !== input.update_name ? "update_name" : null,
    (input.run_id ?? null) !== prior.requested_workflow_run_id ? "run_target" : null,
    prior.status !== "rejected" && prior.payload !== args.blob ? "arguments" : null,
  ].filter((x): x is string => x !== null);
  if (conflict.length === 0) return prior;
  // The retained-command fields sdk-python reads into UpdateFailed.details (errors.py@2.12.0).
  throw new EngineError(
    409,
    "request_id_conflict",
    "The update request id is already retained with a different intent.",
    {
      request_id: input.request_id ?? null,
      retained_command_id: prior.id,
      retained_command_type: "update",
      retained_outcome: prior.outcome,
      conflict,
    },
  );
}

/** Accepts or refuses one update; the command row it wrote (or the retained one for a repeated request id). */
export function acceptUpdate(tx: Tx, input: UpdateWorkflowInput): CommandRow {
  const t = target(tx, input.namespace, input.workflow_id, input.run_id);
  const codec = t.run?.payload_codec ?? "avro";
  const args = input.input ?? { ...EMPTY_ARGUMENTS, codec };
  const prior = retained(tx, input, args);
  if (prior) return prior;
  const base = {
    namespace: input.namespace,
    instanceId: input.workflow_id,
    run: t.run,
    requestedRunId: input.run_id ?? null,
    type: "update",
    targetName: input.update_name,
    requestId: input.request_id,
    request: input.request,
    payload: args,
  };
  const declared = t.run ? declaredUpdates(tx, t.run.id) : null;
  const refusal =
    rejectionFor(t) ??
    (declared !== null && !declared.includes(input.update_name)
      ? { outcome: "rejected_unknown_update", reason: "unknown_update" }
      : null);
  if (refusal) {
    const row = insertCommand(tx, {
      ...base,
      status: "rejected",
      outcome: refusal.outcome,
      rejectionReason: refusal.reason,
    });
    if (t.run) recordOpening(tx, t.run, row, "UpdateRejected", args);
    return row;
  }
  const run = t.run as RunRow;
  const row = insertCommand(tx, { ...base, status: "accepted", outcome: null });
  const updateId = recordOpening(tx, run, row, "UpdateAccepted", args);
  if (!hasOpenWorkflowTask(tx, run.id)) tx.createTask(run, "workflow", updateTaskPayload(row, updateId));
  tx.touch(run.id);
  return row;
}

function recordOpening(tx: Tx, run: RunRow, row: CommandRow, type: string, args: PayloadEnvelope): string {
  const updateId = newId(tx.now);
  const payload: JsonObject = {
    workflow_command_id: row.id,
    update_id: updateId,
    workflow_instance_id: run.workflow_instance_id,
    workflow_run_id: run.id,
    update_name: row.target_name,
    arguments: args.blob,
    payload_codec: args.codec,
  };
  // `UpdateCommandGate::blockingSignal`: this server applies signals in their own tasks, so no update waits behind one.
  if (type === "UpdateAccepted") payload.ordering_state = "ready";
  // `WorkflowHistoryEvent::record(..., $command)` snapshots the command onto the event (sender, reason).
  payload.command = commandSnapshot(row);
  tx.appendEvent(run.id, type, payload, { commandId: row.id });
  return updateId;
}

/** `WorkflowTaskPayload::forUpdate`: what the worker reads to run the handler instead of the workflow. */
function updateTaskPayload(row: CommandRow, updateId: string): JsonObject {
  return {
    resume_source_kind: UPDATE_RESUME,
    resume_source_id: updateId,
    workflow_update_id: updateId,
    workflow_command_id: row.id,
  };
}

function hasOpenWorkflowTask(tx: Tx, runId: string): boolean {
  return (
    tx.db
      .prepare(
        "SELECT 1 FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status IN ('ready', 'leased') LIMIT 1",
      )
      .get(runId) !== undefined
  );
}

/**
 * After a completion leaves the run open with no workflow task: a task for its oldest accepted,
 * unfinished update (one accepted during a lease waited for it). Null when there is none.
 */
export function createNextUpdateTask(tx: Tx, run: RunRow): string | null {
  if (hasOpenWorkflowTask(tx, run.id)) return null;
  const pending = tx.db
    .prepare(
      `SELECT c.* FROM workflow_commands c WHERE c.workflow_run_id = ? AND c.command_type = 'update' AND c.status = 'accepted' AND c.outcome IS NULL
        ORDER BY c.command_sequence LIMIT 1`,
    )
    .get(run.id) as CommandRow | undefined;
  if (!pending) return null;
  const updateId = updateState(tx, pending).update_id;
  return updateId ? tx.createTask(run, "workflow", updateTaskPayload(pending, updateId)) : null;
}

/** The accepted, unfinished update a completion names, or a 422 like the bridge's `invalid_commands`. */
function openUpdate(tx: Tx, run: RunRow, task: TaskRow, updateId: string): CommandRow {
  const row = tx.db
    .prepare(
      `SELECT c.* FROM workflow_commands c JOIN workflow_history_events e ON e.workflow_command_id = c.id
        WHERE e.workflow_run_id = ? AND e.event_type = 'UpdateAccepted' AND json_extract(e.payload, '$.update_id') = ?`,
    )
    .get(run.id, updateId) as CommandRow | undefined;
  const taskUpdate = (parseJson<JsonObject>(task.payload) ?? {}).workflow_update_id;
  if (!row || row.outcome !== null || (typeof taskUpdate === "string" && taskUpdate !== updateId)) {
    throw new EngineError(
      422,
      "invalid_commands",
      `Update [${updateId}] is not an open update of this workflow task.`,
      {
        update_id: updateId,
      },
    );
  }
  return row;
}

/** `FailureFactory::classifyFromExceptionStrings` for an update: timeouts and structural limits, else application. */
function updateFailureCategory(message: string): string {
  const m = message.toLowerCase();
  if (m.startsWith("structural limit exceeded:")) return "structural_limit";
  if (m.includes("timed out") || m.includes("timeout exceeded")) return "timeout";
  return "application";
}

/** `complete_update` / `fail_update` of a completion (DefaultWorkflowTaskBridge.php@8dc90d64). */
export function applyUpdateCommand(tx: Tx, run: RunRow, task: TaskRow, cmd: UpdateCommand): void {
  const row = openUpdate(tx, run, task, cmd.update_id);
  // The update binds to the step the workflow is waiting at; it is not a step of its own (sdk-python
  // 2.12.0 replay_conformance.py "wait-condition": UpdateApplied carries the open wait's sequence).
  const sequence = run.last_command_sequence;
  const ids: JsonObject = {
    workflow_command_id: row.id,
    update_id: cmd.update_id,
    workflow_instance_id: run.workflow_instance_id,
    workflow_run_id: run.id,
    update_name: row.target_name,
    // DefaultWorkflowTaskBridge records both events with the command (WorkflowHistoryEvent `commandSnapshot`).
    command: commandSnapshot(row),
  };
  const links = { taskId: task.id, commandId: row.id };
  if (cmd.type === "complete_update") {
    const args = { arguments: row.payload, payload_codec: row.payload_codec };
    tx.appendEvent(run.id, "UpdateApplied", { ...ids, ...args, sequence }, links);
    const result = typeof cmd.result === "string" ? cmd.result : (cmd.result?.blob ?? null);
    tx.appendEvent(run.id, "UpdateCompleted", { ...ids, sequence, result }, links);
    setOutcome(tx, row.id, "update_completed");
    return;
  }
  const exceptionClass = cmd.exception_class ?? WORKER_FAILURE_CLASS;
  const category = updateFailureCategory(cmd.message);
  const nonRetryable = cmd.non_retryable ?? false;
  const failureId = insertFailure(tx, {
    runId: run.id,
    sourceKind: "workflow_command",
    sourceId: row.id,
    propagationKind: "update",
    failureCategory: category,
    nonRetryable,
    exceptionClass,
    exceptionType: cmd.exception_type ?? null,
    message: cmd.message,
    tracePreview: "",
    line: 0,
  });
  const exception = {
    class: exceptionClass,
    type: cmd.exception_type ?? null,
    message: cmd.message,
    code: 0,
    file: "",
    line: 0,
    trace: [],
    properties: [],
  };
  tx.appendEvent(
    run.id,
    "UpdateCompleted",
    {
      ...ids,
      sequence,
      failure_id: failureId,
      failure_category: category,
      non_retryable: nonRetryable,
      exception_type: cmd.exception_type ?? null,
      exception_class: exceptionClass,
      message: cmd.message,
      code: 0,
      exception,
    },
    links,
  );
  setOutcome(tx, row.id, "update_failed");
}

function setOutcome(tx: Tx, commandId: string, outcome: string): void {
  tx.db
    .prepare("UPDATE workflow_commands SET outcome = ?, applied_at = ?, updated_at = ? WHERE id = ?")
    .run(outcome, tx.now, tx.now, commandId);
}

/** The control-plane fields of `CommandResponse::payload` for an `UpdateResult` (workflow@8dc90d64). */
export function updateFields(s: UpdateState): JsonObject {
  return {
    update_id: s.update_id,
    update_status: s.update_status,
    update_name: s.update_name,
    workflow_sequence: s.workflow_sequence,
    result: decodedResult(s),
    result_envelope: s.result_envelope,
    failure_id: s.failure_id,
    failure_message: s.failure_message,
    accepted_at: isoMicros(s.accepted_at),
    applied_at: isoMicros(s.applied_at),
    rejected_at: isoMicros(s.rejected_at),
    closed_at: isoMicros(s.closed_at),
  };
}
