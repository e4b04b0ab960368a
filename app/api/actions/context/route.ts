import type { NextRequest } from "next/server";
import { actionContext } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";

/**
 * Read-only mode, the signed-in person's role and their token's, so action widgets can disable and
 * explain a button before the click the guard would refuse. Per request: it differs per person.
 */
export function GET(request: NextRequest): Response {
  return Response.json(actionContext(getConfig(), request.headers), {
    headers: { "cache-control": "no-store" },
  });
}
