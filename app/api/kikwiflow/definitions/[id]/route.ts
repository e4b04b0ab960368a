import type { NextRequest } from "next/server";
import { kikwiflowRead } from "@/lib/server/kikwiflow/engine";

/** `GET /api/kikwiflow/definitions/{id}`: one deployed process definition, nodes included. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  return kikwiflowRead(request, (client, signal) => client.getProcessDefinition(id, { signal }), "definition");
}
