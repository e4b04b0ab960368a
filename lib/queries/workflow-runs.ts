import { queryOptions } from "@tanstack/react-query";
import { endpointQuery } from "@/lib/queries/endpoint-query";

// Apart from runs.ts (the runs list and its console-side scan), which the run page does not need.

/** The runs of one workflow id (the run page's previous/next and its runs panel), refreshed while the run is open. */
export function workflowRunsQuery(namespace: string, workflowId: string, open: boolean) {
  const query = endpointQuery(namespace, "listRuns", { workflowId });
  return queryOptions({ ...query, refetchInterval: open ? query.refetchInterval : false });
}
