import type { TypedEvent } from "./events";
import type { IncidentLineage } from "./incident-lineage";
import type { FlowNodeFinishedPayload, RetryScheduledPayload } from "./schemas";

/** `GET /api/kikwiflow/instances/{id}/events` as the console answers it (types only: safe for the browser). */
export interface KikwiflowTrail {
  /** Outbox events the engine keeps for the instance; 0 when the outbox is off. */
  eventCount: number;
  retryScheduled: TypedEvent<RetryScheduledPayload>[];
  /** FLOW_NODE_FINISHED events with status ERROR, oldest first: each failure's exception and stack trace. */
  failedExecutions: TypedEvent<FlowNodeFinishedPayload>[];
  /** What led to each incident (the fatal marker's evidence), oldest first. */
  incidentLineages: IncidentLineage[];
}
