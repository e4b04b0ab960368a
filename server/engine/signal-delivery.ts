import { decodeBlob, encodeBlob } from "../codec/codec";
import { newId } from "../ids";
import { runCommandContract, SOURCE_DURABLE_HISTORY } from "./command-contract";
import { commandSnapshot } from "./command-rows";
import type { CommandRow, RunRow, TaskRow } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { DEFAULT_PAYLOAD_CODEC, dropNulls, parseJson } from "./tx";

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
 * (workflow-task-completion.ts). The engine writes it at once, before the completion's
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

function commandSnapshotOf(tx: Tx, commandId: string | null): { command?: JsonObject } {
  if (!commandId) return {};
  const row = tx.db.prepare("SELECT * FROM workflow_commands WHERE id = ?").get(commandId) as CommandRow | undefined;
  return row ? { command: commandSnapshot(row) } : {};
}

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
      // `WorkflowHistoryEvent::record(..., $command)` adds the command snapshot (WorkflowStub.php@8dc90d64).
      ...commandSnapshotOf(tx, s.workflow_command_id),
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

/**
 * Records a signal the signal command accepted: held while a workflow task of the run is leased,
 * otherwise received at once, after any signals held before it.
 */
export function acceptSignal(
  tx: Tx,
  run: RunRow,
  commandId: string,
  signalName: string,
  args: PayloadEnvelope,
  messageSequence: number,
): void {
  const signalId = newId(tx.now);
  // The signal rule (see {@link holdsSignals}): while a workflow task is leased the signal is held.
  const held = holdsSignals(tx, run.id);
  if (!held) releaseHeldSignals(tx, run.id);
  tx.db
    .prepare(
      `INSERT INTO workflow_signal_records (id, workflow_run_id, workflow_command_id, signal_name, status, payload_codec, arguments, message_sequence, received_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      signalId,
      run.id,
      commandId,
      signalName,
      held ? HELD : "received",
      args.codec,
      args.blob,
      messageSequence,
      tx.now,
      tx.now,
      tx.now,
    );
  if (!held) recordSignalReceived(tx, run, signalId);
}
