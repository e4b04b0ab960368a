import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey } from "@/lib/queries/keys";

/** Workers and task queues change with every poll: the screens that list them refresh every 5 s. */
export const FLEET_REFRESH_MS = 5_000;

/** The namespace's workers; the overview, which only counts them, may ask less often. */
export function workersQuery(namespace: string, refreshMs: number = FLEET_REFRESH_MS) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "workers"),
    queryFn: ({ signal }) => browserDwClientFor(namespace).listWorkers({}, { signal }),
    refetchInterval: refreshMs,
    retry: false,
  });
}

export function taskQueuesQuery(namespace: string) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "task-queues"),
    queryFn: ({ signal }) => browserDwClientFor(namespace).listTaskQueues({ signal }),
    refetchInterval: FLEET_REFRESH_MS,
    retry: false,
  });
}

export function taskQueueQuery(namespace: string, name: string) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "task-queue", name),
    queryFn: ({ signal }) => browserDwClientFor(namespace).getTaskQueue(name, { signal }),
    refetchInterval: FLEET_REFRESH_MS,
    retry: false,
  });
}
