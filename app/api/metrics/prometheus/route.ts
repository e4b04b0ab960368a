import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { consoleMetrics } from "@/lib/server/metrics/prometheus";
import { scrapeAccess } from "@/lib/server/metrics/scrape-access";

/**
 * `GET /api/metrics/prometheus`: the console's own metrics in Prometheus' text format (decision
 * 0062; docs/configuration.md lists them with example alerts). For a scraper with
 * BREAKWATER_METRICS_TOKEN or a signed-in admin (lib/server/metrics/scrape-access.ts).
 */
export async function GET(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const access = scrapeAccess(request.headers, {
    authMode: config.auth.mode,
    token: process.env.BREAKWATER_METRICS_TOKEN,
  });
  if (!access.ok)
    return Response.json(
      {
        reason: access.status === 401 ? "unauthenticated" : "forbidden",
        message: access.message,
        httpStatus: access.status,
      },
      { status: access.status, headers: { "cache-control": "no-store" } },
    );
  const metrics = consoleMetrics();
  metrics.longPollSlots.set(config.runView.maxLongPolls);
  return new Response(await metrics.registry.metrics(), {
    headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
  });
}

export const dynamic = "force-dynamic";
