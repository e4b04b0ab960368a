import { queryOptions } from "@tanstack/react-query";
import { DwServerUnavailableError, errorFromResponse } from "@/lib/dw/errors";
import { namespaceKey } from "@/lib/queries/keys";
import { mergePoints, METRICS_SAMPLES_PATH } from "@/lib/views/metrics-samples";
import type { MetricsHistory } from "@/lib/views/metrics-samples";

// Only the Overview reads the console's samples; kept out of metrics.ts, whose operatorMetricsQuery
// the shell's attention badge loads on every route (a module's code ships whole with its first use).

/** The page asks the console for the samples it took since the last ask this often (it also keeps the namespace sampled). */
export const METRICS_HISTORY_REFRESH_MS = 60_000;

/** Points the page keeps from the console: its whole 24 h ring. */
const HISTORY_MAX_POINTS = 5_760;

async function fetchMetricsHistory(namespace: string, since: number | null, signal: AbortSignal) {
  const search = since === null ? "" : `?since=${since}`;
  let response: Response;
  try {
    response = await fetch(`${METRICS_SAMPLES_PATH}${search}`, {
      headers: { "X-Namespace": namespace, Accept: "application/json" },
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new DwServerUnavailableError(`The console could not be reached: ${String(error)}`, {
      unavailableCause: "network",
      cause: error,
    });
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw errorFromResponse(response.status, body);
  return body as MetricsHistory;
}

/**
 * The console's own samples of the namespace (docs/decisions/0027): the whole ring on mount, then
 * only what came after the newest point held, merged into what the cache already has.
 */
export function metricsHistoryQuery(namespace: string) {
  const queryKey = namespaceKey(namespace, "metrics-history");
  return queryOptions({
    queryKey,
    queryFn: async ({ signal, client }): Promise<MetricsHistory> => {
      const held = client.getQueryData<MetricsHistory>(queryKey)?.points ?? [];
      const newest = held.at(-1)?.at ?? null;
      const answer = await fetchMetricsHistory(namespace, newest, signal);
      // A ring that begins after what the page holds was begun again (console restarted): start over too.
      const continues = newest !== null && answer.since !== null && answer.since <= newest;
      const points = continues ? mergePoints(held, answer.points, HISTORY_MAX_POINTS) : answer.points;
      return { ...answer, since: points[0]?.at ?? answer.since, points };
    },
    refetchInterval: METRICS_HISTORY_REFRESH_MS,
    retry: false,
  });
}
