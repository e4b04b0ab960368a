import "server-only";
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Logger } from "pino";
import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER } from "@/lib/dw/client";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { getLogger, REQUEST_ID_HEADER } from "@/lib/server/process/log";
import { credentialHeaders } from "@/lib/server/proxy/credentials";

/**
 * The history export relayed byte for byte (issue 14 item 3): undecoded and unparsed, so the
 * bundle's integrity checksum still covers what the browser saves. A caller whose client can decode
 * gzip may ask the server for it (`acceptEncoding`); the console's routes ask for identity, because
 * Next drops Content-Encoding from route handlers and compresses JSON answers itself.
 * Node's global fetch always decodes, hence node:http. The body is pulled: the upstream socket is
 * paused while the browser is slower than the server, so a slow download holds a few socket
 * buffers here, not the whole bundle.
 */

/** Bytes queued towards the browser before the upstream socket is paused. */
const QUEUE_BYTES = 1024 * 1024;
/** An error answer is read whole to relay it; one larger than this is not an error envelope. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
const RELAYED_HEADERS = [
  "content-type",
  "content-encoding",
  "content-length",
  "x-durable-workflow-control-plane-version",
] as const;

export interface ExportStreamRequest {
  workflowId: string;
  runId: string;
  namespace: string;
  /** The signed-in person's token (lib/server/proxy/dw-client.ts `tokenForRequest`). */
  token: string | null;
  /** The client's Accept-Encoding: gzip is asked for only when the client can decode it. */
  acceptEncoding: string | null;
  /** Aborts the upstream request when the client leaves. */
  signal?: AbortSignal;
  logger?: Logger;
}

/** Why no stream started: the status to answer with and what to say. */
export interface ExportFailure {
  status: number;
  reason: string;
  message: string;
  /** The server's own error answer (decoded), relayed to non-browser clients as it was. */
  upstream?: { body: string; contentType: string };
}

export type ExportStart = { ok: true; response: Response } | { ok: false; failure: ExportFailure };

class ExportTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The history export is larger than the console's limit of ${formatMb(limitBytes)}.`);
    this.name = "ExportTooLargeError";
  }
}

export function formatMb(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

export function exportUpstreamUrl(config: Pick<ConsoleConfig, "serverUrl">, workflowId: string, runId: string): URL {
  const path = ["workflows", workflowId, "runs", runId, "history", "export"].map(encodeURIComponent).join("/");
  return new URL(`${config.serverUrl}/api/${path}`);
}

function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** `ms` of silence from the server (waiting for the answer, or between chunks) ends the export. */
export function exportIdleTimeoutMs(config: Pick<ConsoleConfig, "timeoutMs" | "exportTimeoutMs">): number {
  return Math.max(config.timeoutMs, config.exportTimeoutMs);
}

interface Upstream {
  request: ClientRequest;
  response: IncomingMessage;
}

function openUpstream(url: URL, headers: OutgoingHttpHeaders, idleMs: number, signal?: AbortSignal): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(url, { method: "GET", headers, signal });
    // Socket inactivity: covers a server that builds the bundle in one go (the real one does) and one that stalls.
    request.setTimeout(idleMs, () => request.destroy(new DOMException("upstream idle", "TimeoutError")));
    request.once("response", (response) => resolve({ request, response }));
    request.once("error", reject);
    request.end();
  });
}

function readSmallBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > ERROR_BODY_MAX_BYTES) response.destroy();
      else chunks.push(chunk);
    });
    response.once("end", () => {
      const raw = Buffer.concat(chunks);
      try {
        const encoding = String(response.headers["content-encoding"] ?? "").toLowerCase();
        const decoded =
          encoding === "gzip"
            ? gunzipSync(raw)
            : encoding === "deflate"
              ? inflateSync(raw)
              : encoding === "br"
                ? brotliDecompressSync(raw)
                : raw;
        resolve(decoded.toString("utf8"));
      } catch {
        resolve("");
      }
    });
    response.once("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.once("error", reject);
  });
}

function upstreamMessage(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null && "message" in parsed && typeof parsed.message === "string")
      return parsed.message;
  } catch {
    // Not JSON (a gateway's HTML page): the status says enough.
  }
  return null;
}

