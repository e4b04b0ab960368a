import "server-only";
import type { EventEmitter } from "node:events";
import { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import type { RouteOf } from "@/lib/server/metrics/route-pattern";
import { consoleMetrics } from "@/lib/server/metrics/prometheus";
import type { StreamKind } from "@/lib/server/metrics/prometheus";

/**
 * The console process's life around Node's HTTP server (issue 44; docs/decisions/0062):
 *  - every request is timed and counted by its route pattern when its answer ends (a stream counts
 *    until it ends), and the streams open now are counted by kind;
 *  - on SIGTERM the console drains: its servers stop accepting connections, `shutdownSignal()` fires
 *    so streams end cleanly (a run view answers what it has and ends, a pulse relay ends the way its
 *    lifetime ends: the browser reads both as "come back", and reconnects to another replica), answers
 *    sent meanwhile close their connection, and in-flight requests (an action being sent) get up to
 *    the grace to finish; then what is left is closed and the process exits 0.
 * Next's own SIGTERM handler waits for every connection with no bound and exits 143, so it is
 * replaced (it is the only other listener in a `next start` process).
 */

const STATE = Symbol.for("breakwater.lifecycle");

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;

interface LifecycleState {
  servers: Set<NetServer>;
  inFlight: Set<ServerResponse>;
  controller: AbortController;
  draining: boolean;
  routeOf: RouteOf;
  patched: boolean;
}

function state(): LifecycleState {
  const holder = globalThis as { [STATE]?: LifecycleState };
  holder[STATE] ??= {
    servers: new Set(),
    inFlight: new Set(),
    controller: new AbortController(),
    draining: false,
    routeOf: () => "other",
    patched: false,
  };
  return holder[STATE];
}

/** Fires when the console starts draining: a stream that holds on ends cleanly instead. */
export function shutdownSignal(): AbortSignal {
  return state().controller.signal;
}

/**
 * A stream's end timer that also fires when the console starts draining: `schedule(end)` arms the
 * stream's own end (a pulse relay's lifetime) and returns how to disarm it; so does the result.
 */
export function endingOnShutdown(schedule: (end: () => void) => () => void): (end: () => void) => () => void {
  return (end) => {
    const disarm = schedule(end);
    const signal = shutdownSignal();
    if (signal.aborted) queueMicrotask(end);
    else signal.addEventListener("abort", end, { once: true });
    return () => {
      disarm();
      signal.removeEventListener("abort", end);
    };
  };
}

export function isDraining(): boolean {
  return state().draining;
}

/** Requests being answered now. */
export function requestsInFlight(): number {
  return state().inFlight.size;
}

/** The kind of stream a request opens, from its path and query; null for an ordinary request. */
export function streamKind(route: string, url: string): StreamKind | null {
  if (route === "/api/run-view") return "run_view";
  if (route.startsWith("/api/kikwiflow/") && route.endsWith("/pulse")) return "pulse_relay";
  if (route === "/api/dw/[...path]") {
    if (/[?&]wait_new_event=(1|true)\b/.test(url)) return "long_poll";
    if (/\/history\/export(\?|$)/.test(url)) return "export";
  }
  return null;
}

function track(request: IncomingMessage, response: ServerResponse): void {
  const s = state();
  const started = performance.now();
  const url = request.url ?? "/";
  const route = s.routeOf(url);
  const method = request.method ?? "GET";
  const metrics = consoleMetrics();
  const kind = streamKind(route, url);
  s.inFlight.add(response);
  metrics.inFlight.inc();
  if (kind) metrics.openStreams.inc({ kind });
  // Once draining, every answer closes its connection, so the client's next request opens a new one
  // (refused here: it goes to another replica).
  if (s.draining) response.shouldKeepAlive = false;
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    s.inFlight.delete(response);
    metrics.inFlight.dec();
    if (kind) metrics.openStreams.dec({ kind });
    const status = response.writableFinished ? `${Math.floor(response.statusCode / 100)}xx` : "aborted";
    metrics.requests.inc({ route, method, status });
    metrics.requestSeconds.observe({ route, method }, (performance.now() - started) / 1000);
  };
  response.once("close", end);
  response.once("finish", end);
}

function patch(prototype: { emit: Emit }): void {
  const original = prototype.emit;
  prototype.emit = function lifecycleEmit(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request" && args[0] instanceof IncomingMessage && args[1] instanceof ServerResponse) {
      if (this instanceof NetServer) state().servers.add(this);
      track(args[0], args[1]);
    }
    return original.call(this, event, ...args);
  };
}

function listeningServers(): NetServer[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  return handles.filter((handle): handle is NetServer => handle instanceof NetServer && handle.listening);
}

export interface LifecycleOptions {
  routeOf: RouteOf;
  graceMs: number;
  /**
   * Where SIGTERM/SIGINT arrive (default: process; null: not listened for, as under `next dev`);
   * `takeOver` removes the listeners already there (Next's).
   */
  signals?: EventEmitter | null;
  takeOver?: boolean;
  exit?: (code: number) => void;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** Installs the request metrics and the drain on SIGTERM/SIGINT. Idempotent for the patch. */
export function installLifecycle(options: LifecycleOptions): void {
  const s = state();
  s.routeOf = options.routeOf;
  for (const server of listeningServers()) s.servers.add(server);
  if (!s.patched) {
    // Outermost: installed after the peer stamp, so requests it answers itself are counted too.
    patch(HttpServer.prototype as unknown as { emit: Emit });
    s.patched = true;
  }
  const signals = options.signals === undefined ? process : options.signals;
  if (signals === null) return;
  const onSignal = (signal: string) => {
    void drain(options, signal);
  };
  for (const name of ["SIGTERM", "SIGINT"] as const) {
    if (options.takeOver) for (const listener of signals.listeners(name)) signals.off(name, listener as () => void);
    signals.on(name, onSignal);
  }
}

/**
 * Stops accepting, ends streams cleanly, waits up to the grace for what is in flight, then closes
 * the rest and exits 0. Returns when exit was called (tests pass an `exit` that returns).
 */
export async function drain(options: LifecycleOptions, reason = "SIGTERM"): Promise<void> {
  const s = state();
  if (s.draining) return;
  s.draining = true;
  const log = options.log ?? ((message, fields) => console.log(message, fields ?? ""));
  const started = Date.now();
  consoleMetrics().draining.set(1);
  log(`${reason}: draining`, { inFlight: s.inFlight.size, graceMs: options.graceMs });
  for (const server of s.servers) server.close();
  s.controller.abort(new DOMException("the console is shutting down", "AbortError"));
  const deadline = started + options.graceMs;
  await new Promise<void>((resolve) => {
    const check = () => {
      // Keep-alive connections that went idle meanwhile are closed as they appear.
      for (const server of s.servers) if (server instanceof HttpServer) server.closeIdleConnections();
      if (s.inFlight.size === 0 || Date.now() >= deadline) resolve();
      else setTimeout(check, 50);
    };
    check();
  });
  const cut = s.inFlight.size;
  for (const server of s.servers) if (server instanceof HttpServer) server.closeAllConnections();
  log("drained", { ms: Date.now() - started, cut });
  (options.exit ?? ((code: number) => process.exit(code)))(0);
}

/** Test support: forget the drain (the patch stays; it is per process). */
export function resetLifecycle(): void {
  const s = state();
  s.servers.clear();
  s.inFlight.clear();
  s.controller = new AbortController();
  s.draining = false;
}
