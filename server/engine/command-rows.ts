/**
 * The `workflow_commands` row every control-plane command writes: inserted (numbered per run when
 * accepted), found again by request id for an idempotent retry, and read back as the engine's
 * `CommandResponse` or as the snapshot a history event carries.
 */
import { isoMicros } from "../clock";
import { newId } from "../ids";
import type { CommandRequest } from "./command-context";
import { commandAttribution, storedContext } from "./command-context";
import type { CommandRow, CommandStatus, RunRow } from "./rows";
import { parsePayload } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { dropNulls } from "./tx";

export type { CommandRequest } from "./command-context";

/** The engine `CommandResponse` fields every command returns, read back from its `workflow_commands` row. */
export interface CommandResponse {
  command_id: string;
  command_status: CommandStatus;
  command_source: string;
  command_sequence: number | null;
  outcome: string | null;
  rejection_reason: string | null;
  /** accepted: the operator's reason text; rejected: the rejection reason. */
  reason: string | null;
  workflow_id: string;
  run_id: string | null;
  requested_run_id: string | null;
  resolved_run_id: string | null;
  target_scope: "instance" | "run";
  workflow_type: string | null;
}

/** What a start, signal, cancel or terminate command returns (the fields the control plane renders). */
export interface CommandResult extends CommandResponse {
  namespace: string;
  /** start only */
  status?: string;
  business_key?: string | null;
  payload_codec?: string | null;
  /** signal only */
  signal_name?: string;
  /** A rejected signal's message and admission diagnostics (`CommandResponse::payload`, workflow@8dc90d6). */
  message?: string;
  validation_errors?: Record<string, string[]>;
  command_contract_source?: string | null;
  command_contract_backfill_needed?: boolean;
  command_contract_backfill_available?: boolean;
  declared_signals?: string[];
  signal_admission?: string;
}

export function commandResponse(row: CommandRow): CommandResponse {
  const context = parsePayload(row.context);
  return {
    command_id: row.id,
    command_status: row.status,
    command_source: row.source,
    command_sequence: row.command_sequence,
    outcome: row.outcome,
    rejection_reason: row.rejection_reason,
    reason:
      row.status === "rejected" ? row.rejection_reason : typeof context.reason === "string" ? context.reason : null,
    workflow_id: row.workflow_instance_id ?? "",
    run_id: row.resolved_workflow_run_id,
    requested_run_id: row.requested_workflow_run_id,
    resolved_run_id: row.resolved_workflow_run_id,
    target_scope: row.target_scope === "run" ? "run" : "instance",
    workflow_type: row.workflow_type,
  };
}

export function resultFromRow(tx: Tx, row: CommandRow): CommandResult {
  const run = row.resolved_workflow_run_id ? tx.run(row.resolved_workflow_run_id) : undefined;
  const result: CommandResult = { ...commandResponse(row), namespace: row.namespace };
  if (row.command_type === "start" && run) {
    result.status = run.status;
    result.business_key = run.business_key;
    result.payload_codec = run.payload_codec;
  }
  if (row.command_type === "signal" && row.target_name) result.signal_name = row.target_name;
  return result;
}

export function findByRequestId(
  tx: Tx,
  namespace: string,
  instanceId: string | null,
  type: string,
  requestId: string | null | undefined,
): CommandRow | undefined {
  if (!requestId) return undefined;
  if (instanceId === null) {
    return tx.db
      .prepare("SELECT * FROM workflow_commands WHERE namespace = ? AND command_type = ? AND request_id = ? LIMIT 1")
      .get(namespace, type, requestId) as CommandRow | undefined;
  }
  return tx.db
    .prepare(
      "SELECT * FROM workflow_commands WHERE namespace = ? AND workflow_instance_id = ? AND command_type = ? AND request_id = ?",
    )
    .get(namespace, instanceId, type, requestId) as CommandRow | undefined;
}

