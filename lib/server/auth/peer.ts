import { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { Server as HttpsServer } from "node:https";

/**
 * Next.js gives route handlers and proxy.ts no peer address, and `next start` fills
 * `X-Forwarded-For` only when the client did not send one, so that header is whatever the caller
 * chose. This stamp, installed from instrumentation.ts before the first request, writes the socket's
 * remote address into PEER_HEADER on every incoming request, replacing anything the client sent.
 * Proxy-mode identity headers are believed only when this stamp is installed in the process
 * (docs/decisions/0009).
 */

export const PEER_HEADER = "x-breakwater-peer";
/**
 * Header names the client sent more than once, comma-separated. Node joins repeated custom headers
 * with ", ", so `X-Forwarded-Groups: readers` twice-headered with `ops-admins` would read as one
 * list; only the raw headers tell them apart (proxy.ts refuses repeated identity headers).
 */
export const REPEATED_HEADER = "x-breakwater-repeated";
const INSTALLED = Symbol.for("breakwater.peer-stamp");
const LOOPBACK_ONLY = Symbol.for("breakwater.loopback-only");
const SERVE_FIRST = Symbol.for("breakwater.serve-first");

/** Answers a request before Next.js and returns true, or returns false and leaves it to Next.js. */
export type ServeFirst = (request: IncomingMessage, response: ServerResponse) => boolean;

/** 127.0.0.0/8, ::1 and their IPv4-mapped form. */
export function isLoopbackAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  const plain = address.replace(/^::ffff:/i, "");
  return plain === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

function repeatedNames(raw: readonly string[]): string {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [i, entry] of raw.entries()) {
    if (i % 2 === 1) continue; // rawHeaders alternates name, value
    const name = entry.toLowerCase();
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  return [...repeated].join(",");
}

/**
 * With no console authentication, a connection that arrived on a non-loopback interface is refused
 * here, before Next.js sees it: the console serves loopback only whatever it was bound to.
 */
function refusedOffLoopback(request: IncomingMessage, response: unknown): boolean {
  if (!(globalThis as { [LOOPBACK_ONLY]?: boolean })[LOOPBACK_ONLY] || isLoopbackAddress(request.socket.localAddress))
    return false;
  if (response instanceof ServerResponse) {
    response.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    response.end("Refused: this console has no authentication (BREAKWATER_AUTH) and answers on loopback only.\n");
  } else {
    request.socket.destroy();
  }
  return true;
}

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;

function patch(prototype: { emit: Emit }): void {
  const original = prototype.emit;
  prototype.emit = function stampPeer(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    const request = args[0];
    if (event === "request" && request instanceof IncomingMessage) {
      if (refusedOffLoopback(request, args[1])) return true;
      const first = (globalThis as { [SERVE_FIRST]?: ServeFirst })[SERVE_FIRST];
      if (first && args[1] instanceof ServerResponse && first(request, args[1])) return true;
      request.headers[PEER_HEADER] = request.socket.remoteAddress ?? "";
      request.headers[REPEATED_HEADER] = repeatedNames(request.rawHeaders);
    }
    return original.call(this, event, ...args);
  };
}

/**
 * `loopbackOnly`: refuse connections that did not arrive on a loopback address (no console auth).
 * `serveFirst`: what the console answers itself, after that refusal and before Next.js (the build's
 * compressed script and style files, lib/server/static-assets.ts).
 */
export function installPeerStamp(options: { loopbackOnly?: boolean; serveFirst?: ServeFirst } = {}): void {
  const registry = globalThis as { [INSTALLED]?: boolean; [LOOPBACK_ONLY]?: boolean; [SERVE_FIRST]?: ServeFirst };
  registry[LOOPBACK_ONLY] = options.loopbackOnly === true;
  registry[SERVE_FIRST] = options.serveFirst;
  if (registry[INSTALLED]) return;
  patch(HttpServer.prototype as unknown as { emit: Emit });
  if (HttpsServer.prototype.emit !== HttpServer.prototype.emit)
    patch(HttpsServer.prototype as unknown as { emit: Emit });
  registry[INSTALLED] = true;
}

export function peerStampInstalled(): boolean {
  return (globalThis as { [INSTALLED]?: boolean })[INSTALLED] === true;
}
