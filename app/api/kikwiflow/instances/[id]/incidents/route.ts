import type { NextRequest } from "next/server";
import { kikwiflowRead } from "@/lib/server/kikwiflow/engine";

/** `GET /api/kikwiflow/instances/{id}/incidents`: every incident of the instance, OPEN and RESOLVED. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  return kikwiflowRead(request, (client, signal) => client.getInstanceIncidents(id, { signal }));
}
