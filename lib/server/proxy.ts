import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER } from "@/lib/dw/client";
import type { ConsoleConfig } from "@/lib/server/config";
import { assertServerOnly } from "@/lib/server/server-only";

assertServerOnly("lib/server/proxy");

/**
 * The same-origin read proxy: the browser asks `/api/dw/<path>`, this process adds the token and the
 * namespace and forwards to `<DW_SERVER_URL>/api/<path>`. Only GETs on an allow-list pass, so the
 * browser can read what the console shows and nothing else with the console's credentials.
 */

/** A long-poll (`wait_new_event=1`) is held open by the server for up to ~30 s; leave room for it. */
const LONG_POLL_TIMEOUT_MS = 65_000;

const FORWARDED_RESPONSE_HEADERS = ["content-type", "x-durable-workflow-control-plane-version", "retry-after"];

export function isProxiedPath(segments: readonly string[]): boolean {
  if (segments.length === 0) return false;
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return false;
  const [head, ...rest] = segments;
  switch (head) {
    case "health":
    case "ready":
      return rest.length === 0;
    case "cluster":
      return rest.length === 1 && rest[0] === "info";
    case "namespaces":
      return rest.length <= 1;
    case "system":
      return rest.length >= 1;
    case "workflows":
    case "workers":
    case "task-queues":
      return true;
    default:
      return false;
  }
}

export interface ProxyRequest {
  segments: readonly string[];
  /** The query string as received, with or without its leading `?`. */
  search: string;
  namespace: string;
  signal?: AbortSignal;
}

function errorResponse(status: number, body: Record<string, unknown>): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

export function upstreamUrl(config: ConsoleConfig, segments: readonly string[], search: string): string {
  const path = segments.map((segment) => encodeURIComponent(segment)).join("/");
  const query = search.startsWith("?") ? search.slice(1) : search;
  return `${config.serverUrl}/api/${path}${query ? `?${query}` : ""}`;
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

export async function proxyGet(config: ConsoleConfig, request: ProxyRequest): Promise<Response> {
  if (!isProxiedPath(request.segments)) {
    return errorResponse(404, {
      reason: "not_proxied",
      message: "This path is not readable through the console proxy.",
    });
  }

  const url = upstreamUrl(config, request.segments, request.search);
  const longPoll = new URLSearchParams(request.search).get("wait_new_event") === "1";
  const timeout = AbortSignal.timeout(longPoll ? Math.max(config.timeoutMs, LONG_POLL_TIMEOUT_MS) : config.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;

  const headers: Record<string, string> = {
    Accept: "application/json",
    "X-Namespace": request.namespace,
    [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
  };
  if (config.token) headers.Authorization = `Bearer ${config.token}`;

  let upstream: Response;
  try {
    upstream = await fetch(url, { method: "GET", headers, signal, cache: "no-store", redirect: "manual" });
  } catch (error) {
    if (isTimeout(error)) {
      return errorResponse(504, {
        reason: "server_timeout",
        message: `The Durable Workflow server at ${config.serverHost} did not answer in time.`,
        server: config.serverHost,
      });
    }
    return errorResponse(502, {
      reason: "server_unavailable",
      message: `The Durable Workflow server at ${config.serverHost} is not reachable.`,
      server: config.serverHost,
    });
  }

  // fetch has already decoded any gzip/deflate body, so encoding and length headers must not be copied.
  const responseHeaders = new Headers({ "cache-control": "no-store" });
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) responseHeaders.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
}
