import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { sameOriginProblem } from "@/lib/server/proxy/action-guard";
import { tokenForRequest } from "@/lib/server/proxy/dw-client";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import { proxyGet, proxyPost } from "@/lib/server/proxy/read-proxy";
import type { ProxyRequest } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { refusal } from "@/app/api/actions/_shared/respond";

type Params = { params: Promise<{ path: string[] }> };

async function proxyRequest(request: NextRequest, { params }: Params): Promise<ProxyRequest> {
  const config = getConfig();
  const { path } = await params;
  return {
    segments: path,
    // With console auth, the signed-in person's role picks the token (lib/server/proxy/dw-client.ts).
    token: tokenForRequest(config, request.headers),
    search: request.nextUrl.search,
    // The page's namespace, sent by the browser client; a namespaced path without one is refused.
    namespace: requestNamespace(request.headers),
    signal: request.signal,
  };
}

export async function GET(request: NextRequest, context: Params): Promise<Response> {
  // One of the person's read places until the answer is sent (lib/server/proxy/person-limits.ts).
  return withPersonLimit(request, "reads", async () => proxyGet(getConfig(), await proxyRequest(request, context)));
}

/**
 * A POST that reads (a workflow query): open to every role and to read-only mode, as a GET is, but
 * only from the console's own pages (the same-origin check of the action API).
 */
export async function POST(request: NextRequest, context: Params): Promise<Response> {
  const problem = sameOriginProblem(request.headers);
  if (problem !== null) return refusal({ status: 403, reason: "cross_origin", message: `Refused: ${problem}.` });
  return withPersonLimit(request, "reads", async () =>
    proxyPost(getConfig(), { ...(await proxyRequest(request, context)), body: await request.text() }),
  );
}
