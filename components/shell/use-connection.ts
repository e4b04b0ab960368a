"use client";

import { useQuery } from "@tanstack/react-query";
import { deriveConnection, isUnreachable } from "@/components/shell/connection-state";
import type { ConnectionState, ProbeResult } from "@/components/shell/connection-state";

const HEALTH_INTERVAL_MS = 10_000;
const INFO_INTERVAL_MS = 30_000;

/** Probes a path of the same-origin proxy; never throws, so every outcome is data for the indicator. */
async function probe(path: string): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const response = await fetch(`/api/dw/${path}`, { cache: "no-store", headers: { Accept: "application/json" } });
    const body: unknown = await response.json().catch(() => null);
    return { kind: "answered", status: response.status, body, latencyMs: performance.now() - started, at: Date.now() };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error), at: Date.now() };
  }
}

export function useConnection(): { state: ConnectionState; recheck: () => void; fetching: boolean } {
  const health = useQuery({
    queryKey: ["connection", "health"],
    queryFn: () => probe("health"),
    refetchInterval: HEALTH_INTERVAL_MS,
    retry: false,
  });
  const info = useQuery({
    queryKey: ["connection", "cluster-info"],
    queryFn: () => probe("cluster/info"),
    // A failed info probe counts as "unreachable" until it is repeated, so while it fails it is
    // repeated as often as health: otherwise the indicator would lag a recovered server by up to 30 s.
    refetchInterval: (query) => (isUnreachable(query.state.data) ? HEALTH_INTERVAL_MS : INFO_INTERVAL_MS),
    retry: false,
  });
  return {
    state: deriveConnection(health.data, info.data),
    recheck: () => {
      void health.refetch();
      void info.refetch();
    },
    fetching: health.isFetching || info.isFetching,
  };
}
