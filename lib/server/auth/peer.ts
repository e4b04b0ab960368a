import { IncomingMessage, Server as HttpServer } from "node:http";
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
const INSTALLED = Symbol.for("breakwater.peer-stamp");

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;

function patch(prototype: { emit: Emit }): void {
  const original = prototype.emit;
  prototype.emit = function stampPeer(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    const request = args[0];
    if (event === "request" && request instanceof IncomingMessage) {
      request.headers[PEER_HEADER] = request.socket.remoteAddress ?? "";
    }
    return original.call(this, event, ...args);
  };
}

export function installPeerStamp(): void {
  const registry = globalThis as { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  patch(HttpServer.prototype as unknown as { emit: Emit });
  if (HttpsServer.prototype.emit !== HttpServer.prototype.emit) patch(HttpsServer.prototype as unknown as { emit: Emit });
  registry[INSTALLED] = true;
}

export function peerStampInstalled(): boolean {
  return (globalThis as { [INSTALLED]?: boolean })[INSTALLED] === true;
}
