import "server-only";
import { createGzip } from "node:zlib";
import { isDwError } from "@/lib/dw/errors";
import { DwServerUnavailableError } from "@/lib/dw/errors";
import { RUN_VIEW_ENCODING_HEADER, RUN_VIEW_HEADER } from "@/lib/run-view/wire";
import type { ConsoleConfig } from "@/lib/server/process/config";
import type { Subscriber } from "./run-state";

export type CacheOutcome = "hit" | "joined" | "miss" | "extend";

const NDJSON = "application/x-ndjson; charset=utf-8";

export function jsonError(status: number, body: Record<string, unknown>): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A failed describe (or export read) as the read proxy answers it: the server's own envelope and
 * status relayed (404 run_not_found, 401, 403 …), 502/504 with the proxy's reasons when the server
 * cannot be reached, 502 `malformed_response` when its answer broke the contract.
 */
export function errorEnvelope(config: Pick<ConsoleConfig, "serverHost">, error: unknown): Response {
  const server = config.serverHost;
  if (!isDwError(error)) {
    return jsonError(500, { reason: "unknown", message: error instanceof Error ? error.message : String(error) });
  }
  if (error instanceof DwServerUnavailableError && error.unavailableCause === "timeout") {
    return jsonError(504, {
      reason: "server_timeout",
      message: `The Durable Workflow server at ${server} did not answer in time.`,
      server,
    });
  }
  if (error instanceof DwServerUnavailableError && error.unavailableCause === "network") {
    return jsonError(502, {
      reason: "server_unavailable",
      message: `The Durable Workflow server at ${server} is not reachable.`,
      server,
    });
  }
  if (error.reason === "malformed_response") {
    const issuePath = "issuePath" in error ? error.issuePath : "$";
    return jsonError(502, { reason: "malformed_response", message: error.message, issue_path: issuePath, server });
  }
  // The person left before the answer: nobody reads this one.
  if (error.reason === "aborted") return jsonError(499, { reason: "aborted", message: error.message });
  const status = error.httpStatus !== null && error.httpStatus >= 400 ? error.httpStatus : 502;
  if (isRecord(error.body)) return jsonError(status, error.body);
  return jsonError(status, { reason: error.serverReason ?? error.reason, message: error.message });
}

/**
 * The browser asks for a gzip body with `gzip=1` and inflates it itself (DecompressionStream). Not
 * Content-Encoding: Next drops that header from a route handler's response
 * (next/dist/server/send-response.js FORBIDDEN_HEADERS), and its own compression leaves NDJSON
 * alone (not a compressible type) — and would gzip a cached answer again on every repeat view.
 */
export function wantsGzip(request: Request): boolean {
  return new URL(request.url).searchParams.get("gzip") === "1";
}

/**
 * A gzip answer says what its bytes are: `application/gzip`, not NDJSON text in UTF-8. Labelled as
 * text, a browser with DevTools' network panel attached (and the bench's and tests' Playwright)
 * decoded the whole compressed body as UTF-8 when it ended: one long task on the page's main
 * thread for a large run (decision 0038).
 */
const GZIP = "application/gzip";

function viewHeaders(outcome: CacheOutcome, gzip: boolean): Headers {
  const type = gzip ? GZIP : NDJSON;
  const headers = new Headers({ "content-type": type, "cache-control": "no-store", [RUN_VIEW_HEADER]: outcome });
  if (gzip) headers.set(RUN_VIEW_ENCODING_HEADER, "gzip");
  return headers;
}

/** A finished answer from buffers (a cache hit): no JSON work, one write per buffer. */
export function bufferedView(outcome: CacheOutcome, parts: readonly Buffer[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: viewHeaders(outcome, false) });
}

/** A Buffer as a body without a copy (a Node Buffer is a Uint8Array over a possibly pooled ArrayBuffer). */
export function bodyOf(bytes: Buffer): BodyInit {
  return bytes as unknown as Uint8Array<ArrayBuffer>;
}

export function gzippedView(outcome: CacheOutcome, gzip: Buffer): Response {
  return new Response(bodyOf(gzip), {
    status: 200,
    headers: viewHeaders(outcome, true),
  });
}

/**
 * A streamed answer: a subscriber whose lines go out as they come (gzip flushed after each batch,
 * so a page's lines reach the browser at once), and `onGone` called once when the person leaves
 * (request aborted or body cancelled) before the end. The web stream is fed by hand rather than
 * through `Readable.toWeb`, whose adapter can enqueue after a cancel and throw. It takes the request,
 * not only its signal, and keeps it until the end: a Request's signal follows its init signal
 * through a weak reference, so a collected request would stop the abort from arriving (see
 * lib/server/kikwiflow/pulse-relay.ts).
 */
export function streamedView(
  outcome: CacheOutcome,
  gzip: boolean,
  request: Request,
  onGone: (subscriber: Subscriber) => void,
): { response: Response; subscriber: Subscriber } {
  const signal = request.signal;
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let open = true;
  let ended = false;
  const push = (bytes: Uint8Array) => {
    if (open) controller?.enqueue(bytes);
  };
  const close = () => {
    if (!open) return;
    open = false;
    controller?.close();
  };
  const zip = gzip ? createGzip() : null;
  zip?.on("data", push);
  zip?.on("end", close);
  const subscriber: Subscriber = {
    write(lines) {
      if (ended) return;
      if (zip === null) for (const line of lines) push(line);
      else {
        for (const line of lines) zip.write(line);
        zip.flush();
      }
    },
    end() {
      if (ended) return;
      ended = true;
      if (zip === null) close();
      else zip.end();
    },
  };
  const gone = (cancelled: boolean) => {
    // Through `request`: this closure is what holds it while the answer streams.
    request.signal.removeEventListener("abort", onAbort);
    if (ended) return;
    ended = true;
    onGone(subscriber);
    zip?.destroy();
    if (cancelled) open = false;
    else close();
  };
  const onAbort = () => gone(false);
  signal.addEventListener("abort", onAbort, { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      gone(true);
    },
  });
  return { response: new Response(body, { status: 200, headers: viewHeaders(outcome, gzip) }), subscriber };
}
