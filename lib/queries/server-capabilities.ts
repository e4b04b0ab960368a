import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { serverKey } from "@/lib/queries/keys";
import { advertisesCooperativeCancellation } from "@/lib/views/capabilities";

/**
 * Whether the server advertises cooperative cancellation (cluster/info `worker_protocol
 * .server_capabilities`), for the run page's Request cancellation. The connection probe keeps only
 * the identity fields, so this is its own read; the same for every namespace, hence a server key.
 */
export function cooperativeCancellationQuery(namespace: string) {
  return queryOptions({
    queryKey: serverKey("cluster-info", "cooperative-cancellation"),
    queryFn: async ({ signal }) =>
      advertisesCooperativeCancellation(await browserDwClientFor(namespace).clusterInfo({ signal })),
    staleTime: 60_000,
    retry: 1,
  });
}
