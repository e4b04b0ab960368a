import type { NextRequest } from "next/server";
import { failedExecutionEvents, incidentLineages, retryScheduledEvents } from "@/lib/kikwiflow/events";
import type { KikwiflowTrail } from "@/lib/kikwiflow/trail";
import { kikwiflowRead } from "@/lib/server/kikwiflow/engine";

/**
 * `GET /api/kikwiflow/instances/{id}/events`: the instance's outbox events, oldest first; an empty
 * list when the engine runs without `kikwiflow.outbox.events-enabled`. Answered as the attempts trail
 * (the RETRY_SCHEDULED events and the failed FLOW_NODE_FINISHED ones whose payloads match their
 * schemas), each incident's lineage (lib/kikwiflow/incident-lineage.ts) plus how many events there were:
 * the payloads are validated here, so zod stays out of the browser's bundle.
 */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  return kikwiflowRead(request, async (client, signal): Promise<KikwiflowTrail> => {
    const events = await client.getEvents(id, { signal });
    return {
      eventCount: events.length,
      retryScheduled: retryScheduledEvents(events),
      failedExecutions: failedExecutionEvents(events),
      incidentLineages: incidentLineages(events),
    };
  });
}
