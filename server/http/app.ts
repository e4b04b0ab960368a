import { setMaxListeners } from "node:events";
import Fastify from "fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../clock";
import type { Engine } from "../engine";
import type { Db } from "../store/db";
import type { ExportSigning } from "../read/export";
import type { AuthConfig } from "./auth";
import { registerControlPlane } from "./control-plane";
import { bodyParserError, MAX_PAYLOAD_BYTES, registerWorkerPlane } from "./worker-plane";
import { sendWorker } from "./worker-protocol";
import { CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION, sendControlPlane } from "./control-plane/envelope";
import type { HostPolicy } from "./hosts";
import { hostAllowed, hostRefusal, LOOPBACK_ONLY, rawHostValues } from "./hosts";

export interface BuildAppOptions {
  db: Db;
  clock: Clock;
  engine: Engine;
  auth: AuthConfig;
  /** Names answered besides loopback (DW_EMBEDDED_ALLOWED_HOSTS); default loopback only. */
  hosts?: HostPolicy;
  /** Worker long-poll hold in ms (default 30 000, the protocol's `long_poll_timeout`). */
  pollTimeoutMs?: number;
  /** History `wait_new_event` hold in ms (default 30 000). */
  historyPollTimeoutMs?: number;
  /** DW_V2_HISTORY_EXPORT_SIGNING_KEY (+ _KEY_ID): export bundles then carry an HMAC signature. */
  exportSigning?: ExportSigning | null;
  logger?: boolean;
  /**
   * Longest time to receive a whole request (headers and body), default 60 000 ms. Fastify turns
   * Node's own bound off, and without one a client that declares a body and never sends it holds
   * its connection forever. Long-polls are unaffected: their request is complete on arrival.
   */
  requestTimeoutMs?: number;
}

export interface AppContext extends BuildAppOptions {
  /** Aborted in `preClose`, so held long-polls (worker polls, history waits) end before the server stops. */
  shutdown: AbortSignal;
}

class JsonBodyError extends Error {
  readonly code = "FST_ERR_CTP_INVALID_JSON_BODY";
  readonly statusCode = 400;
  constructor(
    message: string,
    /** The `json_error` text the envelope reports (PHP `json_last_error_msg()` wording). */
    readonly jsonError: string = "Syntax error",
  ) {
    super(message);
  }
}

/** PHP `json_decode`'s default depth: deeper documents are `malformed_json` there, and here. */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `text` nests arrays/objects deeper than `max`, by one scan outside string literals.
 * Checked before parsing because every later step that walks a value (payload encoding,
 * `JSON.stringify` into SQLite) recurses, and a deep enough body would overflow the stack there.
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Answers a request no route matched: in the worker plane's envelope under `/api/worker`; with the
 * control-plane header when the request spoke that version (server@11d35b7 bootstrap/app.php); else plain.
 */
function sendUnrouted(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: Record<string, unknown>,
): FastifyReply {
  if (request.url.startsWith("/api/worker/")) return sendWorker(reply, status, body);
  if (request.headers[CONTROL_PLANE_HEADER.toLowerCase()] === CONTROL_PLANE_VERSION)
    return sendControlPlane(reply, status, body, null);
  return reply.code(status).send(body);
}

/**
 * 421 for a request addressed to a name this server is not known by (DNS rebinding,
 * docs/decisions/0043), in the plane's own envelope; null when the Host is allowed.
 */
function refuseHost(policy: HostPolicy, request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const values = rawHostValues(request.raw.rawHeaders);
  if (hostAllowed(policy, values)) return null;
  const body = hostRefusal(values);
  if (request.url.startsWith("/api/worker/")) return sendWorker(reply, 421, body);
  return sendControlPlane(reply, 421, body, null);
}

/**
 * The embedded server's Fastify app. Bodies are JSON only (`application/json` or `*+json`; anything
 * else is 415, an empty body reads as `{}`), capped at DW_MAX_PAYLOAD_BYTES.
 */
