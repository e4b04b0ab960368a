import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { tokenForRequest } from "@/lib/server/proxy/dw-client";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import { proxyGet } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";

export async function GET(
  request: NextRequest,
  { params }: { params: Promise<{ path: string[] }> },
): Promise<Response> {
  const config = getConfig();
  const { path } = await params;
  // One of the person's read places until the answer is sent (lib/server/proxy/person-limits.ts).
  return withPersonLimit(request, "reads", () =>
    // With console auth, the signed-in person's role picks the token (lib/server/proxy/dw-client.ts).
    proxyGet(config, {
      segments: path,
      token: tokenForRequest(config, request.headers),
      search: request.nextUrl.search,
      // The page's namespace, sent by the browser client; a namespaced path without one is refused.
      namespace: requestNamespace(request.headers),
      signal: request.signal,
    }),
  );
}
