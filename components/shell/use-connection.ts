"use client";

import { useQuery } from "@tanstack/react-query";
import { deriveConnection, isUnreachable } from "@/components/shell/connection-state";
import type { ConnectionState } from "@/components/shell/connection-state";
import { clusterInfoProbeQuery, healthProbeQuery } from "@/lib/queries/connection";

export function useConnection(): { state: ConnectionState; recheck: () => void; fetching: boolean } {
  const health = useQuery(healthProbeQuery());
  const info = useQuery(clusterInfoProbeQuery(isUnreachable));
  return {
    state: deriveConnection(health.data, info.data),
    recheck: () => {
      void health.refetch();
      void info.refetch();
    },
    fetching: health.isFetching || info.isFetching,
  };
}