export function buildApp(opts: BuildAppOptions): FastifyInstance {
  const hosts = opts.hosts ?? LOOPBACK_ONLY;
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: MAX_PAYLOAD_BYTES,
    forceCloseConnections: true,
    requestTimeout: opts.requestTimeoutMs ?? 60_000,
    // Node enforces the timeouts on this sweep, so it bounds how late the 408 can come; and it
    // only expires a stalled body when headersTimeout ≤ requestTimeout (its default is 60 s).
    http: {
      connectionsCheckingInterval: Math.min(1000, opts.requestTimeoutMs ?? 60_000),
      headersTimeout: Math.min(60_000, opts.requestTimeoutMs ?? 60_000),
    },
    // Workflow ids may be 128 characters and operation names 256, and one character can take 12
    // once percent-encoded; find-my-way's default of 100 would turn a valid long id into a 404.
    routerOptions: { maxParamLength: 4096 },
    // A path with broken percent-encoding (`/workflows/%zz`) names no resource: the documented
    // `not_found` envelope, not Fastify's own body.
    frameworkErrors: (_error, request, reply) =>
      refuseHost(hosts, request, reply) ??
      sendUnrouted(request, reply, 404, {
        message: "The request path is not valid URL encoding.",
        reason: "not_found",
      }),
  });
  // First of all hooks, so a refused request reaches no auth, body parser or handler.
  app.addHook("onRequest", async (request, reply) => {
    const refused = refuseHost(hosts, request, reply);
    if (refused) return refused;
    return undefined;
  });
  // Route patterns, so an unmatched request can tell a wrong verb (405 + Allow) from an unknown path (404).
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const segments = route.url
      .split("/")
      .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    const pattern = new RegExp(`^${segments.join("/")}$`);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) routes.push({ method, pattern });
  });
  const shutdown = new AbortController();
  // Every held long-poll listens for shutdown; their number is bounded by open connections.
  setMaxListeners(0, shutdown.signal);
  app.addHook("preClose", async () => shutdown.abort());
  const ctx: AppContext = { ...opts, shutdown: shutdown.signal };

  app.removeAllContentTypeParsers();
  const parseJson = (
    _request: unknown,
    body: string | Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    if (nestsDeeperThan(text, MAX_JSON_DEPTH))
      return done(new JsonBodyError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`, "Maximum stack depth exceeded"));
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (e) {
      done(new JsonBodyError(e instanceof Error ? e.message : "Syntax error"));
    }
  };
  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJson);
  // Fastify tests the whole normalised header, parameters included (`application/problem+json; charset=utf-8`).
  app.addContentTypeParser(/^application\/[a-z0-9.!#$&^_-]+\+json(;|$)/i, { parseAs: "string" }, parseJson);
  app.setErrorHandler((error, _request, reply) => {
    const mapped = bodyParserError(error as { code?: string; statusCode?: number; message: string });
    if (mapped) return reply.code(mapped.status).send(mapped.body);
    reply.log.error(error);
    return reply.code(500).send({ message: "Server error.", reason: "server_error" });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    // Laravel's router words for a path no route matches (its path is the raw one, without the slash).
    if (allowed.length === 0)
      return sendUnrouted(request, reply, 404, {
        message: `The route ${path.replace(/^\/+/, "")} could not be found.`,
        reason: "not_found",
      });
    reply.header("allow", allowed.join(", "));
    return sendUnrouted(request, reply, 405, {
      message: `The ${request.method} method is not supported for this route. Supported methods: ${allowed.join(", ")}.`,
      reason: "method_not_allowed",
    });
  });

  registerWorkerPlane(app, {
    engine: ctx.engine,
    auth: ctx.auth,
    pollTimeoutMs: ctx.pollTimeoutMs,
    shutdown: ctx.shutdown,
  });
  registerControlPlane(app, {
    engine: ctx.engine,
    auth: ctx.auth,
    shutdown: ctx.shutdown,
    historyPollTimeoutMs: ctx.historyPollTimeoutMs ?? 30_000,
    exportSigning: ctx.exportSigning ?? null,
  });
  return app;
}
