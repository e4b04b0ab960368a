import type { NextRequest } from "next/server";
import { routeParam } from "@/lib/routes/route-for";
import { NAMESPACE_COOKIE, parseNamespace } from "@/lib/preferences";
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
  { params }: { params: Promise<{ workflowId: string; runId: string }> },
): Promise<Response> {
  const config = getConfig();
  const { workflowId: rawWorkflowId, runId: rawRunId } = await params;
  const workflowId = routeParam(rawWorkflowId);
  const runId = routeParam(rawRunId);
  const upstream = await proxyGet(config, {
    segments: ["workflows", workflowId, "runs", runId, "history", "export"],
    token: tokenForRequest(config, request.headers),
    search: "",
    namespace: parseNamespace(request.cookies.get(NAMESPACE_COOKIE)?.value) ?? config.namespace,
    signal: request.signal,
  });
  if (!upstream.ok) return upstream;
  const headers = new Headers(upstream.headers);
  headers.set("content-disposition", `attachment; filename="${fileName(workflowId, runId)}"`);
  return new Response(upstream.body, { status: upstream.status, headers });
}
