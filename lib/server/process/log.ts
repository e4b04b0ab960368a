import "server-only";
import { randomUUID } from "node:crypto";
import pino from "pino";
import type { DestinationStream, Logger } from "pino";
import { consoleMetrics, upstreamOutcome } from "@/lib/server/metrics/prometheus";
import { upstreamPattern } from "@/lib/server/metrics/upstream-pattern";

/**
 * The console's server-side logs. What is logged is chosen field by field — method, path without
 * query, status, duration, request id, user name — so a token, cookie, password or payload has no
 * field to travel in; the redact list is a second line behind that. By default each entry is one
 * readable line on stdout (`humanLine`); `BREAKWATER_LOG_FORMAT=json` writes pino's JSON lines for a
 * log collector. Every call to the server is a `debug` line: at the default `info` level a working
 * console is quiet, and only what went wrong is written.
 */

const REDACT = [
  "authorization",
  "cookie",
  "password",
  "token",
  "*.authorization",
  "*.cookie",
  "*.password",
  "*.token",
  "headers.authorization",
  "headers.cookie",
];

export type LogFormat = "human" | "json";

/** `BREAKWATER_LOG_FORMAT`: `json` for pino's JSON lines; anything else (unset, `human`) readable lines. */
export function logFormat(value: string | undefined = process.env.BREAKWATER_LOG_FORMAT): LogFormat {
  return value?.trim().toLowerCase() === "json" ? "json" : "human";
}

/** pino's own fields, written as the line's head (time, level, message) or not at all. */
const HEAD_FIELDS = new Set(["level", "time", "msg", "pid", "hostname", "name", "v"]);
const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

function fieldText(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  // An error serialized by pino: its message is the readable part (the stack would take many lines).
  if (typeof value === "object" && value !== null && "message" in value) return JSON.stringify(String(value.message));
  return JSON.stringify(value) ?? String(value);
}

/**
 * One pino JSON entry as one readable line: `2026-12-07 15:20:01 WARN  dw call failed method=GET …`.
 * A line that is not pino's JSON is passed through as it came.
 */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith("\n") ? json : `${json}\n`;
  }
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().replace("T", " ").slice(0, 19) : "";
  const level = (LEVEL_NAMES[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key, value]) => !HEAD_FIELDS.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return `${[time, level, String(entry.msg ?? ""), ...fields].filter(Boolean).join(" ")}\n`;
}

/** A pino destination that writes each entry to `out` as {@link humanLine}. */
export function humanDestination(out: { write: (text: string) => unknown }): DestinationStream {
  return { write: (json: string) => void out.write(humanLine(json)) };
}

/**
 * A logger writing to `destination` (a structured sink, tests: JSON unless told otherwise) or, without
 * one, to stdout in `BREAKWATER_LOG_FORMAT`.
 */
export function createLogger(
  destination?: DestinationStream,
  level: string = process.env.BREAKWATER_LOG_LEVEL ?? "info",
  format: LogFormat = destination ? "json" : logFormat(),
): Logger {
  const options = {
    name: "breakwater-console",
    level,
    redact: { paths: REDACT, censor: "[redacted]" },
  };
  if (format === "json") return destination ? pino(options, destination) : pino(options);
  return pino(options, humanDestination(destination ?? process.stdout));
}

let shared: Logger | undefined;

export function getLogger(): Logger {
  shared ??= createLogger();
  return shared;
}

export const REQUEST_ID_HEADER = "X-Request-Id";

function describe(input: string | URL | Request, init: RequestInit | undefined): { method: string; path: string } {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  let path: string;
  try {
    // The path only: queries can carry search text, and nothing here needs them.
    path = new URL(url).pathname;
  } catch {
    path = "(unparseable url)";
  }
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  return { method, path };
}

/**
 * One upstream call in the console's Prometheus metrics: its latency by endpoint pattern and outcome,
 * and while it is a history long-poll (`wait_new_event=1`), one of the long-polls held now.
 */
