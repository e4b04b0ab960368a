import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey } from "@/lib/queries/keys";

const SYSTEM_REFRESH_MS = 5_000;

/** Every key of the System screen's reads in a namespace: what a maintenance pass invalidates. */
export function systemKey(namespace: string) {
  return namespaceKey(namespace, "system");
}

export function repairStatusQuery(namespace: string) {
  return queryOptions({
    queryKey: [...systemKey(namespace), "repair"] as const,
    queryFn: ({ signal }) => browserDwClientFor(namespace).repairStatus({ signal }),
    refetchInterval: SYSTEM_REFRESH_MS,
    retry: false,
  });
}

export function activityTimeoutsQuery(namespace: string) {
  return queryOptions({
    queryKey: [...systemKey(namespace), "activity-timeouts"] as const,
    queryFn: ({ signal }) => browserDwClientFor(namespace).activityTimeouts({}, { signal }),
    refetchInterval: SYSTEM_REFRESH_MS,
    retry: false,
  });
}
