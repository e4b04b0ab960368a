"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { WorkflowList } from "@/lib/dw/schemas-workflows";
import { runsListQuery } from "@/lib/queries/runs";
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
  const result = useQuery({
    ...options,
    initialData: isInitial && initial.data ? initial.data : undefined,
    placeholderData: keepPreviousData,
  });
  return { result, identity, initialData: isInitial ? initial.data : null };
}
