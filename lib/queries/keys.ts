/**
 * Query keys, in one place so every key of a namespace's data starts with that namespace:
 * `["ns", namespace, resource, ...params]`. Two tabs (or one tab after a switch) on different
 * namespaces never share a cache entry, and invalidation can aim at one namespace, one run or one
 * resource by prefix. The few reads that are the same in every namespace (health, the namespace
 * list, the console's own action context) live under `["server", resource]`.
 */
export type NamespaceKey = readonly ["ns", string, ...unknown[]];

export function namespaceKey<const P extends readonly unknown[]>(namespace: string, ...parts: P) {
  return ["ns", namespace, ...parts] as const;
}

export function serverKey<const P extends readonly unknown[]>(...parts: P) {
  return ["server", ...parts] as const;
}

/** Every key of one run (describe, debug, history head, export): the prefix an action invalidates. */
export function runKey(namespace: string, workflowId: string, runId: string) {
  return namespaceKey(namespace, "run", workflowId, runId);
}

/** Every runs-list page of a namespace, whatever its filters. */
export function runsListKey(namespace: string) {
  return namespaceKey(namespace, "runs");
}
