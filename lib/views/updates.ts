import type { FailureCategory } from "@/lib/dw/enums";
import { commandSender } from "./command-sender";
import type { HistoryEventInput, Payload, ViewEvent } from "./events";
import { classifyFailureEvent, readArray, readObject, readString, toViewEvents } from "./events";

/**
 * The run page's Updates tab (issue 41): the run's updates read from its history, one row per
 * update id. The engine writes `UpdateAccepted` or `UpdateRejected` when the command arrives, then
 * `UpdateApplied` + `UpdateCompleted` (result) or `UpdateCompleted` alone (failure_id,
 * failure_category, non_retryable, exception_*, message) when the worker answers
 * (durable-workflow/workflow src/V2/WorkflowStub.php@8dc90d64 `recordAcceptedUpdateWithArguments`,
 * `rejectUpdateCommand`; DefaultWorkflowTaskBridge.php@8dc90d64 `applyCompleteUpdate`/`applyFailUpdate`).
 * Each event carries its command's snapshot (`payload.command`: source, principal, request id,
 * rejection reason; WorkflowHistoryEvent.php@8dc90d64 `snapshotPayload`), read when present.
 */

/** `rejected`: the server refused the command (no handler ran); `failed`: the handler ran and threw. */
export type UpdateState = "accepted" | "applied" | "completed" | "failed" | "rejected";

export interface UpdateFailure {
  failureId: string | null;
  category: FailureCategory | null;
  nonRetryable: boolean;
  exceptionType: string | null;
  exceptionClass: string | null;
  message: string | null;
}

/**
 * Why an update was refused, as history shows it. The engine records the command's snapshot on the
 * event (`payload.command.rejection_reason`, WorkflowHistoryEvent.php@8dc90d64 `commandSnapshot`);
 * when it is missing, only facts are named: validation errors (no route of server@11d35b7 produces
 * them), the run had closed, or the name is not among those `WorkflowStarted` declares.
 */
export type RejectionHint = "validation" | "run_closed" | "not_declared" | null;

/** Who sent the update: the command snapshot on its event, else the export's `commands[]` row. */
export interface UpdateSender {
  source: string | null;
  /** `principal_label`, else `principal_id`, else `caller_label`: what names a person or a client. */
  principal: string | null;
  requestId: string | null;
}

export interface UpdateRow {
  updateId: string;
  commandId: string | null;
  name: string;
  state: UpdateState;
  /** The `arguments` blob as recorded (codec-encoded) and its codec: decoded for display by the console server. */
  arguments: unknown;
  payloadCodec: string | null;
  /** `UpdateCompleted.result` as recorded (codec-encoded), when the handler returned. */
  result: unknown;
  failure: UpdateFailure | null;
  rejection: RejectionHint;
  /** `command.rejection_reason` of the `UpdateRejected` event (`run_not_active`, `unknown_update`, …). */
  rejectionReason: string | null;
  /** From the command snapshot history recorded with the update; null when the event has none. */
  sender: UpdateSender | null;
  validationErrors: string[];
  /** When the command was accepted or refused, and when the handler's outcome was recorded. */
  sentAt: string | null;
  closedAt: string | null;
  /** Sequences of the opening event and the closing one (for links into the history). */
  sequence: number;
  closedSequence: number | null;
}

/** Updates kept for the snapshot; older ones are only counted (`omitted`). */
export const UPDATES_KEPT = 500;

/** The events after which no update can be accepted on this run (the engine's closed statuses). */
const RUN_CLOSE = new Set([
  "WorkflowCompleted",
  "WorkflowFailed",
  "WorkflowCancelled",
  "WorkflowTerminated",
  "WorkflowTimedOut",
  "WorkflowContinuedAsNew",
]);

function declaredUpdates(payload: Payload): Set<string> | null {
  const declared = payload.declared_updates;
  if (!Array.isArray(declared)) return null;
  return new Set(declared.filter((name): name is string => typeof name === "string"));
}

function validationErrors(payload: Payload): string[] {
  return readArray(payload, "validation_errors").map((item) =>
    typeof item === "string" ? item : JSON.stringify(item),
  );
}

function updateFailure(event: ViewEvent): UpdateFailure | null {
  const failure = classifyFailureEvent(event);
  if (!failure) return null;
  return {
    failureId: failure.failureId,
    category: failure.failureCategory,
    nonRetryable: failure.nonRetryable,
    exceptionType: failure.exceptionType,
    exceptionClass: failure.exceptionClass,
    message: failure.message,
  };
}

/**
 * The updates as a fold over events in sequence order: one small record per update id, the
 * newest {@link UPDATES_KEPT} kept, never the events.
 */
export class UpdateFold {
  private readonly rowsById = new Map<string, UpdateRow>();
  private declared: Set<string> | null = null;
  private closedAt: number | null = null;
  private dropped = 0;

