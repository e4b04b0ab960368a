import { queryOptions } from "@tanstack/react-query";
import { ENDPOINTS } from "@/lib/dw/endpoints";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import { namespaceKey } from "@/lib/queries/keys";

/** Workers and task queues change with every poll: the screens that list them refresh every 5 s. */
export const FLEET_REFRESH_MS = ENDPOINTS.listWorkers.refreshMs;

/** The namespace's workers; the overview, which only counts them, may ask less often. */
export function workersQuery(namespace: string, refreshMs: number = FLEET_REFRESH_MS) {
  return queryOptions({ ...endpointQuery(namespace, "listWorkers", {}), refetchInterval: refreshMs });
}

/**
 * The namespace's stale workers: a newer server leaves them out of its default list and lists them
 * with `status=stale` (WorkerManagementController.php after @c6de4c3 `workerMatchesStatus`); an older one
 * answers it with none, having listed them already.
 */
export function staleWorkersQuery(namespace: string) {
  return queryOptions({
    ...endpointQuery(namespace, "listWorkers", {}, { status: "stale" }),
    queryKey: namespaceKey(namespace, "workers", "stale"),
  });
}

export function taskQueuesQuery(namespace: string) {
  return endpointQuery(namespace, "listTaskQueues", {});
}

export function taskQueueQuery(namespace: string, name: string) {
  return endpointQuery(namespace, "getTaskQueue", { name });
}
