import { setMaxListeners } from "node:events";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import type { Clock } from "../clock";
import type { Engine } from "../engine";
import type { Db } from "../store/db";
import type { ExportSigning } from "../read/export";
import type { AuthConfig } from "./auth";
import { registerControlPlane } from "./control-plane";
import { bodyParserError, MAX_PAYLOAD_BYTES, registerWorkerPlane } from "./worker-plane";

export interface BuildAppOptions {
  db: Db;
  clock: Clock;
  engine: Engine;
  auth: AuthConfig;
  /** Worker long-poll hold in ms (default 30 000, the protocol's `long_poll_timeout`). */
  pollTimeoutMs?: number;
  /** History `wait_new_event` hold in ms (default 30 000). */
  historyPollTimeoutMs?: number;
  /** DW_V2_HISTORY_EXPORT_SIGNING_KEY (+ _KEY_ID): export bundles then carry an HMAC signature. */
  exportSigning?: ExportSigning | null;
  logger?: boolean;
}

export interface AppContext extends BuildAppOptions {
  /** Aborted in `preClose`, so held long-polls (worker polls, history waits) end before the server stops. */
  shutdown: AbortSignal;
}

class JsonBodyError extends Error {
  readonly code = "FST_ERR_CTP_INVALID_JSON_BODY";
  readonly statusCode = 400;
}

/**
 * The embedded server's Fastify app. Bodies are JSON only (`application/json` or `*+json`; anything
 * else is 415, an empty body reads as `{}`), capped at DW_MAX_PAYLOAD_BYTES.
 */
export function buildApp(opts: BuildAppOptions): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: MAX_PAYLOAD_BYTES, forceCloseConnections: true });
  const shutdown = new AbortController();
  // Every held long-poll listens for shutdown; their number is bounded by open connections.
  setMaxListeners(0, shutdown.signal);
  app.addHook("preClose", async () => shutdown.abort());
  const ctx: AppContext = { ...opts, shutdown: shutdown.signal };

  app.removeAllContentTypeParsers();
  const parseJson = (_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (e) {
      done(new JsonBodyError(e instanceof Error ? e.message : "Syntax error"));
    }
  };
  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJson);
  app.addContentTypeParser(/^application\/[a-z0-9.!#$&^_-]+\+json$/i, { parseAs: "string" }, parseJson);
  app.setErrorHandler((error, _request, reply) => {
    const mapped = bodyParserError(error as { code?: string; statusCode?: number; message: string });
    if (mapped) return reply.code(mapped.status).send(mapped.body);
    reply.log.error(error);
    return reply.code(500).send({ message: "Server error.", reason: "server_error" });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: "Not found.", reason: "not_found" }));

  registerWorkerPlane(app, { engine: ctx.engine, auth: ctx.auth, pollTimeoutMs: ctx.pollTimeoutMs, shutdown: ctx.shutdown });
  registerControlPlane(app, {
    engine: ctx.engine,
    auth: ctx.auth,
    shutdown: ctx.shutdown,
    historyPollTimeoutMs: ctx.historyPollTimeoutMs ?? 30_000,
    exportSigning: ctx.exportSigning ?? null,
  });
  return app;
}
