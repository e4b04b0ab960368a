import { queryOptions } from "@tanstack/react-query";
import type { DwClient, RunDescription, WorkflowDebug } from "@/lib/dw";
import { ENDPOINTS } from "@/lib/dw/endpoints";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import type { ErrorInfo } from "@/lib/views/error-info";
import type { TimelineListRow } from "@/lib/views/timeline";

/** An open run's describe and debug refresh every 5 s; a closed run's stop refreshing. */
export const OPEN_RUN_REFRESH_MS = ENDPOINTS.describeRun.refreshMs;
/** Describe of a run; `runId: null` is the workflow's current run (the server page's first read). */
export function fetchRunDescribe(client: DwClient, workflowId: string, runId: string | null): Promise<RunDescription> {
  return runId === null ? client.describeWorkflow(workflowId) : client.describeRun(workflowId, runId);
}

export function fetchRunDebug(client: DwClient, workflowId: string, runId: string | null): Promise<WorkflowDebug> {
  return runId === null ? client.debugWorkflow(workflowId) : client.debugRun(workflowId, runId);
}

export function runDescribeQuery(namespace: string, workflowId: string, runId: string) {
  return queryOptions({
    ...endpointQuery(namespace, "describeRun", { workflowId, runId }),
    refetchInterval: (query) => (query.state.data?.is_terminal ? false : OPEN_RUN_REFRESH_MS),
  });
}

export function runDebugQuery(namespace: string, workflowId: string, runId: string, open: boolean) {
  return queryOptions({
    ...endpointQuery(namespace, "debugRun", { workflowId, runId }),
    refetchInterval: open ? OPEN_RUN_REFRESH_MS : false,
  });
}

/** The first 1,000 history events, for the retry forecast of a run whose page is not open. */
export function runHistoryHeadQuery(namespace: string, workflowId: string, runId: string) {
  return endpointQuery(namespace, "getHistory", { workflowId, runId }, { page_size: 1000 });
}

/** What the run page's server render hands the screen (lib/server/pages/loaders.ts `loadRunPage`). */
export interface RunPageData {
  describe: RunDescription | null;
  debug: WorkflowDebug | null;
  /** Why describe failed; the page then shows the error instead of the run. */
  error: ErrorInfo | null;
  /**
   * The newest events (one history page placed by debug's last sequence), oldest first; null if
   * unread. A promise the page streams after the header: that read waits on debug's answer.
   */
  latest: Promise<TimelineListRow[] | null>;
}
