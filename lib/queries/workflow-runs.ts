import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey } from "@/lib/queries/keys";

// Apart from runs.ts (the runs list and its console-side scan), which the run page does not need.

/** The runs of one workflow id (the run page's previous/next and its runs panel). */
export function workflowRunsQuery(namespace: string, workflowId: string, open: boolean) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "workflow-runs", workflowId),
    queryFn: ({ signal }) => browserDwClientFor(namespace).listRuns(workflowId, { signal }),
    refetchInterval: open ? 30_000 : false,
    retry: false,
  });
}
