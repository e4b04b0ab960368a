import type { ObservedEvent } from "./confirm";

/**
 * Confirming a sent update from the run's durable history by its update id (issue 41): the answer
 * only says what the server did; the Updates tab calls it done once the events that record it are
 * read back. Pure: the caller feeds the events read after sending and a clock.
 */

export type UpdateConfirmPhase = "awaiting" | "confirmed" | "contradicted" | "timed_out";

/** What the server answered, as the confirmation needs it. */
export interface SentUpdate {
  updateId: string;
  /** `UpdateStatus` as answered: accepted | completed | failed | rejected. */
  answeredStatus: string | null;
}

export interface RecordedStep {
  eventType: string;
  sequence: number;
}

export interface UpdateConfirmation {
  phase: UpdateConfirmPhase;
  /** `UpdateAccepted` or `UpdateRejected` with this id: the server recorded the command. */
  recorded: RecordedStep | null;
  /** `UpdateCompleted` with this id: the handler's outcome. */
  closed: RecordedStep | null;
  /** The state history shows: accepted | completed | failed | rejected (null before it is recorded). */
  historyStatus: string | null;
  elapsedMs: number;
}

function withId(events: readonly ObservedEvent[], types: readonly string[], updateId: string): ObservedEvent | null {
  let found: ObservedEvent | null = null;
  for (const event of events) {
    if (!types.includes(event.event_type) || event.payload.update_id !== updateId) continue;
    if (found === null || event.sequence < found.sequence) found = event;
  }
  return found;
}

function step(event: ObservedEvent | null): RecordedStep | null {
  return event ? { eventType: event.event_type, sequence: event.sequence } : null;
}

function failed(event: ObservedEvent): boolean {
  return typeof event.payload.failure_id === "string" || typeof event.payload.exception_class === "string";
}

/**
 * Confirmed once history holds what the answer claimed: the opening event for an accepted or refused
 * update, and its `UpdateCompleted` when the answer said it completed or failed. History outranks the
 * answer: a different outcome recorded there is a contradiction the tab shows.
 */
export function confirmUpdate(
  sent: SentUpdate,
  events: readonly ObservedEvent[],
  clock: { startedAt: number; now: number; timeoutMs: number },
): UpdateConfirmation {
  const opening = withId(events, ["UpdateAccepted", "UpdateRejected"], sent.updateId);
  const closing = withId(events, ["UpdateCompleted"], sent.updateId);
  const historyStatus =
    opening === null
      ? null
      : opening.event_type === "UpdateRejected"
        ? "rejected"
        : closing === null
          ? "accepted"
          : failed(closing)
            ? "failed"
            : "completed";
  const answered = sent.answeredStatus;
  const needsClose = answered === "completed" || answered === "failed";
  const elapsedMs = Math.max(0, clock.now - clock.startedAt);
  const settled = opening !== null && (!needsClose || closing !== null || historyStatus === "rejected");
  const contradicts =
    settled &&
    answered !== null &&
    historyStatus !== answered &&
    !(answered === "accepted" && historyStatus !== "rejected");
  const phase: UpdateConfirmPhase = contradicts
    ? "contradicted"
    : settled
      ? "confirmed"
      : elapsedMs >= clock.timeoutMs
        ? "timed_out"
        : "awaiting";
  return { phase, recorded: step(opening), closed: step(closing), historyStatus, elapsedMs };
}
