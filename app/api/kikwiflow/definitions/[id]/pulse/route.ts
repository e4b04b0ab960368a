import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { getKikwiflowClient, kikwiflowNotConfigured } from "@/lib/server/kikwiflow/engine";
import { lifetimeOf, relayPulse } from "@/lib/server/kikwiflow/pulse-relay";
import { personKey } from "@/lib/server/proxy/person-limits";
import { endingOnShutdown } from "@/lib/server/process/lifecycle";

/**
 * `GET /api/kikwiflow/definitions/{id}/pulse`: the engine's pulse for one definition as
 * text/event-stream, one validated KKFProcessStats per `data:` frame (lib/server/kikwiflow/pulse-relay.ts),
 * at most BREAKWATER_PULSE_RELAYS_PER_PERSON per person, each for BREAKWATER_PULSE_MAX_MINUTES.
 */
export const dynamic = "force-dynamic";

export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  return relayPulse(client, id, request, config.kikwiflow.host, {
    person: personKey(config, request.headers),
    perPerson: config.personLimits.pulseRelays,
    // On SIGTERM a relay ends as its lifetime ends: cleanly, and the browser reopens it (decision 0062).
    lifetime: endingOnShutdown(lifetimeOf(config.personLimits.pulseLifetimeMs)),
  });
}
