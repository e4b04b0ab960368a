import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { tokenForRequest } from "@/lib/server/dw";
import { proxyGet } from "@/lib/server/proxy";
import { NAMESPACE_COOKIE, parseNamespace } from "@/lib/preferences";

export async function GET(
  request: NextRequest,
  { params }: { params: Promise<{ path: string[] }> },
): Promise<Response> {
  const config = getConfig();
  const { path } = await params;
  // With console auth, the signed-in person's role picks the token (lib/server/dw.ts).
  return proxyGet(config, {
    segments: path,
    token: tokenForRequest(config, request.headers),
    search: request.nextUrl.search,
    namespace: parseNamespace(request.cookies.get(NAMESPACE_COOKIE)?.value) ?? config.namespace,
    signal: request.signal,
  });
}