function refusal(status: number, serverHost: string, body: string): Pick<ExportFailure, "reason" | "message"> {
  const said = upstreamMessage(body);
  switch (status) {
    case 401:
      return {
        reason: "unauthorized",
        message: said ?? "The Durable Workflow server refused the console's credentials.",
      };
    case 403:
      return { reason: "forbidden", message: said ?? "This export needs the operator or admin role." };
    case 404:
      return { reason: "run_not_found", message: said ?? "The Durable Workflow server does not know this run." };
    default:
      return {
        reason: status >= 500 ? "server_error" : "export_failed",
        message: said ?? `The Durable Workflow server at ${serverHost} answered the export with HTTP ${status}.`,
      };
  }
}

/**
 * Starts the export: resolves once the server answered (or failed to), before any byte of the
 * bundle is relayed, so a failure can still be answered with a page or an error envelope.
 */
export async function startExportStream(config: ConsoleConfig, req: ExportStreamRequest): Promise<ExportStart> {
  const logger = req.logger ?? getLogger();
  const url = exportUpstreamUrl(config, req.workflowId, req.runId);
  const requestId = randomUUID();
  const headers: OutgoingHttpHeaders = {
    Accept: "application/json",
    "Accept-Encoding": acceptsGzip(req.acceptEncoding) ? "gzip" : "identity",
    "X-Namespace": req.namespace,
    [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
    [REQUEST_ID_HEADER]: requestId,
    // A GET has no body: under the signature driver it carries the HMAC of "".
    ...(await credentialHeaders(config, req.token, "")),
  };
  const started = performance.now();
  const took = () => Math.round((performance.now() - started) * 10) / 10;
  const entry = { requestId, method: "GET", path: url.pathname };
  let upstream: Upstream;
  try {
    upstream = await openUpstream(url, headers, exportIdleTimeoutMs(config), req.signal);
  } catch (error) {
    logger.warn({ ...entry, status: null, durationMs: took(), failure: failureName(error) }, "dw call failed");
    return { ok: false, failure: connectFailure(config, error, req.signal) };
  }
  const { response, request } = upstream;
  const status = response.statusCode ?? 502;
  logger[status >= 500 ? "warn" : "info"]({ ...entry, status, durationMs: took() }, "dw call");
  if (status !== 200) {
    const body = await readSmallBody(response).catch(() => "");
    const contentType = String(response.headers["content-type"] ?? "application/json");
    return {
      ok: false,
      failure: { status, ...refusal(status, config.serverHost, body), upstream: { body, contentType } },
    };
  }
  const declared = Number(response.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > config.exportMaxBytes) {
    request.destroy();
    logger.warn({ ...entry, contentLength: declared, limitBytes: config.exportMaxBytes }, "export refused: too large");
    return { ok: false, failure: tooLarge(config.exportMaxBytes, declared) };
  }
  const relayed = new Headers({ "cache-control": "no-store" });
  for (const name of RELAYED_HEADERS) {
    const value = response.headers[name];
    if (typeof value === "string") relayed.set(name, value);
  }
  if (relayed.has("content-encoding")) relayed.set("vary", "Accept-Encoding");
  const body = relay(upstream, config.exportMaxBytes, req.signal, (outcome, bytes) => {
    const done = { ...entry, bytes, durationMs: took(), limitBytes: config.exportMaxBytes };
    if (outcome === "complete") logger.info(done, "export relayed");
    else if (outcome === "client_left") logger.info(done, "export cancelled: the client left");
    else if (outcome === "too_large") logger.warn(done, "export aborted: past the size limit");
    else logger.warn({ ...done, failure: outcome }, "export aborted: the server's stream failed");
  });
  return { ok: true, response: new Response(body, { status: 200, headers: relayed }) };
}

function failureName(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  const code = "code" in error ? String(error.code) : null;
  return code ? `${error.name} (${code})` : error.name;
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

function connectFailure(config: ConsoleConfig, error: unknown, signal: AbortSignal | undefined): ExportFailure {
  if (signal?.aborted) return { status: 499, reason: "client_closed", message: "The download was cancelled." };
  if (isTimeout(error))
    return {
      status: 504,
      reason: "server_timeout",
      message: `The Durable Workflow server at ${config.serverHost} did not answer in time.`,
    };
  return {
    status: 502,
    reason: "server_unavailable",
    message: `The Durable Workflow server at ${config.serverHost} is not reachable.`,
  };
}

function tooLarge(limitBytes: number, size: number): ExportFailure {
  return {
    status: 413,
    reason: "export_too_large",
    message: `This run's history export is ${formatMb(size)}, more than the console relays (${formatMb(limitBytes)}, BREAKWATER_EXPORT_MAX_MB).`,
  };
}

type Outcome = "complete" | "client_left" | "too_large" | string;

/**
 * The upstream body as a pulled stream: chunks are queued up to {@link QUEUE_BYTES}, then the
 * socket is paused until the consumer pulls again. Past `limitBytes` the stream errors (the
 * browser sees a failed download, not a truncated file) and the upstream request is destroyed.
 */
function relay(
  { request, response }: Upstream,
  limitBytes: number,
  signal: AbortSignal | undefined,
  onDone: (outcome: Outcome, bytes: number) => void,
): ReadableStream<Uint8Array> {
  let bytes = 0;
  let settled = false;
  const settle = (outcome: Outcome) => {
    if (settled) return false;
    settled = true;
    onDone(outcome, bytes);
    return true;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        response.on("data", (chunk: Buffer) => {
          if (settled) return;
          bytes += chunk.length;
          if (bytes > limitBytes) {
            settle("too_large");
            request.destroy();
            controller.error(new ExportTooLargeError(limitBytes));
            return;
          }
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) response.pause();
        });
        response.once("end", () => {
          if (settle("complete")) controller.close();
        });
        // A reset or a timeout mid-body: the download fails rather than ending short.
        const fail = (error?: Error) => {
          const why = signal?.aborted ? "client_left" : failureName(error ?? new Error("closed before the end"));
          if (settle(why)) {
            request.destroy();
            controller.error(error ?? new Error("The server closed the export before its end."));
          }
        };
        response.once("error", fail);
        request.once("error", fail);
        response.once("close", () => {
          if (!response.complete) fail();
        });
      },
      pull() {
        response.resume();
      },
      cancel() {
        settle("client_left");
        request.destroy();
      },
    },
    { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** The words of the error page, in the person's locale (messages/en.json `exportDownload`). */
export interface ExportPageWords {
  lang: string;
  title: string;
  heading: string;
  back: string;
  /** What a failure's status means for the person; the failure's own message follows it. */
  explain: (failure: ExportFailure) => string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * A failed download as an answer: with `page` (a navigation: the person clicked the link) a small page with the reason and a way back to the run, anything else the JSON it got before
 * (the server's own error body, or the console's envelope). The status is kept either way.
 */
export function exportFailureResponse(
  failure: ExportFailure,
  options: { serverHost: string; page?: { words: ExportPageWords; runHref: string } },
): Response {
  const headers = { "cache-control": "no-store" };
  if (options.page) {
    const { words, runHref } = options.page;
    const page = [
      "<!doctype html>",
      `<html lang="${escapeHtml(words.lang)}"><head><meta charset="utf-8"><title>${escapeHtml(words.title)}</title></head><body>`,
      `<main><h1>${escapeHtml(words.heading)}</h1>`,
      `<p data-reason="${escapeHtml(failure.reason)}">${escapeHtml(words.explain(failure))}</p>`,
      `<p>${escapeHtml(failure.message)}</p>`,
      `<p><a href="${escapeHtml(runHref)}">${escapeHtml(words.back)}</a></p></main>`,
      "</body></html>",
      "",
    ].join("\n");
    return new Response(page, {
      status: failure.status,
      headers: { ...headers, "content-type": "text/html; charset=utf-8" },
    });
  }
  if (failure.upstream && upstreamMessage(failure.upstream.body) !== null)
    return new Response(failure.upstream.body, {
      status: failure.status,
      headers: { ...headers, "content-type": failure.upstream.contentType },
    });
  return Response.json(
    { reason: failure.reason, message: failure.message, httpStatus: failure.status, server: options.serverHost },
    { status: failure.status, headers },
  );
}
