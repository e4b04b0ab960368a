"use client";

import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTicker } from "@/components/hooks/use-time-format";
import { deriveConnection, isServerAbsence, isUnreachable } from "@/components/shell/connection-state";
import type { ConnectionState } from "@/components/shell/connection-state";
import { clusterInfoProbeQuery, healthProbeQuery, HEALTH_INTERVAL_MS } from "@/lib/queries/connection";
import { serverKey } from "@/lib/queries/keys";

export function useConnection(): { state: ConnectionState; recheck: () => void; fetching: boolean } {
  const health = useQuery(healthProbeQuery());
  const info = useQuery(clusterInfoProbeQuery(isUnreachable));
  const outageSeenAt = usePageOutage();
  // Re-derived as time passes, so an answer that grew old stops counting as the present.
  const now = useTicker(HEALTH_INTERVAL_MS / 2);
  return {
    state: deriveConnection(health.data, info.data, { now, outageSeenAt }),
    recheck: () => {
      void health.refetch();
      void info.refetch();
    },
    fetching: health.isFetching || info.isFetching,
  };
}

/**
 * When a read of this page last failed because the server was unreachable; the probes are asked
 * again at once then, so the indicator agrees with the page within one round trip instead of
 * lagging it by up to a probe interval.
 */
function usePageOutage(): number | null {
  const client = useQueryClient();
  const [seenAt, setSeenAt] = useState<number | null>(null);
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "error" || !isServerAbsence(event.action.error)) return;
        setSeenAt(Date.now());
        void client.refetchQueries({ queryKey: serverKey("connection") }, { cancelRefetch: false });
      }),
    [client],
  );
  return seenAt;
}
