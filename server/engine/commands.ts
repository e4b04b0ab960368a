import { newId } from "../ids";
import { declaredContractPayload, runCommandContract, signalAdmission, signalArgumentErrors } from "./command-contract";
import type { CommandRequest, CommandResult } from "./command-rows";
import { commandSnapshot, findByRequestId, insertCommand, resultFromRow } from "./command-rows";
import { EngineError } from "./errors";
import { cancelOpenWork, EXCEPTION_CLASSES, finishRun, insertFailure } from "./lifecycle";
import type { InstanceRow, RunRow } from "./rows";
import { isTerminal } from "./rows";
import type { Memo } from "./run-start";
import { createInstance, startRun } from "./run-start";
import { acceptSignal, releaseHeldSignals } from "./signal-delivery";
import type { PayloadEnvelope, Tx } from "./tx";

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
    throw new EngineError(404, "namespace_not_found", `Namespace '${namespace}' does not exist.`, {
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
export function target(
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

export function rejectionFor(t: {
  run: RunRow | null;
  notCurrent: boolean;
}): { outcome: string; reason: string } | null {
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
 * `SignalReceived` and a workflow task so the workflow sees it (the rule: signal-delivery.ts).
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
  acceptSignal(tx, t.run, row.id, input.signal_name, args, messageSequence);
  return resultFromRow(tx, row);
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
    // `WorkflowHistoryEvent::record(..., $command)` adds the command snapshot (WorkflowStub.php@8dc90d64).
    { ...ids, command_type: kind, reason: input.reason ?? null, command: commandSnapshot(row) },
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
      command: commandSnapshot(row),
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
