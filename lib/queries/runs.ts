import { queryOptions } from "@tanstack/react-query";
import type { DwClient, ListWorkflowsParams, WorkflowList } from "@/lib/dw";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey, runsListKey } from "@/lib/queries/keys";

/** Refresh of the runs list: new runs and status changes show within five seconds. */
export const RUNS_REFRESH_MS = 5_000;

/** The part of the runs list's URL state that selects the rows (the page trail is navigation only). */
export interface RunsListFilter {
  status: "all" | "running" | "completed" | "failed";
  workflowType: string;
  search: string;
  pageSize: number;
  cursor: string | null;
}

/**
 * The server request for a runs-list page, built here once for the server page's first render and
 * the client screen's refreshes alike, so both ask the same question.
 */
export function runsListRequest(filter: RunsListFilter): ListWorkflowsParams {
  return {
    status: filter.status === "all" ? undefined : filter.status,
    workflowType: filter.workflowType || undefined,
    query: filter.search || undefined,
    pageSize: filter.pageSize,
    nextPageToken: filter.cursor,
  };
}

export function fetchRunsList(client: DwClient, filter: RunsListFilter, signal?: AbortSignal): Promise<WorkflowList> {
  return client.listWorkflows(runsListRequest(filter), { signal });
}

export function runsListQuery(namespace: string, filter: RunsListFilter) {
  const { status, workflowType, search, pageSize, cursor } = filter;
  return queryOptions({
    queryKey: [...runsListKey(namespace), { status, workflowType, search, pageSize, cursor }] as const,
    queryFn: ({ signal }) => fetchRunsList(browserDwClientFor(namespace), filter, signal),
    refetchInterval: RUNS_REFRESH_MS,
    retry: false,
  });
}

/** The runs of one workflow id (the run page's previous/next and its runs panel). */
export function workflowRunsQuery(namespace: string, workflowId: string, open: boolean) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "workflow-runs", workflowId),
    queryFn: ({ signal }) => browserDwClientFor(namespace).listRuns(workflowId, { signal }),
    refetchInterval: open ? 30_000 : false,
    retry: false,
  });
}
