import type { NextRequest } from "next/server";
import { definitionSummaries } from "@/lib/kikwiflow/definition-view";
import { getConfig } from "@/lib/server/config";
import { getKikwiflowClient, kikwiflowFailure, kikwiflowJson, kikwiflowNotConfigured } from "@/lib/server/kikwiflow";

/**
 * `GET /api/kikwiflow/definitions`: every deployed version as a summary row (key, version, id, name,
 * node count); the nodes themselves stay on the server, the list does not need them.
 */
export async function GET(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  try {
    return kikwiflowJson(
      definitionSummaries(await client.listProcessDefinitions(undefined, { signal: request.signal })),
    );
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}
