import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import { getRunViewService } from "@/lib/server/run-view/service";

/**
 * `GET /api/run-view/extras?workflow_id=…&run_id=…` with `X-Namespace`: the export-only sections
 * (RunViewExtras), read from the export on this server when a tab asks; closed runs' are cached.
 * In one of the person's read places (lib/server/proxy/person-limits.ts).
 */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => getRunViewService(getConfig()).extras(request));
}
