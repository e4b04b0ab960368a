import type { NextRequest } from "next/server";
import { definitionSummaries } from "@/lib/kikwiflow/definition-view";
import { kikwiflowRead } from "@/lib/server/kikwiflow/engine";

/**
 * `GET /api/kikwiflow/definitions`: every deployed version as a summary row (key, version, id, name,
 * node count); the nodes themselves stay on the server, the list does not need them.
 */
export async function GET(request: NextRequest): Promise<Response> {
  return kikwiflowRead(request, async (client, signal) =>
    definitionSummaries(await client.listProcessDefinitions(undefined, { signal })),
  );
}
