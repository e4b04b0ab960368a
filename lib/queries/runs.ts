import { queryOptions } from "@tanstack/react-query";
import type { DwClient, ListWorkflowsParams } from "@/lib/dw";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { runsListKey } from "@/lib/queries/keys";
import type { RunsPage, TimeRange } from "@/lib/queries/runs-scan";
import { fetchRunsPage } from "@/lib/queries/runs-scan";

/** Refresh of the runs list: new runs and status changes show within five seconds. */
export const RUNS_REFRESH_MS = 5_000;
/** A console-side walk reads up to five server pages: it is repeated less often. */
export const RUNS_SCAN_REFRESH_MS = 15_000;

/** The part of the runs list's URL state that selects the rows (the page trail is navigation only). */
export interface RunsListFilter {
  status: "all" | "running" | "completed" | "failed";
  workflowType: string;
  search: string;
  pageSize: number;
  cursor: string | null;
  /** Runs started within this long before now (console-side: the server has no time filter). */
  range?: TimeRange | null;
  /** Runs on this task queue (console-side: the server has no queue filter). */
  taskQueue?: string;
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

/**
 * The runs-list page for the URL's filters: the server's own page when its filters say it all, else
 * the bounded console-side walk of lib/queries/runs-scan.ts (run-id search, time range, task queue,
 * a type typed in another case), with an ignored or expired cursor said as such.
 */
export function fetchRunsList(
  client: DwClient,
  filter: RunsListFilter,
  signal?: AbortSignal,
  now: number = Date.now(),
): Promise<RunsPage> {
  const request = runsListRequest(filter);
  return fetchRunsPage(
    (params) => client.listWorkflows(params, { signal }),
    {
      status: request.status,
      workflowType: filter.workflowType,
      search: filter.search,
      range: filter.range ?? null,
      taskQueue: filter.taskQueue ?? "",
      pageSize: filter.pageSize,
      cursor: filter.cursor,
    },
    now,
    signal,
  );
}

export function runsListQuery(namespace: string, filter: RunsListFilter) {
  const { status, workflowType, search, pageSize, cursor } = filter;
  const range = filter.range ?? null;
  const taskQueue = filter.taskQueue ?? "";
  return queryOptions({
    queryKey: [
      ...runsListKey(namespace),
      { status, workflowType, search, pageSize, cursor, range, taskQueue },
    ] as const,
    queryFn: ({ signal }) => fetchRunsList(browserDwClientFor(namespace), filter, signal),
    refetchInterval: (query) => (query.state.data?.view.mode === "scan" ? RUNS_SCAN_REFRESH_MS : RUNS_REFRESH_MS),
    retry: false,
  });
}
