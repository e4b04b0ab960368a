import { getConfig } from "@/lib/server/process/config";
import { getRunViewService } from "@/lib/server/run-view/service";

/**
 * `GET /api/run-view/stats`: walks in flight, cache entries and bytes, upstream long-polls — counts
 * only, no run data, so any signed-in person may read it (the e2e proves a walk stops when its page
 * is left).
 */
export function GET(): Response {
  return Response.json(getRunViewService(getConfig()).stats(), { headers: { "cache-control": "no-store" } });
}
