import { decodeBlob, encodeBlob } from "../codec/codec";
import { newId } from "../ids";
import {
  declaredContractPayload,
  runCommandContract,
  signalAdmission,
  signalArgumentErrors,
  SOURCE_DURABLE_HISTORY,
} from "./command-contract";
import type { CommandRequest, CommandResult } from "./command-rows";
import { commandSnapshot, findByRequestId, insertCommand, resultFromRow } from "./command-rows";
import { EngineError } from "./errors";
import { cancelOpenWork, EXCEPTION_CLASSES, finishRun, insertFailure } from "./lifecycle";
import type { InstanceRow, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";
import type { Memo } from "./run-start";
import { createInstance, startRun } from "./run-start";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, dropNulls, parseJson } from "./tx";

export interface StartWorkflowInput {
  namespace: string;
  workflow_id?: string;
  workflow_type: string;
  task_queue: string;
  input?: PayloadEnvelope | null;
  business_key?: string | null;
  /** A map or a list: the real start endpoint validates memo only as `array` (WorkflowController@11d35b7). */
  memo?: Memo | null;
  search_attributes?: Record<string, unknown> | null;
  execution_timeout_seconds?: number | null;
  run_timeout_seconds?: number | null;
  /** `fail` (default) rejects any existing instance; `use-existing` returns its active run. */
  duplicate_policy?: "fail" | "use-existing";
  request_id?: string | null;
  request?: CommandRequest | null;
}

export interface SignalWorkflowInput {
  namespace: string;
  workflow_id: string;
  run_id?: string | null;
  signal_name: string;
  input?: PayloadEnvelope | null;
  request_id?: string | null;
  request?: CommandRequest | null;
}

export interface CloseWorkflowInput {
  namespace: string;
  workflow_id: string;
  run_id?: string | null;
  reason?: string | null;
  request_id?: string | null;
  request?: CommandRequest | null;
}

function requireNamespace(tx: Tx, namespace: string): void {
  const ns = tx.db.prepare("SELECT name FROM namespaces WHERE name = ?").get(namespace);
  if (!ns) {
    throw new EngineError(404, "namespace_not_found", `Namespace [${namespace}] was not found.`, {
      namespace,
      remediation:
        "Register the namespace via POST /api/namespaces, or send an X-Namespace header naming an existing namespace.",
    });
  }
}

/**
 * start: creates instance + run (`pending`), a `start` command (`started_new`), `StartAccepted` and
 * `WorkflowStarted`, and the first workflow task. An existing instance answers `returned_existing_active`
 * (policy `use-existing`, active run) or a rejected command `rejected_duplicate`.
 */
export function startWorkflow(tx: Tx, input: StartWorkflowInput): CommandResult {
  requireNamespace(tx, input.namespace);
  const workflowId = input.workflow_id ?? newId(tx.now).toLowerCase();
  const prior = findByRequestId(tx, input.namespace, input.workflow_id ?? null, "start", input.request_id);
  if (prior) return resultFromRow(tx, prior);
  const existing = tx.instance(input.namespace, workflowId);
  if (existing) {
    const current = existing.current_run_id ? tx.run(existing.current_run_id) : undefined;
    if (input.duplicate_policy === "use-existing" && current && !isTerminal(current.status)) {
      return resultFromRow(
        tx,
        insertCommand(tx, {
          namespace: input.namespace,
          instanceId: workflowId,
          run: current,
          requestedRunId: null,
          type: "start",
          requestId: input.request_id,
          request: input.request,
          status: "accepted",
          outcome: "returned_existing_active",
        }),
      );
    }
    return resultFromRow(
      tx,
      insertCommand(tx, {
        namespace: input.namespace,
        instanceId: workflowId,
        run: current ?? null,
        requestedRunId: null,
        type: "start",
        requestId: input.request_id,
        request: input.request,
        status: "rejected",
        outcome: "rejected_duplicate",
        rejectionReason: "instance_already_started",
      }),
    );
  }
  const instance = createInstance(
    tx,
    input.namespace,
    workflowId,
    input.workflow_type,
    input.business_key ?? null,
    input.memo ?? null,
    input.execution_timeout_seconds ?? null,
  );
  const commandId = newId(tx.now);
  const run = startRun(tx, {
    instance,
    workflowType: input.workflow_type,
    queue: input.task_queue,
    input: input.input ?? null,
    businessKey: input.business_key ?? null,
    memo: input.memo ?? null,
    searchAttributes: input.search_attributes ?? null,
    executionDeadlineAt: input.execution_timeout_seconds ? tx.now + input.execution_timeout_seconds * 1000 : null,
    runTimeoutSeconds: input.run_timeout_seconds ?? null,
    commandId,
    startAccepted: true,
    declaredContract: declaredContractPayload(
      tx,
      input.namespace,
      input.task_queue,
      input.workflow_type,
      WORKER_STALE_AFTER_MS,
    ),
  });
  const row = insertCommand(tx, {
    namespace: input.namespace,
    instanceId: workflowId,
    run,
    requestedRunId: null,
    type: "start",
    requestId: input.request_id,
    request: input.request,
    status: "accepted",
    outcome: "started_new",
    payload: input.input ?? null,
  });
  // The start events were written before the command row existed; point them at it, and give them the
  // command snapshot `WorkflowHistoryEvent::record(..., $command)` adds (WorkflowHistoryEvent.php@8dc90d64).
  tx.db
    .prepare(
      "UPDATE workflow_history_events SET workflow_command_id = ?, payload = json_set(payload, '$.workflow_command_id', ?, '$.command', json(?)) WHERE workflow_run_id = ? AND workflow_command_id = ?",
    )
    .run(row.id, row.id, JSON.stringify(commandSnapshot(row)), run.id, commandId);
  return resultFromRow(tx, row);
}

