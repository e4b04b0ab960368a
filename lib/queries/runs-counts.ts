import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { runsListKey } from "@/lib/queries/keys";
import type { MetricsRuns } from "@/lib/views/run-row-counts";

/**
 * operator_metrics is one of the real server's heaviest reads (it walks every run for its command
 * contract counts), so the tabs' totals refresh at this pace, not the list's 5 s; an action re-reads
 * them at once (they sit under `runsListKey`, which lib/queries/invalidate.ts invalidates).
 */
export const RUNS_COUNTS_REFRESH_MS = 30_000;

export function runsCountsQuery(namespace: string) {
  return queryOptions({
    queryKey: [...runsListKey(namespace), "counts"] as const,
    queryFn: async ({ signal }): Promise<MetricsRuns> =>
      (await browserDwClientFor(namespace).operatorMetrics({ signal })).operator_metrics.runs,
    refetchInterval: RUNS_COUNTS_REFRESH_MS,
    refetchOnWindowFocus: false,
    retry: false,
  });
}
