"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { WorkflowList } from "@/lib/dw/schemas-workflows";
import { runsListQuery } from "@/lib/queries/runs";
import { asRunsPage } from "@/lib/queries/runs-scan";
import type { RunsQuery } from "@/components/run-list/run-list-url-state";

/**
 * The runs list query, and nothing else: one page of runs for the URL's query (lib/queries/runs.ts
 * holds the key, fetcher and refresh), seeded with the server-rendered page when the query is the
 * one the server rendered. `identity` names the list (the key as text), so callers can tell a new
 * list from a refresh of the same one.
 */
export function useRunsList(
  namespace: string,
  query: RunsQuery,
  initial: { query: RunsQuery; data: WorkflowList | null },
) {
  const options = runsListQuery(namespace, query);
  const identity = JSON.stringify(options.queryKey);
  const isInitial = identity === JSON.stringify(runsListQuery(namespace, initial.query).queryKey);
  // The server render's answer comes from the same fetcher; older callers may hand a bare list.
  const seed = isInitial && initial.data ? asRunsPage(initial.data) : null;
  const result = useQuery({
    ...options,
    initialData: seed ?? undefined,
    placeholderData: keepPreviousData,
  });
  return { result, identity, initialData: seed };
}