/** Workers that have not heartbeated for this long are stale (`StandaloneWorkerVisibility`, as read/fleet.ts). */
const WORKER_STALE_AFTER_MS = 60_000;

/** Resolves the targeted run: 404 for an unknown instance, otherwise the current run and, when a run id was named, whether it is current. */
function target(
  tx: Tx,
  namespace: string,
  workflowId: string,
  runId: string | null | undefined,
): { instance: InstanceRow; run: RunRow | null; notCurrent: boolean } {
  requireNamespace(tx, namespace);
  const instance = tx.instance(namespace, workflowId);
  if (!instance) throw new EngineError(404, "instance_not_found", "Workflow not found.", { workflow_id: workflowId });
  const run = instance.current_run_id ? (tx.run(instance.current_run_id) ?? null) : null;
  return { instance, run, notCurrent: Boolean(runId) && run?.id !== runId };
}

function rejectionFor(t: { run: RunRow | null; notCurrent: boolean }): { outcome: string; reason: string } | null {
  if (!t.run) return { outcome: "rejected_not_started", reason: "instance_not_started" };
  if (t.notCurrent) return { outcome: "rejected_not_current", reason: "selected_run_not_current" };
  if (isTerminal(t.run.status)) return { outcome: "rejected_not_active", reason: "run_not_active" };
  return null;
}

/**
 * A signal sent without arguments carries the codec's encoding of the empty argument list, as the
 * engine serialises `[]` with the run's codec (durable-workflow/workflow src/V2/WorkflowStub.php@8dc90d64,
 * `$payloadBlob ?? Serializer::serializeWithCodec($signalCodec, $arguments)`). A null codec in
 * history is refused by sdk-python's replay ("workflow payload codec missing is not supported").
 * Avro single-object `Value` of `[]`; commands.test.ts checks it against the codec.
 */
export const EMPTY_ARGUMENTS: PayloadEnvelope = { codec: "avro", blob: "wwHioz3/VYAiNwwA" };

/**
 * signal: on an active current run writes a `signal` command (`signal_received`), a
 * `workflow_signal_records` row and — unless a workflow task is leased, which holds it —
 * `SignalReceived` and a workflow task so the workflow sees it (the rule: below).
 */
