import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { getKikwiflowClient, kikwiflowFailure, kikwiflowJson, kikwiflowNotConfigured } from "@/lib/server/kikwiflow";

/**
 * `GET /api/kikwiflow/instances/{id}/events`: the instance's outbox events, oldest first; an empty
 * list when the engine runs without `kikwiflow.outbox.events-enabled`.
 */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    return kikwiflowJson(await client.getEvents(id, { signal: request.signal }));
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}
