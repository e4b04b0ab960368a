import type { NextRequest } from "next/server";
import { definitionLabelsOf, kikwiflowRead } from "@/lib/server/kikwiflow/engine";

/**
 * `GET /api/kikwiflow/instances/{id}`: the engine's snapshot (instance, executable tasks, incidents)
 * plus `definition`, the key, name and version of its process definition (null when unresolved).
 */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  return kikwiflowRead(request, async (client, signal) => {
    const snapshot = await client.getSnapshot(id, { signal });
    const labels = await definitionLabelsOf(client, [snapshot.instance.processDefinitionId], signal);
    return { ...snapshot, definition: labels[snapshot.instance.processDefinitionId] ?? null };
  });
}
