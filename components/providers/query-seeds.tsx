"use client";

import { useEffect, useMemo, useState } from "react";
import type { ReactNode } from "react";
import { HydrationBoundary } from "@tanstack/react-query";
import type { DehydratedState } from "@tanstack/react-query";
import { isSeedFailure } from "@/lib/queries/seed-failure";

/** The seeded answer once hydration committed; a read the server could not make is the query's error. */
async function afterHydration(opened: Promise<void>, answer: Promise<unknown>): Promise<unknown> {
  await opened;
  const value = await answer;
  if (isSeedFailure(value)) throw new Error("The server render could not read this; it is asked again.");
  return value;
}

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
 * Hands the server render's reads (lib/server/pages/query-seeds.ts) to the browser's queries.
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
          if (!promise) return query;
          const answer = afterHydration(gate.opened, promise);
          // The query takes the error; an answer hydrate() does not use must not be an unhandled rejection.
          answer.catch(() => undefined);
          return { ...query, promise: answer };
        }),
      },
    [state, gate],
  );
  useEffect(() => gate.open(), [gate]);
  return <HydrationBoundary state={gated}>{children}</HydrationBoundary>;
}
