import { queryOptions } from "@tanstack/react-query";
import { browserDwClient } from "@/lib/dw/browser-client";
import type { DwClient } from "@/lib/dw";
import { serverKey } from "@/lib/queries/keys";
import { withBasePath } from "@/lib/http/base-path";

/**
 * What one probe of the same-origin proxy produced. `failed` means the browser could not reach the
 * console itself (or the request was cut off); answers from the proxy, including its own 502/504
 * when the DW server is down, are `answered`.
 */
export type ProbeResult =
  | { kind: "answered"; status: number; body: unknown; latencyMs: number; at: number }
  | { kind: "failed"; message: string; at: number };

export const HEALTH_INTERVAL_MS = 10_000;
export const INFO_INTERVAL_MS = 30_000;

/**
 * The fields of a probe's answer the indicator reads (components/shell/connection-state.ts): the
 * health status and checks, cluster info's identity, an error's reason. Cluster info carries much more
 * (capabilities, limits): the rest is not kept, nor sent in the page when the server render probes.
 */
const PROBE_FIELDS = ["status", "checks", "reason", "version", "server_id", "default_namespace"];

export function probeBody(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => PROBE_FIELDS.includes(key)));
}

/** Probes a path of the same-origin proxy; never throws, so every outcome is data for the indicator. */
async function probe(path: string): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const response = await fetch(withBasePath(`/api/dw/${path}`), {
      cache: "no-store",
      headers: { Accept: "application/json" },
    });
    const body = probeBody(await response.json().catch(() => null));
    return { kind: "answered", status: response.status, body, latencyMs: performance.now() - started, at: Date.now() };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error), at: Date.now() };
  }
}

/** The server's health, the same in every namespace (the proxy relays it without one). */
export function healthProbeQuery() {
  return queryOptions({
    queryKey: serverKey("connection", "health"),
    queryFn: () => probe("health"),
    refetchInterval: HEALTH_INTERVAL_MS,
    retry: false,
  });
}

/**
 * Cluster info for the connection indicator (version, server id). `unreachable` tells whether the
 * last answer counts as a lost server: while it does the probe repeats as often as health, or the
 * indicator would lag a recovered server by up to 30 s.
 */
export function clusterInfoProbeQuery(unreachable: (result: ProbeResult | undefined) => boolean) {
  return queryOptions({
    queryKey: serverKey("connection", "cluster-info"),
    queryFn: () => probe("cluster/info"),
    refetchInterval: (query) => (unreachable(query.state.data) ? HEALTH_INTERVAL_MS : INFO_INTERVAL_MS),
    retry: false,
  });
}

/** The namespaces' names, sorted: what the switcher offers (the browser's query and the server render's seed). */
export async function fetchNamespaceNames(client: DwClient, signal?: AbortSignal): Promise<string[]> {
  const list = await client.listNamespaces({ signal });
  return list.namespaces.map((namespace) => namespace.name).sort((a, b) => a.localeCompare(b));
}

/** The namespaces the switcher offers, sorted by name. */
export function namespacesQuery() {
  return queryOptions({
    queryKey: serverKey("namespaces"),
    queryFn: ({ signal }) => fetchNamespaceNames(browserDwClient, signal),
    staleTime: 60_000,
    retry: 1,
  });
}

/**
 * The console's read-only mode and known role (`/api/actions/context`), the same in every
 * namespace. The body is the console's own; the action widgets check its shape with `select`.
 */
export function actionContextQuery() {
  return queryOptions({
    queryKey: serverKey("action-context"),
    queryFn: async ({ signal }): Promise<unknown> =>
      (await fetch(withBasePath("/api/actions/context"), { signal })).json(),
    staleTime: Infinity,
    retry: 1,
  });
}