export function signalWorkflow(tx: Tx, input: SignalWorkflowInput): CommandResult {
  const t = target(tx, input.namespace, input.workflow_id, input.run_id);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "signal", input.request_id);
  if (prior) return resultFromRow(tx, prior);
  const rejection = rejectionFor(t);
  const base = {
    namespace: input.namespace,
    instanceId: input.workflow_id,
    run: t.run,
    requestedRunId: input.run_id ?? null,
    type: "signal",
    targetName: input.signal_name,
    requestId: input.request_id,
    request: input.request,
  };
  if (rejection || !t.run) {
    return resultFromRow(
      tx,
      insertCommand(tx, {
        ...base,
        status: "rejected",
        outcome: rejection?.outcome ?? "rejected_not_started",
        rejectionReason: rejection?.reason ?? "instance_not_started",
      }),
    );
  }
  // Admission against the run's durable command contract (WorkflowStub.php@8dc90d6 attemptSignalWithArguments).
  const contract = runCommandContract(tx, t.run.id);
  const admission = signalAdmission(contract, input.signal_name, t.run.workflow_type);
  if (!admission.allowed) {
    const row = insertCommand(tx, {
      ...base,
      status: "rejected",
      outcome: "rejected_unknown_signal",
      rejectionReason: "unknown_signal",
    });
    return { ...resultFromRow(tx, row), message: admission.message ?? undefined, ...admission.diagnostics };
  }
  const validationErrors = signalArgumentErrors(contract, input.signal_name, input.input ?? null);
  if (Object.keys(validationErrors).length > 0) {
    const row = insertCommand(tx, {
      ...base,
      status: "rejected",
      outcome: "rejected_invalid_arguments",
      rejectionReason: "invalid_signal_arguments",
    });
    return { ...resultFromRow(tx, row), validation_errors: validationErrors, ...admission.diagnostics };
  }
  tx.db
    .prepare(
      "UPDATE workflow_instances SET last_message_sequence = last_message_sequence + 1, updated_at = ? WHERE namespace = ? AND id = ?",
    )
    .run(tx.now, input.namespace, input.workflow_id);
  const messageSequence = (tx.instance(input.namespace, input.workflow_id) as InstanceRow).last_message_sequence;
  const args = input.input ?? EMPTY_ARGUMENTS;
  const row = insertCommand(tx, {
    ...base,
    status: "accepted",
    outcome: "signal_received",
    payload: args,
    messageSequence,
  });
  const signalId = newId(tx.now);
  // The signal rule (see {@link holdsSignals}): while a workflow task is leased the signal is held.
  const held = holdsSignals(tx, t.run.id);
  if (!held) releaseHeldSignals(tx, t.run.id);
  tx.db
    .prepare(
      `INSERT INTO workflow_signal_records (id, workflow_run_id, workflow_command_id, signal_name, status, payload_codec, arguments, message_sequence, received_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      signalId,
      t.run.id,
      row.id,
      input.signal_name,
      held ? HELD : "received",
      args.codec,
      args.blob,
      messageSequence,
      tx.now,
      tx.now,
      tx.now,
    );
  if (!held) recordSignalReceived(tx, t.run, signalId);
  return resultFromRow(tx, row);
}

/*
 * How a signal reaches history. The real engine (durable-workflow/workflow@8dc90d64):
 * - accepting a signal writes `SignalReceived` and, only when the run has no ready or leased
 *   workflow task, a task for it (src/V2/WorkflowStub.php `attemptSignalWithArguments`,
 *   `PendingMessageTask::createForRun`; task payload `WorkflowTaskPayload::forSignal`);
 * - claiming a task writes nothing;
 * - completing a task that signal resumed writes one `SignalApplied` for that signal, then
 *   `ConditionWaitSatisfied` for the open condition wait, then the commands; a run left waiting
 *   gets a task for the next received signal after that one (src/V2/Support/
 *   DefaultWorkflowTaskBridge.php `complete`, `recordAppliedSignalForSignalResume`,
 *   `recordSatisfiedConditionWaitForSignalResume`, `markRunWaiting`).
 * One deviation, because sdk-python 2.12.0 cannot replay the engine's history otherwise: a signal
 * accepted while a workflow task of the run is leased is held, and its `SignalReceived` is written
 * when that lease ends — after the completion's non-terminal events, before a terminal one
 * (workflow-tasks.ts). The engine writes it at once, before the completion's
 * `ConditionWaitSatisfied`; the SDK's replay then applies it at the wait the worker reopened
 * without it (workflow.py `_receiver_condition_wait_bindings`), completes one wait early and
 * drifts — and the worker that claims the next task fails the same way (issue 39,
 * docs/contract.md "Signals").
 */

/** `workflow_signal_records.status` of a signal accepted during a lease whose `SignalReceived` is not written yet. */
const HELD = "pending";

interface SignalRecord {
  id: string;
  workflow_command_id: string | null;
  signal_name: string;
  status: string;
  payload_codec: string | null;
  arguments: string | null;
  message_sequence: number | null;
}

function signalRecord(tx: Tx, signalId: string): SignalRecord {
  return tx.db.prepare("SELECT * FROM workflow_signal_records WHERE id = ?").get(signalId) as SignalRecord;
}

/** Whether a signal accepted now is held: a workflow task of the run is leased (its worker will not see it). */
function holdsSignals(tx: Tx, runId: string): boolean {
  return (
    tx.db
      .prepare(
        "SELECT 1 FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status = 'leased' LIMIT 1",
      )
      .get(runId) !== undefined
  );
}

/** `hasOpenWorkflowTask` of the engine: a ready or leased workflow task. */
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
 * The wait a signal is received for: the run's open `SignalWaitOpened` of that name that no signal
 * has claimed yet, else the buffered id `signal-command:<command id>` (WorkflowStub.php@8dc90d64
 * `signalWaitIdForAcceptedCommand`, SignalWaits.php `bufferedWaitIdForCommandId`).
 */
function signalWaitIdFor(tx: Tx, runId: string, s: SignalRecord): string | null {
  const open = tx.db
    .prepare(
      `SELECT json_extract(o.payload, '$.signal_wait_id') AS id FROM workflow_history_events o
        WHERE o.workflow_run_id = ? AND o.event_type = 'SignalWaitOpened' AND json_extract(o.payload, '$.signal_name') = ?
          AND NOT EXISTS (SELECT 1 FROM workflow_history_events r WHERE r.workflow_run_id = o.workflow_run_id
                            AND r.event_type IN ('SignalReceived', 'SignalApplied', 'TimerFired')
                            AND json_extract(r.payload, '$.signal_wait_id') = json_extract(o.payload, '$.signal_wait_id'))
        ORDER BY o.sequence LIMIT 1`,
    )
    .get(runId, s.signal_name) as { id: string | null } | undefined;
  if (open?.id) return open.id;
  return s.workflow_command_id ? `signal-command:${s.workflow_command_id}` : null;
}

/** `WorkflowTaskPayload::forSignal` (src/V2/Support/WorkflowTaskPayload.php@8dc90d64). */
function signalTaskPayload(s: SignalRecord, signalWaitId: string | null): JsonObject {
  return {
    workflow_wait_kind: "signal",
    open_wait_id: `signal-application:${s.id}`,
    resume_source_kind: SIGNAL_RESUME,
    resume_source_id: s.id,
    workflow_signal_id: s.id,
    signal_name: s.signal_name,
    signal_wait_id: signalWaitId,
    workflow_command_id: s.workflow_command_id,
  };
}

/** The `resume_source_kind` of a workflow task a signal created. */
export const SIGNAL_RESUME = "workflow_signal";

/** `SignalReceived` for a signal record, and a task for it when the run has no open workflow task. */
function recordSignalReceived(tx: Tx, run: RunRow, signalId: string): void {
  const s = signalRecord(tx, signalId);
  const waitId = signalWaitIdFor(tx, run.id, s);
  tx.db
    .prepare("UPDATE workflow_signal_records SET status = 'received', updated_at = ? WHERE id = ?")
    .run(tx.now, signalId);
  tx.appendEvent(
    run.id,
    "SignalReceived",
    {
      workflow_command_id: s.workflow_command_id,
      signal_id: signalId,
      workflow_instance_id: run.workflow_instance_id,
      workflow_run_id: run.id,
      signal_name: s.signal_name,
      signal_wait_id: waitId,
      arguments: s.arguments,
      payload_codec: s.payload_codec,
    },
    { commandId: s.workflow_command_id },
  );
  if (!hasOpenWorkflowTask(tx, run.id)) tx.createTask(run, "workflow", signalTaskPayload(s, waitId));
}

/** The end of a lease (completion, failure, expiry) or of the run: every held signal's `SignalReceived`, in order. */
export function releaseHeldSignals(tx: Tx, runId: string): void {
  const held = tx.db
    .prepare(
      "SELECT id FROM workflow_signal_records WHERE workflow_run_id = ? AND status = ? ORDER BY message_sequence, received_at, id",
    )
    .all(runId, HELD) as { id: string }[];
  if (held.length === 0) return;
  const run = tx.mustRun(runId);
  for (const signal of held) recordSignalReceived(tx, run, signal.id);
}

/**
 * After a completion leaves the run waiting: a task for the first received signal after the one
 * the completed task was for (`PendingMessageTask::createForRun` with the attempted signal,
 * PendingMessageTask.php@8dc90d64 `nextEligibleSignal`), unless a workflow task is open. The
 * engine also skips signals no open wait or declared handler can use; this server gives every
 * received signal its task, as it does when the signal is accepted.
 */
export function createNextSignalTask(tx: Tx, run: RunRow, attemptedSignalId: string | null): string | null {
  if (hasOpenWorkflowTask(tx, run.id)) return null;
  const attempted = attemptedSignalId
    ? (tx.db
        .prepare("SELECT message_sequence, received_at, id FROM workflow_signal_records WHERE id = ?")
        .get(attemptedSignalId) as { message_sequence: number | null; received_at: number; id: string } | undefined)
    : undefined;
  const next = (
    attempted
      ? tx.db
          .prepare(
            `SELECT * FROM workflow_signal_records WHERE workflow_run_id = ? AND status = 'received'
               AND (COALESCE(message_sequence, 0), received_at, id) > (COALESCE(?, 0), ?, ?)
             ORDER BY message_sequence, received_at, id LIMIT 1`,
          )
          .get(run.id, attempted.message_sequence, attempted.received_at, attempted.id)
      : tx.db
          .prepare(
            "SELECT * FROM workflow_signal_records WHERE workflow_run_id = ? AND status = 'received' ORDER BY message_sequence, received_at, id LIMIT 1",
          )
          .get(run.id)
  ) as SignalRecord | undefined;
  if (!next) return null;
  const received = tx.db
    .prepare(
      "SELECT json_extract(payload, '$.signal_wait_id') AS id FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'SignalReceived' AND json_extract(payload, '$.signal_id') = ?",
    )
    .get(run.id, next.id) as { id: string | null } | undefined;
  return tx.createTask(run, "workflow", signalTaskPayload(next, received?.id ?? null));
}

/**
 * Completing a task its signal resumed: one `SignalApplied` for that signal, when its wait has a
 * sequence (a signal wait) or the run's durable contract declares it — the engine's rule for a
 * workflow it cannot load, which is every workflow here (DefaultWorkflowTaskBridge.php@8dc90d64
 * `recordAppliedSignalForSignalResume`, `canApplyUnprojectedExternalSignal`). Other signals the
 * worker saw stay received; each gets its own task in turn ({@link createNextSignalTask}).
 */
export function recordAppliedSignal(tx: Tx, run: RunRow, task: TaskRow): void {
  const resume = parseJson<JsonObject>(task.payload) ?? {};
  const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
  const signalId = text(resume.workflow_signal_id) ?? text(resume.resume_source_id);
  const name = text(resume.signal_name);
  if (resume.resume_source_kind !== SIGNAL_RESUME || !signalId || !name) return;
  const s = tx.db
    .prepare("SELECT * FROM workflow_signal_records WHERE id = ? AND workflow_run_id = ?")
    .get(signalId, run.id) as SignalRecord | undefined;
  if (!s || s.signal_name !== name || s.status === "applied") return;
  const waitId = text(resume.signal_wait_id);
  const opened = waitId
    ? (tx.db
        .prepare(
          "SELECT json_extract(payload, '$.sequence') AS sequence FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'SignalWaitOpened' AND json_extract(payload, '$.signal_wait_id') = ? AND json_extract(payload, '$.signal_name') = ?",
        )
        .get(run.id, waitId, name) as { sequence: number | null } | undefined)
    : undefined;
  const sequence = typeof opened?.sequence === "number" ? opened.sequence : null;
  if (sequence === null) {
    const contract = runCommandContract(tx, run.id);
    if (contract.source !== SOURCE_DURABLE_HISTORY || !contract.signals.includes(name)) return;
  }
  tx.db
    .prepare("UPDATE workflow_signal_records SET status = 'applied', applied_at = ?, updated_at = ? WHERE id = ?")
    .run(tx.now, tx.now, s.id);
  tx.appendEvent(
    run.id,
    "SignalApplied",
    dropNulls({
      workflow_command_id: s.workflow_command_id,
      signal_id: s.id,
      signal_name: name,
      signal_wait_id: waitId,
      sequence,
      value: appliedValue(s),
    }),
    { taskId: task.id, commandId: s.workflow_command_id },
  );
}

/**
 * `SignalApplied.value`: the engine serialises the arguments as one value — `true` for none, the
 * argument itself for one, the list otherwise (`signalValueFromRecord`, DefaultWorkflowTaskBridge.php
 * @8dc90d64). Arguments this server cannot decode are kept as sent.
 */
function appliedValue(s: SignalRecord): string | null {
  if (s.arguments === null || s.payload_codec !== DEFAULT_PAYLOAD_CODEC) return s.arguments;
  try {
    const args = decodeBlob(s.arguments);
    if (!Array.isArray(args)) return s.arguments;
    return encodeBlob(args.length === 0 ? true : args.length === 1 ? args[0] : args);
  } catch {
    return s.arguments;
  }
}

function closeByCommand(tx: Tx, input: CloseWorkflowInput, kind: "cancel" | "terminate"): CommandResult {
  const t = target(tx, input.namespace, input.workflow_id, input.run_id);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, kind, input.request_id);
  if (prior) return resultFromRow(tx, prior);
  const rejection = rejectionFor(t);
  const base = {
    namespace: input.namespace,
    instanceId: input.workflow_id,
    run: t.run,
    requestedRunId: input.run_id ?? null,
    type: kind,
    requestId: input.request_id,
    request: input.request,
    reason: input.reason ?? null,
  };
  if (rejection || !t.run) {
    return resultFromRow(
      tx,
      insertCommand(tx, {
        ...base,
        status: "rejected",
        outcome: rejection?.outcome ?? "rejected_not_started",
        rejectionReason: rejection?.reason ?? "instance_not_started",
      }),
    );
  }
  const run = t.run;
  const outcome = kind === "cancel" ? "cancelled" : "terminated";
  // Signals held during a lease were accepted first: their SignalReceived goes before the close.
  releaseHeldSignals(tx, run.id);
  const row = insertCommand(tx, { ...base, status: "accepted", outcome });
  const ids = { workflow_command_id: row.id, workflow_instance_id: input.workflow_id, workflow_run_id: run.id };
  tx.appendEvent(
    run.id,
    kind === "cancel" ? "CancelRequested" : "TerminateRequested",
    { ...ids, command_type: kind, reason: input.reason ?? null },
    { commandId: row.id },
  );
  cancelOpenWork(tx, run, { commandId: row.id });
  const exceptionClass = kind === "cancel" ? EXCEPTION_CLASSES.cancelled : EXCEPTION_CLASSES.terminated;
  const message = input.reason ?? (kind === "cancel" ? "Workflow cancelled." : "Workflow terminated.");
  const failureId = insertFailure(tx, {
    runId: run.id,
    sourceKind: "workflow_run",
    sourceId: run.id,
    propagationKind: outcome,
    failureCategory: outcome,
    nonRetryable: false,
    exceptionClass,
    message,
  });
  tx.appendEvent(
    run.id,
    kind === "cancel" ? "WorkflowCancelled" : "WorkflowTerminated",
    {
      ...ids,
      failure_id: failureId,
      failure_category: outcome,
      closed_reason: outcome,
      exception_class: exceptionClass,
      message,
      reason: input.reason ?? null,
    },
    { commandId: row.id },
  );
  finishRun(tx, run.id, outcome, outcome);
  return resultFromRow(tx, row);
}

/** cancel: closes the active current run `cancelled` (CancelRequested, ActivityCancelled/TimerCancelled, failure row, WorkflowCancelled). */
export function cancelWorkflow(tx: Tx, input: CloseWorkflowInput): CommandResult {
  return closeByCommand(tx, input, "cancel");
}

/** terminate: like cancel, closing the run `terminated` (TerminateRequested … WorkflowTerminated). */
export function terminateWorkflow(tx: Tx, input: CloseWorkflowInput): CommandResult {
  return closeByCommand(tx, input, "terminate");
}
