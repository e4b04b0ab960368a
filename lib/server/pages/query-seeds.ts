import "server-only";
import { defaultShouldDehydrateQuery, dehydrate, QueryClient } from "@tanstack/react-query";
import type { DehydratedState, QueryKey } from "@tanstack/react-query";
import { SEED_FAILED } from "@/lib/queries/seed-failure";

/** A read the server render starts for a client query (same key, same data shape as its queryFn). */
export interface QuerySeed {
  queryKey: QueryKey;
  read: () => Promise<unknown>;
}

/** An answer the server already holds (no upstream read): handed over as fresh data. */
export interface KnownAnswer {
  queryKey: QueryKey;
  data: unknown;
}

/**
 * Hands reads the server render makes to the browser's TanStack Query cache, through
 * `HydrationBoundary`, so hydration does not ask for them again (issue 14: each such request cost
 * the console a route's overhead for a few hundred bytes). The render does not wait: a
 * seed is dehydrated as a pending query whose promise React streams in the page's flight data, and
 * the browser's query resumes that promise instead of fetching. The answer counts as read at the
 * time the render started (`dehydratedAt`), so the query's interval and staleness go on from there.
 * A failed read arrives as SEED_FAILED, an error in the browser's query; its interval, focus or
 * next mount asks again.
 */
export function seedQueries(seeds: readonly QuerySeed[], known: readonly KnownAnswer[] = []): DehydratedState {
  // Server-side QueryClients keep no timers (TanStack Query sees no window); this one lives for one render.
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const { queryKey, data } of known) client.setQueryData(queryKey, data);
  for (const { queryKey, read } of seeds)
    void client.prefetchQuery({ queryKey, queryFn: () => read().catch(() => SEED_FAILED) });
  return dehydrate(client, {
    shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
  });
}