function upstreamCall(input: string | URL | Request, method: string, path: string) {
  const metrics = consoleMetrics();
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const longPoll = /[?&]wait_new_event=(1|true)\b/.test(url);
  if (longPoll) metrics.upstreamLongPolls.inc();
  return {
    end(status: number | null, durationMs: number, failure?: string) {
      if (longPoll) metrics.upstreamLongPolls.dec();
      metrics.upstreamSeconds.observe(
        { endpoint: upstreamPattern(method, path), outcome: upstreamOutcome(status, failure) },
        durationMs / 1000,
      );
    },
  };
}

function failureName(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  const cause = (error as Error & { cause?: unknown }).cause;
  const code = cause instanceof Error && "code" in cause ? String(cause.code) : null;
  return code ? `${error.name} (${code})` : error.name;
}

function leftByCaller(signal: AbortSignal | null | undefined): boolean {
  if (!signal?.aborted) return false;
  const reason: unknown = signal.reason;
  return !(reason instanceof DOMException && reason.name === "TimeoutError");
}

/**
 * A fetch for calls to the Durable Workflow server: each call gets a fresh request id, sent as
 * X-Request-Id and logged with method, path, status and duration, so one console line matches one
 * server line.
 */
/**
 * While calls to the server keep failing (it is down or restarting), one warning starts the outage,
 * one summary a minute follows it, and one line says when the server answers again: every page
 * polls, so a line per failed call would be several a second (each is still a debug line).
 */
export const OUTAGE_SUMMARY_MS = 60_000;

interface Outage {
  since: number;
  summarizedAt: number;
  failedSinceSummary: number;
}

/** Per logger (the console's one shared logger in production; each test's own). */
const outages = new WeakMap<Logger, Outage>();

function logFailure(logger: Logger, entry: Record<string, unknown>, now: number): void {
  const outage = outages.get(logger);
  if (outage === undefined) {
    outages.set(logger, { since: now, summarizedAt: now, failedSinceSummary: 0 });
    logger.warn(entry, "dw call failed");
    return;
  }
  outage.failedSinceSummary += 1;
  if (now - outage.summarizedAt < OUTAGE_SUMMARY_MS) {
    logger.debug(entry, "dw call failed");
    return;
  }
  const failedCalls = outage.failedSinceSummary;
  outage.summarizedAt = now;
  outage.failedSinceSummary = 0;
  logger.warn(
    { ...entry, failedCalls, failingForS: Math.round((now - outage.since) / 1000) },
    "dw calls still failing",
  );
}

function endOutage(logger: Logger, entry: Record<string, unknown>, now: number): void {
  const outage = outages.get(logger);
  if (outage === undefined) return;
  outages.delete(logger);
  logger.info({ ...entry, failedForS: Math.round((now - outage.since) / 1000) }, "dw server answering again");
}

export function loggedFetch(
  logger: Logger,
  base: typeof fetch = globalThis.fetch.bind(globalThis),
  clock: () => number = () => performance.now(),
): typeof fetch {
  return async (input, init) => {
    const requestId = randomUUID();
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
    headers.set(REQUEST_ID_HEADER, requestId);
    const { method, path } = describe(input, init);
    const started = clock();
    const call = upstreamCall(input, method, path);
    try {
      const response = await base(input, { ...init, headers });
      const durationMs = Math.round((clock() - started) * 10) / 10;
      call.end(response.status, durationMs);
      const entry = { requestId, method, path, status: response.status, durationMs };
      endOutage(logger, entry, clock());
      // One line per call would bury what matters: a working call is debug, a 5xx a warning.
      if (response.status >= 500) logger.warn(entry, "dw call");
      else logger.debug(entry, "dw call");
      return response;
    } catch (error) {
      const durationMs = Math.round((clock() - started) * 10) / 10;
      call.end(null, durationMs, error instanceof Error ? error.name : undefined);
      const entry = { requestId, method, path, status: null, durationMs, failure: failureName(error) };
      // Whoever asked went away (a page left): nothing is wrong with the server. A timeout is.
      if (leftByCaller(init?.signal)) logger.debug(entry, "dw call abandoned");
      else logFailure(logger, entry, clock());
      throw error;
    }
  };
}
