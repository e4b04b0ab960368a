import type { NextRequest } from "next/server";
import { routeParam } from "@/lib/routes/route-for";
import { parseNamespace } from "@/lib/preferences";
import { getConfig } from "@/lib/server/config";
import { tokenForRequest } from "@/lib/server/dw";
import { proxyGet } from "@/lib/server/proxy";

/** File names keep to a safe alphabet; the ids themselves travel in the bundle. */
function fileName(workflowId: string, runId: string): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  return `history-export-${safe(workflowId)}-${safe(runId)}.json`;
}

/**
 * "Download history export": the server's bundle relayed byte for byte (its integrity checksum
 * stays valid), as an attachment. The signed-in person's token is added here (a viewer's export goes
 * out with the viewer's token, like every other read) and never reaches the browser.
 */
export async function GET(
  request: NextRequest,
  { params }: { params: Promise<{ namespace: string; workflowId: string; runId: string }> },
): Promise<Response> {
  const config = getConfig();
  const { namespace: rawNamespace, workflowId: rawWorkflowId, runId: rawRunId } = await params;
  // The namespace of the link (a plain download cannot carry X-Namespace); invalid is a 404 like a page's.
  const namespace = parseNamespace(routeParam(rawNamespace));
  if (namespace === null) return new Response("Not found\n", { status: 404 });
  const workflowId = routeParam(rawWorkflowId);
  const runId = routeParam(rawRunId);
  const upstream = await proxyGet(config, {
    segments: ["workflows", workflowId, "runs", runId, "history", "export"],
    token: tokenForRequest(config, request.headers),
    search: "",
    namespace,
    signal: request.signal,
  });
  if (!upstream.ok) return upstream;
  const headers = new Headers(upstream.headers);
  headers.set("content-disposition", `attachment; filename="${fileName(workflowId, runId)}"`);
  return new Response(upstream.body, { status: upstream.status, headers });
}