  constructor(private readonly keep = UPDATES_KEPT) {}

  /** Updates left out of {@link rows} to bound memory. */
  get omitted(): number {
    return this.dropped;
  }

  add(event: ViewEvent): void {
    if (event.type === "WorkflowStarted" && this.declared === null) this.declared = declaredUpdates(event.payload);
    if (RUN_CLOSE.has(event.type) && this.closedAt === null) this.closedAt = event.sequence;
    if (!event.type.startsWith("Update")) return;
    const updateId = readString(event.payload, "update_id");
    if (!updateId) return;
    if (event.type === "UpdateAccepted" || event.type === "UpdateRejected") this.open(event, updateId);
    else this.close(event, updateId);
  }

  private open(event: ViewEvent, updateId: string): void {
    if (this.rowsById.has(updateId)) return;
    const p = event.payload;
    const rejected = event.type === "UpdateRejected";
    const name = readString(p, "update_name") ?? "";
    const errors = rejected ? validationErrors(p) : [];
    const command = readObject(p, "command");
    this.rowsById.set(updateId, {
      updateId,
      commandId: readString(p, "workflow_command_id"),
      name,
      state: rejected ? "rejected" : "accepted",
      arguments: p.arguments ?? null,
      payloadCodec: readString(p, "payload_codec"),
      result: null,
      failure: null,
      rejection: rejected ? this.rejectionHint(name, errors) : null,
      rejectionReason: rejected ? readString(command, "rejection_reason") : null,
      sender: command ? senderOf(command) : null,
      validationErrors: errors,
      sentAt: event.recordedAt,
      closedAt: rejected ? event.recordedAt : null,
      sequence: event.sequence,
      closedSequence: rejected ? event.sequence : null,
    });
    if (this.rowsById.size > this.keep) {
      const oldest = this.rowsById.keys().next().value as string;
      this.rowsById.delete(oldest);
      this.dropped += 1;
    }
  }

  private rejectionHint(name: string, errors: readonly string[]): RejectionHint {
    if (errors.length > 0) return "validation";
    if (this.closedAt !== null) return "run_closed";
    if (this.declared !== null && !this.declared.has(name)) return "not_declared";
    return null;
  }

  private close(event: ViewEvent, updateId: string): void {
    const row = this.rowsById.get(updateId);
    // An update opened before the kept window (or on an earlier page of a cut history) is not shown.
    if (!row || row.state === "rejected") return;
    if (event.type === "UpdateApplied") {
      if (row.state === "accepted") row.state = "applied";
      return;
    }
    if (event.type !== "UpdateCompleted") return;
    const failure = updateFailure(event);
    row.state = failure ? "failed" : "completed";
    row.failure = failure;
    row.result = failure ? null : (event.payload.result ?? null);
    row.closedAt = event.recordedAt;
    row.closedSequence = event.sequence;
  }

  /** In the order they were sent (history sequence); copies, so a later event does not change them. */
  rows(): UpdateRow[] {
    return [...this.rowsById.values()].map((row) => ({ ...row, failure: row.failure && { ...row.failure } }));
  }
}

/** Every update of a whole history (see {@link UpdateFold}). */
export function updateRows(history: readonly HistoryEventInput[]): UpdateRow[] {
  const fold = new UpdateFold();
  for (const event of toViewEvents(history)) fold.add(event);
  return fold.rows();
}

/** The export `commands[]` fields {@link senderOf} reads. */
export interface CommandSenderInput {
  id?: unknown;
  source?: unknown;
  caller_label?: unknown;
  principal_id?: unknown;
  principal_label?: unknown;
  request_id?: unknown;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** A command's sender: the snapshot on an event, or the export's row (the same fields, workflow@8dc90d64). */
export function senderOf(command: CommandSenderInput): UpdateSender {
  // The server's own caller label ("Standalone Server") names no person: shown as none (command-sender.ts).
  const sender = commandSender(command);
  return {
    source: text(command.source),
    principal: sender && !sender.serverItself ? sender.name : null,
    requestId: text(command.request_id),
  };
}

/** Senders by command id, from the export's commands (WorkflowCommand::publicContext, workflow@8dc90d64). */
export function sendersByCommand(commands: readonly CommandSenderInput[]): Map<string, UpdateSender> {
  const senders = new Map<string, UpdateSender>();
  for (const command of commands) {
    const id = text(command.id);
    if (id) senders.set(id, senderOf(command));
  }
  return senders;
}

/** The update names `WorkflowStarted` declares (WorkflowStartService `declared_updates`), or null. */
export function declaredUpdateNames(events: readonly { event_type: string; payload?: unknown }[]): string[] | null {
  const payload = events.find((event) => event.event_type === "WorkflowStarted")?.payload;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return null;
  const declared = declaredUpdates(payload as Payload);
  return declared === null ? null : [...declared].filter((name) => name.trim() !== "");
}
