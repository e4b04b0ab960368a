import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { getMetricsSampler, metricsHistoryResponse } from "@/lib/server/metrics-history";

/**
 * `GET /api/metrics/samples[?since=ms]` with `X-Namespace`: the console's own 24 h of Overview
 * samples for the namespace, to a request whose own metrics read passes (docs/decisions/0027).
 */
export async function GET(request: NextRequest): Promise<Response> {
  const config = getConfig();
  return metricsHistoryResponse(config, getMetricsSampler(config), request);
}
