import "server-only";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The console's own Prometheus metrics (issue 44; docs/decisions/0062). One registry per process,
 * kept on globalThis: Next compiles instrumentation and every route into bundles of their own, and a
 * module-level registry would be one per bundle. Every label is bounded: routes are the build's route
 * patterns (route-pattern.ts), upstream calls the endpoint table's patterns (upstream-pattern.ts),
 * actions their descriptor's kind; nothing a caller types becomes a label value.
 */

const SHARED = Symbol.for("breakwater.prometheus");

/** Seconds: from a cached read (1 ms) to a held long-poll (40 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export type StreamKind = "run_view" | "pulse_relay" | "export" | "long_poll";
export type CacheName = "closed_run" | "run_view";
export type ActionOutcome = "accepted" | "rejected" | "refused" | "failed";

function build(registry: Registry) {
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: "breakwater_process_" });
  const gauges = {
    /** Set from the live counts at scrape time (setGauges). */
    openStreams: new Gauge({
      name: "breakwater_open_streams",
      help: "Streams the console holds open now: run views, Kikwiflow pulse relays, export downloads, proxied long-polls.",
      labelNames: ["kind"] as const,
      registers,
    }),
    upstreamLongPolls: new Gauge({
      name: "breakwater_upstream_long_polls",
      help: "History long-polls (wait_new_event=1) the console holds on the Durable Workflow server now.",
      registers,
    }),
    longPollSlots: new Gauge({
      name: "breakwater_upstream_long_poll_slots",
      help: "The run view's cap on upstream history long-polls (BREAKWATER_RUN_VIEW_LONG_POLLS).",
      registers,
    }),
    inFlight: new Gauge({
      name: "breakwater_http_requests_in_flight",
      help: "Requests the console is answering now.",
      registers,
    }),
    draining: new Gauge({
      name: "breakwater_draining",
      help: "1 once SIGTERM was received and the console is finishing what is in flight.",
      registers,
    }),
  };
  return {
    registry,
    ...gauges,
    requests: new Counter({
      name: "breakwater_http_requests_total",
      help: "Requests answered, by route pattern, method and status class.",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    requestSeconds: new Histogram({
      name: "breakwater_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer (a stream counts until it ends), by route pattern.",
      labelNames: ["route", "method"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    upstreamSeconds: new Histogram({
      name: "breakwater_upstream_request_duration_seconds",
      help: "Calls to the Durable Workflow server, by endpoint pattern and outcome (2xx, 4xx, 5xx, timeout, unreachable, aborted).",
      labelNames: ["endpoint", "outcome"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    cacheLookups: new Counter({
      name: "breakwater_cache_lookups_total",
      help: "Cache lookups by cache and result (hit or miss); the hit ratio is hit / (hit + miss).",
      labelNames: ["cache", "result"] as const,
      registers,
    }),
    actions: new Counter({
      name: "breakwater_actions_total",
      help: "Actions sent through the console, by kind and outcome (accepted, rejected by the server, refused by the console, failed).",
      labelNames: ["kind", "outcome"] as const,
      registers,
    }),
  };
}

export type ConsoleMetrics = ReturnType<typeof build>;

/** The process's metrics, made on first use. */
export function consoleMetrics(): ConsoleMetrics {
  const holder = globalThis as { [SHARED]?: ConsoleMetrics };
  holder[SHARED] ??= build(new Registry());
  return holder[SHARED];
}

/** Test support: a fresh registry for the next consoleMetrics(). */
export function resetConsoleMetrics(): void {
  const holder = globalThis as { [SHARED]?: ConsoleMetrics };
  holder[SHARED]?.registry.clear();
  delete holder[SHARED];
}

/** Counts one cache lookup. */
export function countCacheLookup(cache: CacheName, hit: boolean): void {
  consoleMetrics().cacheLookups.inc({ cache, result: hit ? "hit" : "miss" });
}

/** Counts one action's outcome; `kind` comes from the route and the descriptor, never from the caller's text. */
export function countAction(kind: string, outcome: ActionOutcome): void {
  consoleMetrics().actions.inc({ kind, outcome });
}

/** An upstream answer's outcome label: its status class, or why there was none. */
export function upstreamOutcome(status: number | null, failure?: string): string {
  if (status !== null) return `${Math.floor(status / 100)}xx`;
  if (failure === "TimeoutError") return "timeout";
  if (failure === "AbortError") return "aborted";
  return "unreachable";
}
