import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { ENDPOINTS } from "@/lib/dw/endpoints";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import { namespaceKey } from "@/lib/queries/keys";

/** The overview samples the server's counters at this rate to draw its charts. */
export const METRICS_REFRESH_MS = ENDPOINTS.operatorMetrics.refreshMs;

export function operatorMetricsQuery(namespace: string) {
  return endpointQuery(namespace, "operatorMetrics", {});
}

/** Cluster info as one namespace's page reads it (its `worker_fleet` counts that namespace). */
export function clusterInfoQuery(namespace: string) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "cluster-info"),
    queryFn: ({ signal }) => browserDwClientFor(namespace).clusterInfo({ signal }),
    staleTime: 60_000,
    retry: false,
  });
}
