import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { getMetricsSampler, metricsHistoryResponse } from "@/lib/server/metrics/history";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";

/**
 * `GET /api/metrics/samples[?since=ms]` with `X-Namespace`: the console's own 24 h of Overview
 * samples for the namespace, to a request whose own metrics read passes (docs/decisions/0027).
 * Each answer reads the server, so it is one of the person's reads (docs/decisions/0044).
 */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => {
    const config = getConfig();
    return metricsHistoryResponse(config, getMetricsSampler(config), request);
  });
}
