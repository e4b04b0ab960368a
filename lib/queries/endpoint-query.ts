import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { ENDPOINTS, endpointKey } from "@/lib/dw/endpoints";
import type { EndpointParams } from "@/lib/dw/endpoints";
import type { ReadName, ReadQuery } from "@/lib/dw/transport";
import { namespaceKey, serverKey } from "@/lib/queries/keys";

/**
 * The query of one declared read (lib/dw/endpoints.ts): its key under the namespace (or the server)
 * from the entry's `key`, its fetch through the read proxy, its refresh from `refreshMs`. A factory
 * that needs more (a refresh that depends on the answer, a transformed answer) spreads this and
 * overrides that one field, so the key stays the one invalidation aims at.
 */
export function endpointQuery<N extends ReadName>(
  namespace: string,
  name: N,
  params: EndpointParams<N>,
  query?: ReadQuery,
) {
  return queryOptions({
    queryKey: endpointQueryKey(namespace, name, params),
    queryFn: ({ signal }) => browserDwClientFor(namespace).read(name, params, query, { signal }),
    refetchInterval: ENDPOINTS[name].refreshMs,
    retry: false,
  });
}

/** The key of a declared read: under `["server"]` for a server-wide one, else under the namespace. */
export function endpointQueryKey<N extends ReadName>(namespace: string, name: N, params: EndpointParams<N>) {
  const parts = endpointKey(name, params);
  return ENDPOINTS[name].scope === "server" ? serverKey(...parts) : namespaceKey(namespace, ...parts);
}
