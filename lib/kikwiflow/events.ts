import {
  type FlowNodeFinishedPayload,
  flowNodeFinishedPayloadSchema,
  type HistoryEvent,
  type IncidentCreatedPayload,
  incidentCreatedPayloadSchema,
  type RetryScheduledPayload,
  retryScheduledPayloadSchema,
} from "./schemas";

/**
 * Typed views over the outbox timeline (`GET /process-instances/{id}/events`). The payload is
 * polymorphic on the wire; these pick one event type and keep only the payloads that match its
 * schema, so a newer engine's extra or reshaped events are skipped rather than breaking the trail.
 */

export interface TypedEvent<P> {
  readonly event: HistoryEvent;
  readonly payload: P;
}

function pick<P>(
  events: readonly HistoryEvent[],
  eventType: string,
  parse: (payload: unknown) => { success: true; data: P } | { success: false },
): TypedEvent<P>[] {
  const picked: TypedEvent<P>[] = [];
  for (const event of events) {
    if (event.eventType !== eventType) continue;
    const parsed = parse(event.payload);
    if (parsed.success) picked.push({ event, payload: parsed.data });
  }
  return picked;
}

/** RETRY_SCHEDULED: one per failed execution that left retries (executionsSoFar, retriesLeft, nextDueDate, errorMessage). */
export function retryScheduledEvents(events: readonly HistoryEvent[]): TypedEvent<RetryScheduledPayload>[] {
  return pick(events, "RETRY_SCHEDULED", (p) => retryScheduledPayloadSchema.safeParse(p));
}

/** INCIDENT_CREATED: the moment retries ran out, a fatal exception hit, or a business error went unhandled. */
export function incidentCreatedEvents(events: readonly HistoryEvent[]): TypedEvent<IncidentCreatedPayload>[] {
  return pick(events, "INCIDENT_CREATED", (p) => incidentCreatedPayloadSchema.safeParse(p));
}

/** FLOW_NODE_FINISHED with status ERROR: each failed execution, with its exception and stack trace. */
export function failedExecutionEvents(events: readonly HistoryEvent[]): TypedEvent<FlowNodeFinishedPayload>[] {
  return pick(events, "FLOW_NODE_FINISHED", (p) => flowNodeFinishedPayloadSchema.safeParse(p)).filter(
    (e) => e.payload.nodeExecutionStatus === "ERROR",
  );
}
