import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { proxyGet } from "@/lib/server/proxy";
import { NAMESPACE_COOKIE, parseNamespace } from "@/lib/preferences";

export async function GET(request: NextRequest, { params }: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const config = getConfig();
  const { path } = await params;
  return proxyGet(config, {
    segments: path,
    search: request.nextUrl.search,
    namespace: parseNamespace(request.cookies.get(NAMESPACE_COOKIE)?.value) ?? config.namespace,
    signal: request.signal,
  });
}
