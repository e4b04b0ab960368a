import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import {
  definitionLabelsOf,
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
} from "@/lib/server/kikwiflow";

/**
 * `GET /api/kikwiflow/instances/{id}`: the engine's snapshot (instance, executable tasks, incidents)
 * plus `definition`, the key, name and version of its process definition (null when unresolved).
 */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    const snapshot = await client.getSnapshot(id, { signal: request.signal });
    const labels = await definitionLabelsOf(client, [snapshot.instance.processDefinitionId], request.signal);
    return kikwiflowJson({ ...snapshot, definition: labels[snapshot.instance.processDefinitionId] ?? null });
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}
