"use client";

import { useEffect, useMemo, useState } from "react";
import type { ReactNode } from "react";
import { HydrationBoundary } from "@tanstack/react-query";
import type { DehydratedState } from "@tanstack/react-query";

interface Gate {
  opened: Promise<void>;
  open: () => void;
}

function newGate(): Gate {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Hands the server render's reads (lib/server/query-seeds.ts) to the browser's queries.
 * `HydrationBoundary` alone would take a streamed answer the moment it arrived — possibly in the
 * middle of hydration, or already in the server's HTML render of some components but not of
 * others — and hydrating with other data than that HTML shows is React #418 (the whole page drawn
 * again). So every seeded query is fetching from its first render, on the server and in the
 * browser alike, and its answer is let through only once the hydration committed (the effect
 * below; on the server, never). Meanwhile the query does not ask the server itself: it is fetching.
 */
export function QuerySeeds({ state, children }: { state: DehydratedState | undefined; children: ReactNode }) {
  const [gate] = useState(newGate);
  const gated = useMemo(
    () =>
      state && {
        ...state,
        queries: state.queries.map((query) => {
          const { promise } = query;
          return promise ? { ...query, promise: gate.opened.then(() => promise) } : query;
        }),
      },
    [state, gate],
  );
  useEffect(() => gate.open(), [gate]);
  return <HydrationBoundary state={gated}>{children}</HydrationBoundary>;
}
