import "server-only";
import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER } from "@/lib/dw/client";
import { MALFORMED_UPSTREAM_REASON } from "@/lib/dw/errors";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { matchEndpoint } from "@/lib/dw/endpoints";
import type { EndpointMatch } from "@/lib/dw/endpoints";
import { requestDecoder, responseContract } from "@/lib/server/proxy/validation";
import type { ResponseContract } from "@/lib/server/proxy/validation";
import { getLogger, loggedFetch } from "@/lib/server/process/log";
import { credentialHeaders } from "@/lib/server/proxy/credentials";
import { exportFailureResponse, startExportStream } from "@/lib/server/proxy/export-stream";
import type { CachedAnswer } from "@/lib/server/proxy/closed-run-cache";
import {
  closedRunCache,
  closedRunKey,
  closedRunRead,
  credentialFingerprint,
  isClosedAnswer,
} from "@/lib/server/proxy/closed-run-cache";
import { longPollLimitFor } from "@/lib/server/proxy/long-poll";

/**
 * The same-origin read proxy: the browser asks `/api/dw/<path>`, this process adds the person's token and the
 * namespace and forwards to `<DW_SERVER_URL>/api/<path>`. Only the reads declared in lib/dw/endpoints.ts
 * pass (GETs, and POSTs that read such as a workflow query), so the browser can read what the console
 * shows and nothing else with the console's credentials. Bodies the console reads are validated here
 * (validation.ts) and re-serialised from the parsed value; a contract break is answered 502
 * `malformed_response` with the offending field. Declared paths no console screen parses (e.g.
 * `namespaces/<name>`) are relayed as they are.
 * The history export is neither parsed nor buffered: it is streamed as the download is
 * (lib/server/proxy/export-stream.ts), under the same size limit.
 */

const FORWARDED_RESPONSE_HEADERS = ["content-type", "x-durable-workflow-control-plane-version", "retry-after"];

/** The declared read a request names, if the browser may send it through the proxy. */
export function proxiedEndpoint(method: string, segments: readonly string[]): EndpointMatch | null {
  const match = matchEndpoint(method, segments);
  return match !== null && match.spec.proxy !== false ? match : null;
}

export function isProxiedPath(segments: readonly string[]): boolean {
  return proxiedEndpoint("GET", segments) !== null;
}

/**
 * Server-wide reads: they answer the same in every namespace, so they may come without one. Every
 * other proxied path reads a namespace's data and must name it (docs/decisions/0017).
 */
export function isNamespaceFree(segments: readonly string[]): boolean {
  return matchEndpoint("GET", segments)?.spec.scope === "server";
}

export interface ProxyRequest {
  segments: readonly string[];
  /**
   * The token of the person this call is made for (lib/server/proxy/dw-client.ts `tokenForRequest`), never the
   * process-wide `config.token`: that prefers DW_ADMIN_TOKEN, and a viewer's call must not carry it.
   */
  token: string | null;
  /** The query string as received, with or without its leading `?`. */
  search: string;
  /**
   * The namespace the browser named in `X-Namespace` (validated), or null when it named none (or
   * an invalid one): then only {@link isNamespaceFree} paths pass. There is no fallback — not to a
   * cookie, not to DW_NAMESPACE — so a tab never reads another namespace than the one it shows.
   */
  namespace: string | null;
  signal?: AbortSignal;
  /** The client's Accept-Encoding, for the export relay (gzip passes through when the client takes it). */
  acceptEncoding?: string | null;
}

function errorResponse(status: number, body: Record<string, unknown>): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

export function upstreamUrl(config: ConsoleConfig, segments: readonly string[], search: string): string {
  const path = segments.map((segment) => encodeURIComponent(segment)).join("/");
  const query = search.startsWith("?") ? search.slice(1) : search;
  return `${config.serverUrl}/api/${path}${query ? `?${query}` : ""}`;
}

