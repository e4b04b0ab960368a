import { randomBytes, timingSafeEqual } from "node:crypto";
import type { EventEmitter } from "node:events";
import { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { Server as HttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import { clientAddressOf } from "./trusted-proxies";
import type { TrustedProxies } from "./trusted-proxies";

/**
 * Next.js gives route handlers and proxy.ts no peer address, and `next start` fills
 * `X-Forwarded-For` only when the client did not send one, so that header is whatever the caller
 * chose. This stamp, installed from instrumentation.ts before the first request, writes the socket's
 * remote address into PEER_HEADER on every incoming request, replacing anything the client sent,
 * and deletes the forwarded headers (FORWARDED_HEADERS) of every peer that is not a trusted proxy.
 * Proxy-mode identity headers are believed only for a request this stamp saw (stampedPeer,
 * docs/decisions/0009).
 */

export const PEER_HEADER = "x-breakwater-peer";
/**
 * Header names the client sent more than once, comma-separated. Node joins repeated custom headers
 * with ", ", so `X-Forwarded-Groups: readers` twice-headered with `ops-admins` would read as one
 * list; only the raw headers tell them apart (proxy.ts refuses repeated identity headers).
 */
export const REPEATED_HEADER = "x-breakwater-repeated";
/**
 * This process's random marker, written by the stamp on every request it saw (any client copy
 * replaced). `next start` listens before instrumentation installs the stamp, so a request in that gap
 * reaches proxy.ts unstamped with whatever PEER_HEADER the client chose; only the marker tells a
 * stamped request from it (stampedPeer).
 */
export const STAMP_HEADER = "x-breakwater-stamp";
const INSTALLED = Symbol.for("breakwater.peer-stamp");
const LOOPBACK_ONLY = Symbol.for("breakwater.loopback-only");
const SERVE_FIRST = Symbol.for("breakwater.serve-first");
const TRUSTED = Symbol.for("breakwater.trusted-proxies");
const PER_ADDRESS = Symbol.for("breakwater.requests-per-address");
const IN_FLIGHT = Symbol.for("breakwater.in-flight-by-address");
const MARKER = Symbol.for("breakwater.peer-stamp-marker");

/**
 * Headers a reverse proxy writes about the client's connection (scheme, host, port, address, path
 * prefix). From a peer that is not in BREAKWATER_TRUSTED_PROXIES they are the caller's invention, and
 * Next itself believes some of them (`X-Forwarded-Proto: https` makes `request.nextUrl` https), so
 * the stamp deletes them before Next sees the request. Next then fills the `X-Forwarded-*` it needs
 * from the socket. Identity headers (X-Forwarded-User …) are left to proxy-mode authentication,
 * which ignores them from such a peer and logs that it did.
 */
export const FORWARDED_HEADERS = [
  "forwarded",
  "x-forwarded-proto",
  "x-forwarded-protocol",
  "x-forwarded-scheme",
  "x-forwarded-ssl",
  "x-forwarded-host",
  "x-forwarded-server",
  "x-forwarded-port",
  "x-forwarded-for",
  "x-forwarded-prefix",
  "x-real-ip",
  "x-url-scheme",
  "front-end-https",
] as const;

type Registry = {
  [INSTALLED]?: boolean;
  [LOOPBACK_ONLY]?: boolean;
  [SERVE_FIRST]?: ServeFirst;
  [TRUSTED]?: TrustedProxies;
  [PER_ADDRESS]?: number;
  [IN_FLIGHT]?: Map<string, number>;
  [MARKER]?: string;
};

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
  if (!(globalThis as Registry)[LOOPBACK_ONLY] || isLoopbackAddress(request.socket.localAddress)) return false;
  if (response instanceof ServerResponse) {
    response.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    response.end("Refused: this console has no authentication (BREAKWATER_AUTH) and answers on loopback only.\n");
  } else {
    request.socket.destroy();
  }
  return true;
}

/** Deletes the forwarded headers unless the socket's peer is a trusted proxy (none trusted when unset). */
function stripUntrustedForwarded(request: IncomingMessage, peer: string): void {
  if ((globalThis as Registry)[TRUSTED]?.includes(peer) === true) return;
  for (const name of FORWARDED_HEADERS) delete request.headers[name];
}

/**
 * Requests one client address may have in flight before Next sees them (BREAKWATER_REQUESTS_PER_ADDRESS):
 * every request through Next costs milliseconds of its pipeline before any route can refuse it, so
 * 2,000 concurrent requests from one client delayed everyone's read by 20 s even when each was a
 * trivial one. Refused here, one costs microseconds. The client is the peer, or behind a trusted
 * proxy its X-Forwarded-For client; a place is given back when the response closes (sent, or the
 * connection dropped). Per-person limits on reads and streams come after, in the routes
 * (lib/server/proxy/person-limits.ts).
 */
function admitted(request: IncomingMessage, response: ServerResponse, peer: string): boolean {
  return admittedFor(request, peer, {
    refuse: (limit) => {
      const body = JSON.stringify({
        reason: "too_many_in_flight",
        message: `Your address has ${limit} requests to this console in flight already; wait for them or try again in 1 s.`,
        httpStatus: 429,
      });
      response.writeHead(429, { "content-type": "application/json", "cache-control": "no-store", "retry-after": "1" });
      response.end(body);
    },
    // Node emits the response's `close` only for the response bound to the socket: when a connection
    // with pipelined requests drops, the queued ones see only their request's `close`. Whichever first.
    ends: [response, request],
  });
}

/** The per-address bound for a request or an upgrade: `refuse` answers one over it, `ends` free its place. */
function admittedFor(
  request: IncomingMessage,
  peer: string,
  how: { refuse: (limit: number) => void; ends: EventEmitter[] },
): boolean {
  const registry = globalThis as Registry;
  const limit = registry[PER_ADDRESS];
  if (limit === undefined) return true;
  const trusted = registry[TRUSTED];
  const forwardedFor = request.headers["x-forwarded-for"];
  const client = trusted
    ? clientAddressOf(trusted, typeof forwardedFor === "string" ? forwardedFor : null, peer)
    : peer;
  const counts = (registry[IN_FLIGHT] ??= new Map());
  const held = counts.get(client) ?? 0;
  if (held >= limit) {
    how.refuse(limit);
    return false;
  }
  counts.set(client, held + 1);
  const release = () => {
    for (const end of how.ends) end.off("close", release);
    const left = (counts.get(client) ?? 1) - 1;
    if (left <= 0) counts.delete(client);
    else counts.set(client, left);
  };
  for (const end of how.ends) end.once("close", release);
  return true;
}

/** Requests `client` has in flight through the stamp now (for tests and the log). */
export function requestsInFlightFrom(client: string): number {
  return (globalThis as Registry)[IN_FLIGHT]?.get(client) ?? 0;
}

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;

/** Writes what the stamp vouches for: the socket's peer and this process's marker (stampedPeer). */
function stamp(request: IncomingMessage, peer: string): void {
  request.headers[PEER_HEADER] = peer;
  request.headers[STAMP_HEADER] = (globalThis as Registry)[MARKER] ?? "";
  stripUntrustedForwarded(request, peer);
  request.headers[REPEATED_HEADER] = repeatedNames(request.rawHeaders);
}

/**
 * An upgrade (websocket) request: `next start` handles it, running proxy.ts on it. The console has
 * no websockets in production, so there it is closed unread; under `next dev` (its HMR socket) it
 * is stamped and counted like a request, its place held until the socket closes.
 */
function upgraded(request: IncomingMessage, socket: unknown): boolean {
  if (process.env.NODE_ENV === "production" || !isDuplex(socket)) {
    request.socket.destroy();
    return false;
  }
  if (refusedOffLoopback(request, socket)) return false;
  const peer = request.socket.remoteAddress ?? "";
  if (!admittedFor(request, peer, { refuse: () => socket.destroy(), ends: [socket] })) return false;
  stamp(request, peer);
  return true;
}

function isDuplex(value: unknown): value is Duplex {
  return typeof value === "object" && value !== null && "destroy" in value && "once" in value;
}

function patch(prototype: { emit: Emit }): void {
  const original = prototype.emit;
  prototype.emit = function stampPeer(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    const request = args[0];
    if (event === "upgrade" && request instanceof IncomingMessage) {
      if (!upgraded(request, args[1])) return true;
    } else if (event === "request" && request instanceof IncomingMessage) {
      if (refusedOffLoopback(request, args[1])) return true;
      const peer = request.socket.remoteAddress ?? "";
      if (args[1] instanceof ServerResponse && !admitted(request, args[1], peer)) return true;
      const first = (globalThis as Registry)[SERVE_FIRST];
      if (first && args[1] instanceof ServerResponse && first(request, args[1])) return true;
      stamp(request, peer);
    }
    return original.call(this, event, ...args);
  };
}

/**
 * `loopbackOnly`: refuse connections that did not arrive on a loopback address (no console auth).
 * `serveFirst`: what the console answers itself, after that refusal and before Next.js (the build's
 * compressed script and style files, lib/server/edge/static-assets.ts).
 * `trustedProxies`: peers whose FORWARDED_HEADERS are kept; from every other peer they are deleted.
 * `requestsPerAddress`: requests one client address may have in flight (unset: no bound).
 */
export function installPeerStamp(
  options: {
    loopbackOnly?: boolean;
    serveFirst?: ServeFirst;
    trustedProxies?: TrustedProxies;
    requestsPerAddress?: number;
  } = {},
): void {
  const registry = globalThis as Registry;
  registry[LOOPBACK_ONLY] = options.loopbackOnly === true;
  registry[SERVE_FIRST] = options.serveFirst;
  registry[TRUSTED] = options.trustedProxies;
  registry[PER_ADDRESS] = options.requestsPerAddress;
  if (registry[INSTALLED]) return;
  registry[MARKER] = randomBytes(24).toString("base64url");
  patch(HttpServer.prototype as unknown as { emit: Emit });
  if (HttpsServer.prototype.emit !== HttpServer.prototype.emit)
    patch(HttpsServer.prototype as unknown as { emit: Emit });
  registry[INSTALLED] = true;
}

export function peerStampInstalled(): boolean {
  return (globalThis as Registry)[INSTALLED] === true;
}

/**
 * The socket's peer as the stamp wrote it, or null when this request was not stamped by this
 * process (no stamp yet, or one that arrived before it was installed): the one way anything reads
 * PEER_HEADER. Null makes proxy mode refuse, https false, and the limits key on "unknown".
 */
export function stampedPeer(headers: { get(name: string): string | null }): string | null {
  const marker = (globalThis as Registry)[MARKER];
  const sent = headers.get(STAMP_HEADER);
  if (marker === undefined || sent === null) return null;
  const expected = Buffer.from(marker);
  const actual = Buffer.from(sent);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return headers.get(PEER_HEADER);
}
