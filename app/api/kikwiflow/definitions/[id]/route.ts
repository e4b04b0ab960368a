import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { getKikwiflowClient, kikwiflowFailure, kikwiflowJson, kikwiflowNotConfigured } from "@/lib/server/kikwiflow";

/** `GET /api/kikwiflow/definitions/{id}`: one deployed process definition, nodes included. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    return kikwiflowJson(await client.getProcessDefinition(id, { signal: request.signal }));
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host, "definition");
  }
}