/** The answer to a namespaced read or action that names no (valid) namespace. */
export function namespaceRequired(): Response {
  return errorResponse(400, {
    reason: "namespace_required",
    message: "Name the namespace in the X-Namespace header (letters, digits, '.', '_' or '-'; at most 128).",
    httpStatus: 400,
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

function isHistoryExport(segments: readonly string[]): boolean {
  return matchEndpoint("GET", segments)?.spec.proxy === "stream";
}

/**
 * A history long-poll follows the server's advertised hold (cluster/info `long_poll_timeout`, i.e.
 * its DW_WORKER_POLL_TIMEOUT); the export, which the real server builds in one go, has its own limit.
 */
export async function readTimeoutMs(
  config: ConsoleConfig,
  request: Pick<ProxyRequest, "segments" | "search">,
  learnLongPollLimit: (config: ConsoleConfig) => Promise<number> = longPollLimitFor,
): Promise<number> {
  if (new URLSearchParams(request.search).get("wait_new_event") === "1") {
    return Math.max(config.timeoutMs, await learnLongPollLimit(config));
  }
  return isHistoryExport(request.segments) ? Math.max(config.timeoutMs, config.exportTimeoutMs) : config.timeoutMs;
}

function notProxied(): Response {
  return errorResponse(404, {
    reason: "not_proxied",
    message: "This path is not readable through the console proxy.",
  });
}

export async function proxyGet(config: ConsoleConfig, request: ProxyRequest): Promise<Response> {
  const match = proxiedEndpoint("GET", request.segments);
  if (match === null) return notProxied();
  if (request.namespace === null && match.spec.scope !== "server") return namespaceRequired();
  if (match.spec.proxy === "stream") return relayExport(config, request, match);

  const credentials = await credentialHeaders(config, request.token, "");
  const read = closedRunRead(request.segments);
  const cacheKey =
    read === null || request.namespace === null
      ? null
      : closedRunKey(credentialFingerprint(credentials), request.namespace, request.segments, request.search);
  const hit = cacheKey === null ? undefined : closedRunCache().get(cacheKey);
  if (hit !== undefined) return cachedResponse(hit);
  const response = await forward(config, request, match, credentials, (value, answer) => {
    // Only a closed run's answer: an open run's describe and debug change with every event.
    if (cacheKey !== null && read !== null && answer.status === 200 && isClosedAnswer(read, value))
      closedRunCache().set(cacheKey, answer);
  });
  if (cacheKey !== null) response.headers.set(CACHE_HEADER, "miss");
  return response;
}

/** A POST that reads needs no more than this; a bigger body is refused before it is parsed. */
export const READ_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * A POST that reads (a workflow query, lib/dw/endpoints.ts): the body is checked against the entry's
 * request schema, then sent with the person's credentials (a signature covers exactly these bytes)
 * and the answer validated like a GET's. Never cached: a query's answer is the workflow's state now.
 */
export async function proxyPost(config: ConsoleConfig, request: ProxyRequest & { body: string }): Promise<Response> {
  const match = proxiedEndpoint("POST", request.segments);
  if (match === null) return notProxied();
  if (request.namespace === null && match.spec.scope !== "server") return namespaceRequired();
  if (Buffer.byteLength(request.body) > READ_BODY_LIMIT_BYTES)
    return invalidRequest(413, "$", `the body is over ${READ_BODY_LIMIT_BYTES} bytes`);
  const decoder = requestDecoder(match.spec);
  if (decoder !== null) {
    let json: unknown;
    try {
      json = request.body === "" ? {} : JSON.parse(request.body);
    } catch {
      return invalidRequest(400, "$", "not JSON");
    }
    const decoded = decoder(json);
    if (!decoded.ok) return invalidRequest(400, decoded.issuePath, decoded.message);
  }
  const credentials = await credentialHeaders(config, request.token, request.body);
  return forward(config, request, match, credentials, () => undefined, request.body);
}

function invalidRequest(status: number, issuePath: string, problem: string): Response {
  return errorResponse(status, {
    reason: "invalid_request",
    message: `The request body does not fit this read at ${issuePath}: ${problem}`,
    issue_path: issuePath,
    httpStatus: status,
  });
}

/** Why an answer came from the closed-run cache: the header lets tests and operators see it. */
export const CACHE_HEADER = "x-breakwater-cache";

function cachedResponse(answer: CachedAnswer): Response {
  const headers = new Headers(answer.headers as [string, string][]);
  headers.set(CACHE_HEADER, "hit");
  return new Response(answer.body, { status: answer.status, headers });
}

type OnValid = (value: unknown, answer: CachedAnswer) => void;

async function forward(
  config: ConsoleConfig,
  request: ProxyRequest,
  match: EndpointMatch,
  credentials: Record<string, string>,
  onValid: OnValid,
  body?: string,
): Promise<Response> {
  const url = upstreamUrl(config, request.segments, request.search);
  const headers: Record<string, string> = {
    Accept: "application/json",
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    ...(request.namespace === null ? {} : { "X-Namespace": request.namespace }),
    [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
    // A GET has no body: under the signature driver it carries the HMAC of "" (a POST, of its body).
    ...credentials,
  };
  const timeout = AbortSignal.timeout(await readTimeoutMs(config, request));
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;

  try {
    // Logged with a request id (sent as X-Request-Id), like every other call to the server.
    const upstream = await loggedFetch(getLogger())(url, {
      method: match.spec.method,
      headers,
      body,
      signal,
      cache: "no-store",
      redirect: "manual",
    });
    // fetch has already decoded any gzip/deflate body, so encoding and length headers must not be copied.
    const responseHeaders = new Headers({ "cache-control": "no-store" });
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) responseHeaders.set(name, value);
    }
    const contract = responseContract(match.spec);
    if (contract === null || !contract.statuses.includes(upstream.status)) {
      return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
    }
    const text = await upstream.text();
    return validated(config, request.segments, upstream.status, text, contract, responseHeaders, onValid);
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
}

async function relayExport(config: ConsoleConfig, request: ProxyRequest, match: EndpointMatch): Promise<Response> {
  const { workflowId = "", runId = "" } = match.params;
  const started = await startExportStream(config, {
    workflowId,
    runId,
    namespace: request.namespace ?? "",
    token: request.token,
    acceptEncoding: request.acceptEncoding ?? null,
    signal: request.signal,
  });
  if (started.ok) return started.response;
  return exportFailureResponse(started.failure, { serverHost: config.serverHost });
}

function validated(
  config: ConsoleConfig,
  segments: readonly string[],
  status: number,
  text: string,
  contract: ResponseContract,
  headers: Headers,
  onValid: OnValid,
): Response {
  const malformed = (issuePath: string, problem: string): Response =>
    errorResponse(502, {
      reason: MALFORMED_UPSTREAM_REASON,
      message: `The Durable Workflow server at ${config.serverHost} answered /api/${segments.join("/")} with an unexpected body at ${issuePath}: ${problem}`,
      issue_path: issuePath,
      server: config.serverHost,
    });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return malformed("$", "not JSON");
  }
  const decoded = contract.decoder(json);
  if (!decoded.ok) return malformed(decoded.issuePath, decoded.message);
  headers.set("content-type", "application/json");
  // The parsed value, not the original text: normalisations (PHP `[]` maps → `{}`) reach the browser.
  const body = JSON.stringify(decoded.value);
  onValid(decoded.value, { status, body, headers: [...headers.entries()] });
  return new Response(body, { status, headers });
}