interface NewCommand {
  namespace: string;
  instanceId: string;
  run: RunRow | null;
  requestedRunId: string | null;
  type: string;
  targetName?: string | null;
  requestId?: string | null;
  status: CommandStatus;
  outcome: string | null;
  rejectionReason?: string | null;
  reason?: string | null;
  payload?: PayloadEnvelope | null;
  messageSequence?: number | null;
  request?: CommandRequest | null;
}

/**
 * `WorkflowHistoryEvent::commandSnapshot` (workflow src/V2/Models/WorkflowHistoryEvent.php@8dc90d64):
 * the command as the event saw it, nulls dropped; `context` only for a non-empty public context
 * (none here), who sent it and the request metadata from the stored context.
 */
export function commandSnapshot(row: CommandRow): JsonObject {
  const who = commandAttribution(row);
  return dropNulls({
    id: row.id,
    sequence: row.command_sequence,
    message_sequence: row.message_sequence,
    type: row.command_type,
    target_scope: row.target_scope,
    requested_run_id: row.requested_workflow_run_id,
    resolved_run_id: row.resolved_workflow_run_id,
    target_name: row.target_name,
    payload_codec: row.payload_codec,
    payload: row.payload,
    source: row.source,
    caller_label: who.caller_label,
    auth_status: who.auth_status,
    auth_method: who.auth_method,
    request_method: who.request_method,
    request_path: who.request_path,
    request_id: who.request_id,
    correlation_id: who.correlation_id,
    status: row.status,
    outcome: row.outcome,
    rejection_reason: row.rejection_reason,
    accepted_at: isoMicros(row.accepted_at),
    applied_at: isoMicros(row.applied_at),
    rejected_at: isoMicros(row.rejected_at),
  });
}

function nextControlCommandSequence(tx: Tx, runId: string): number {
  const row = tx.db
    .prepare("SELECT COALESCE(MAX(command_sequence), 0) + 1 AS next FROM workflow_commands WHERE workflow_run_id = ?")
    .get(runId) as { next: number };
  return row.next;
}

export function insertCommand(tx: Tx, c: NewCommand): CommandRow {
  const id = newId(tx.now);
  // Control-plane commands are numbered per run on their own. The run's `last_command_sequence`
  // numbers the workflow's steps (activities, timers, waits, ...), which the SDK numbers 1, 2, ...
  // as it yields them and checks against history (sdk-python 2.12.0 `parallel_group_base_sequence`);
  // sharing it made the first step 2 and shifted every step after an accepted signal.
  const sequence = c.run && c.status === "accepted" ? nextControlCommandSequence(tx, c.run.id) : null;
  tx.db
    .prepare(
      `INSERT INTO workflow_commands (id, namespace, workflow_instance_id, workflow_run_id, requested_workflow_run_id, resolved_workflow_run_id,
         command_type, target_scope, target_name, source, context, request_id, status, outcome, rejection_reason, workflow_class, workflow_type,
         payload_codec, payload, command_sequence, message_sequence, accepted_at, applied_at, rejected_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'control_plane', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      c.namespace,
      c.instanceId,
      c.run?.id ?? null,
      c.requestedRunId,
      c.run?.id ?? null,
      c.type,
      c.requestedRunId ? "run" : "instance",
      c.targetName ?? null,
      storedContext(c.reason ?? null, c.request),
      c.requestId ?? null,
      c.status,
      c.outcome,
      c.rejectionReason ?? null,
      c.run?.workflow_class ?? null,
      c.run?.workflow_type ?? null,
      c.payload?.codec ?? null,
      c.payload?.blob ?? null,
      sequence,
      c.messageSequence ?? null,
      c.status === "accepted" ? tx.now : null,
      c.status === "accepted" ? tx.now : null,
      c.status === "rejected" ? tx.now : null,
      tx.now,
      tx.now,
    );
  return tx.db.prepare("SELECT * FROM workflow_commands WHERE id = ?").get(id) as CommandRow;
}
