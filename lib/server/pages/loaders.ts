import { headers } from "next/headers";
import { notFound } from "next/navigation";
import type { RunDescription, WorkflowDebug } from "@/lib/dw";
import { parseNamespace } from "@/lib/preferences";
import { fetchRunDebug, fetchRunDescribe } from "@/lib/queries/run";
import type { RunPageData } from "@/lib/queries/run";
import { fetchRunsList } from "@/lib/queries/runs";
import type { RunsListFilter } from "@/lib/queries/runs";
import { routeParam } from "@/lib/routes/route-for";
import { getDwClient, tokenForRequest } from "@/lib/server/proxy/dw-client";
import "server-only";
import { actionContext } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";
import { proxyGet } from "@/lib/server/proxy/read-proxy";
import { seedQueries } from "@/lib/server/pages/query-seeds";
import type { QuerySeed } from "@/lib/server/pages/query-seeds";
import type { EndpointParams } from "@/lib/dw/endpoints";
import type { ReadName } from "@/lib/dw/transport";
import { endpointQueryKey } from "@/lib/queries/endpoint-query";
import type { DehydratedState } from "@tanstack/react-query";
import {
  actionContextQuery,
  clusterInfoProbeQuery,
  fetchNamespaceNames,
  healthProbeQuery,
  namespacesQuery,
  probeBody,
} from "@/lib/queries/connection";
import type { ProbeResult } from "@/lib/queries/connection";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import type { DwClient, WorkflowList } from "@/lib/dw";
import { historyTokenAfter } from "@/lib/dw/transport";
import type { TimelineListRow } from "@/lib/views/timeline";
import { timelineList } from "@/lib/views/timeline";

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

/** The run page's "Latest events": this many of the newest events, in one small history page. */
export const LATEST_EVENTS = 20;

/**
 * The newest events of a run in one page: history pages only go forward, so the page starts after
 * sequence `last − 20`, `last` being debug's `execution.last_event.sequence` (the event count; the
 * token is base64 of a sequence, docs/research/issue-14-real-server-facts.md §1, server
 * HistoryController.php@11d35b7 lines 103-134). Rows are shaped here, so the page's first-load JS
 * carries no event summariser.
 */
async function loadLatestEvents(
  client: DwClient,
  workflowId: string,
  runId: string,
  last: number | undefined,
): Promise<TimelineListRow[] | null> {
  if (last === undefined || last <= 0) return last === 0 ? [] : null;
  try {
    const page = await client.getHistory(workflowId, runId, {
      pageSize: LATEST_EVENTS,
      nextPageToken: historyTokenAfter(Math.max(0, last - LATEST_EVENTS)),
    });
    return timelineList(page.events);
  } catch {
    // The list is a convenience of the first view; the streamed views still come.
    return null;
  }
}

/**
 * The run page's first paint: describe and debug in parallel (neither reads the history), then the
 * newest events (one page of 20, placed by debug's last sequence), so the header, the exceptions
 * and what the run did last arrive in the first HTML response. `runId: null` is the workflow's
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
  // Not awaited: the header and exceptions stream as soon as describe and debug are in, the newest
  // events (a third round trip, after debug) right behind them. It never rejects.
  const latest =
    description && debugData
      ? loadLatestEvents(client, workflowId, description.run_id, debugData.execution.last_event?.sequence)
      : Promise.resolve(null);
  return { describe: description, debug: debugData, error, latest };
}

/**
 * A connection probe answered in the server render: the read proxy's own answer to the path the
 * browser's probe asks (lib/queries/connection.ts), so the indicator reads the same status and
 * body. Its latency is the console's round trip to the server, without the browser's leg.
 */
async function probeOnServer(segments: string[], token: string | null): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const response = await proxyGet(getConfig(), { segments, token, search: "", namespace: null });
    const body = probeBody(await response.json().catch(() => null));
    return { kind: "answered", status: response.status, body, latencyMs: performance.now() - started, at: Date.now() };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error), at: Date.now() };
  }
}

/**
 * The shell's reads, made by the server render of a page's document and handed to the browser's
 * queries (lib/server/pages/query-seeds.ts), so hydration does not ask for them again: the connection
 * probes, the namespace list, the navigation's attention count for `namespace`, and the action
 * context (computed here, no upstream read). Same keys as the browser's queries.
 */
export async function loadShellSeeds(namespace: string): Promise<DehydratedState> {
  const config = getConfig();
  const requestHeaders = await headers();
  const token = tokenForRequest(config, requestHeaders);
  return seedQueries(
    [
      { queryKey: healthProbeQuery().queryKey, read: () => probeOnServer(["health"], token) },
      { queryKey: clusterInfoProbeQuery(() => false).queryKey, read: () => probeOnServer(["cluster", "info"], token) },
      { queryKey: namespacesQuery().queryKey, read: () => fetchNamespaceNames(getDwClient()) },
      endpointSeed(namespace, "operatorMetrics", {}),
    ],
    [{ queryKey: actionContextQuery().queryKey, data: actionContext(config, requestHeaders) }],
  );
}

/** The run page's list of the workflow's runs (previous/next, the runs panel), read by its server render. */
export function loadWorkflowRunsSeed(namespace: string, workflowId: string): DehydratedState {
  // `open` only changes the refresh interval, not the key.
  return seedQueries([endpointSeed(namespace, "listRuns", { workflowId })]);
}

/** A declared read (lib/dw/endpoints.ts) started by the server render for its client query: same key, same answer. */
function endpointSeed<N extends ReadName>(namespace: string, name: N, params: EndpointParams<N>): QuerySeed {
  return { queryKey: endpointQueryKey(namespace, name, params), read: () => getDwClient(namespace).read(name, params) };
}
