import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import { getRunViewService } from "@/lib/server/run-view/service";

/**
 * `GET /api/run-view?workflow_id=…&run_id=…[&since=N][&wait=1]` with `X-Namespace`: a run's derived
 * views as NDJSON (lib/run-view/wire.ts; docs/decisions/0020). The person is authenticated by
 * proxy.ts; the run is described with their credentials on every request, cached or not. One of the
 * person's stream places is held until the answer ends (lib/server/proxy/person-limits.ts).
 */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "streams", () => getRunViewService(getConfig()).view(request));
}
