import {
  type FlowNodeFinishedPayload,
  flowNodeFinishedPayloadSchema,
  type HistoryEvent,
  type IncidentCreatedPayload,
  incidentCreatedPayloadSchema,
  type RetryScheduledPayload,
  retryScheduledPayloadSchema,
} from "./schemas";
import type { IncidentLineage } from "./incident-lineage";

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

/**
 * The lineage of every INCIDENT_CREATED in the events (oldest first, as the engine lists them): the
 * RETRY_SCHEDULED of its task since the task's previous incident (lib/kikwiflow/incident-lineage.ts).
 */
export function incidentLineages(events: readonly HistoryEvent[]): IncidentLineage[] {
  const scheduled = new Map(retryScheduledEvents(events).map((e) => [e.event.id, e.payload]));
  const incidents = new Map(incidentCreatedEvents(events).map((e) => [e.event.id, e.payload]));
  const since = new Map<string, { count: number; last: number | null }>();
  const lineages: IncidentLineage[] = [];
  for (const event of events) {
    const retry = scheduled.get(event.id);
    const incident = incidents.get(event.id);
    if (retry) {
      const task = retry.executableTaskId ?? "";
      const count = (since.get(task)?.count ?? 0) + 1;
      since.set(task, { count, last: retry.retriesLeft });
    } else if (incident) {
      const task = incident.executionId ?? "";
      const seen = since.get(task);
      lineages.push({
        incidentId: incident.incidentId,
        taskId: incident.executionId ?? null,
        retriesScheduled: seen?.count ?? 0,
        lastRetriesLeft: seen?.last ?? null,
      });
      // The task waits in ERROR until a retry restores its retries: counting starts again.
      since.delete(task);
    }
  }
  return lineages;
}
