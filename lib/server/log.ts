import "server-only";
import { randomUUID } from "node:crypto";
import pino from "pino";
import type { DestinationStream, Logger } from "pino";

/**
 * Structured logs (JSON lines on stdout) for the console's server side. What is logged is chosen
 * field by field — method, path without query, status, duration, request id, user name — so a token,
 * cookie, password or payload has no field to travel in; the redact list is a second line behind that.
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

export function createLogger(
  destination?: DestinationStream,
  level: string = process.env.BREAKWATER_LOG_LEVEL ?? "info",
): Logger {
  const options = {
    name: "breakwater-console",
    level,
    redact: { paths: REDACT, censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
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

function failureName(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  const cause = (error as Error & { cause?: unknown }).cause;
  const code = cause instanceof Error && "code" in cause ? String(cause.code) : null;
  return code ? `${error.name} (${code})` : error.name;
}

/**
 * A fetch for calls to the Durable Workflow server: each call gets a fresh request id, sent as
 * X-Request-Id and logged with method, path, status and duration, so one console line matches one
 * server line.
 */
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
    try {
      const response = await base(input, { ...init, headers });
      const durationMs = Math.round((clock() - started) * 10) / 10;
      const entry = { requestId, method, path, status: response.status, durationMs };
      if (response.status >= 500) logger.warn(entry, "dw call");
      else logger.info(entry, "dw call");
      return response;
    } catch (error) {
      const durationMs = Math.round((clock() - started) * 10) / 10;
      logger.warn({ requestId, method, path, status: null, durationMs, failure: failureName(error) }, "dw call failed");
      throw error;
    }
  };
}
