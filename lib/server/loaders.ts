import { notFound } from "next/navigation";
import type { RunDescription, WorkflowDebug } from "@/lib/dw";
import { parseNamespace } from "@/lib/preferences";
import { fetchRunDebug, fetchRunDescribe } from "@/lib/queries/run";
import type { RunPageData } from "@/lib/queries/run";
import { fetchRunsList } from "@/lib/queries/runs";
import type { RunsListFilter } from "@/lib/queries/runs";
import { routeParam } from "@/lib/routes/route-for";
import { getDwClient } from "@/lib/server/dw";
import "server-only";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import type { WorkflowList } from "@/lib/dw";

/**
 * Every server page's data, loaded here and nowhere else: the page names what it shows (the
 * namespace and ids of its URL), the loader asks the server with the person's token through the
 * same fetchers the client screens' queries use (lib/queries), and failures come back as data for
 * the screen to explain, never as a thrown error page.
 */

/** The `[namespace]` segment of a page's URL, validated like the proxy's header; anything else is a 404. */
export async function pageNamespace(params: Promise<{ namespace: string }>): Promise<string> {
  const namespace = parseNamespace(routeParam((await params).namespace));
  if (namespace === null) notFound();
  return namespace;
}

export interface RunsPageData {
  data: WorkflowList | null;
  error: ErrorInfo | null;
}

/** The runs list's first page for the URL's filters: the same request the screen's refreshes send. */
export async function loadRunsPage(namespace: string, filter: RunsListFilter): Promise<RunsPageData> {
  try {
    return { data: await fetchRunsList(getDwClient(namespace), filter), error: null };
  } catch (caught) {
    return { data: null, error: toErrorInfo(caught) };
  }
}

/**
 * The run page's first paint: describe and debug in parallel (neither reads the history), so the
 * header and exceptions arrive in the first HTML response. `runId: null` is the workflow's
 * current run.
 */
export async function loadRunPage(namespace: string, workflowId: string, runId: string | null): Promise<RunPageData> {
  const client = getDwClient(namespace);
  const [describe, debug] = await Promise.allSettled([
    fetchRunDescribe(client, workflowId, runId),
    fetchRunDebug(client, workflowId, runId),
  ]);
  const description: RunDescription | null = describe.status === "fulfilled" ? describe.value : null;
  const error: ErrorInfo | null = describe.status === "rejected" ? toErrorInfo(describe.reason) : null;
  // The current-run route may race a continue-as-new: only keep debug when it names the same run.
  const debugData: WorkflowDebug | null =
    description && debug.status === "fulfilled" && debug.value.run_id === description.run_id ? debug.value : null;
  return { describe: description, debug: debugData, error };
}
