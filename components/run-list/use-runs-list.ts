"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { WorkflowList } from "@/lib/dw/schemas-workflows";
import { browserDwClient } from "@/lib/dw/browser-client";
import type { RunsQuery } from "@/components/run-list/run-list-url-state";
import { statusFilter } from "@/components/run-list/run-list-url-state";

const REFRESH_MS = 5_000;

function runsListKey(namespace: string, query: RunsQuery) {
  return ["runs", namespace, query.status, query.workflowType, query.search, query.pageSize, query.cursor] as const;
}

/**
 * The runs list query, and nothing else: one page of runs for the URL's query, refreshed every 5 s,
 * seeded with the server-rendered page when the query is the one the server rendered. `identity`
 * names the list (the key as text), so callers can tell a new list from a refresh of the same one.
 */
export function useRunsList(
  namespace: string,
  query: RunsQuery,
  initial: { query: RunsQuery; data: WorkflowList | null },
) {
  const key = runsListKey(namespace, query);
  const identity = JSON.stringify(key);
  const isInitial = identity === JSON.stringify(runsListKey(namespace, initial.query));
  const result = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      browserDwClient.listWorkflows(
        {
          status: statusFilter(query.status),
          workflowType: query.workflowType || undefined,
          query: query.search || undefined,
          pageSize: query.pageSize,
          nextPageToken: query.cursor,
        },
        { signal },
      ),
    initialData: isInitial && initial.data ? initial.data : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
    retry: false,
  });
  return { result, identity, initialData: isInitial ? initial.data : null };
}
