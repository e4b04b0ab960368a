import { pipeline, Readable } from "node:stream";
import { promisify } from "node:util";
import { createDeflateRaw, createGzip, deflateRaw, deflateRawSync, gzip, gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { EngineError } from "../../engine";
import { namespaceExists } from "../../read/fleet";
import { authorize } from "../auth";
import { bodyParserError } from "../worker-plane";
import type { ControlPlaneDeps } from "./context";
import { cpConfig, namespaceOf, operationOf } from "./context";
import { registerBuildIdRoutes } from "./build-id-routes";
import { registerCooperativeCancellationRoutes } from "./cooperative-cancellation";
import { rememberAuth } from "./command-attribution";
import { registerDiscoveryRoutes } from "./discovery";
import { CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION, sendControlPlane } from "./envelope";
import { registerFleetRoutes } from "./fleet-routes";
import { registerNamespaceRoutes } from "./namespace-routes";
import { registerQueryRoutes } from "./queries";
import { registerScheduleRoutes } from "./schedule-routes";
import { registerSearchAttributeRoutes } from "./search-attribute-routes";
import { registerUpdateRoutes } from "./updates";
import { registerSystemRoutes } from "./system-routes";
import { registerWorkflowCommandRoutes } from "./workflow-command-routes";
import { registerWorkflowRoutes } from "./workflow-routes";

export type { ControlPlaneDeps } from "./context";

const COMPRESSION_THRESHOLD_BYTES = 1024;
/** Below this a body compresses in well under a millisecond, less than a trip to the thread pool. */
const SYNC_COMPRESSION_MAX_CHARS = 64 * 1024;
const gzipAsync = promisify(gzip);
const deflateRawAsync = promisify(deflateRaw);

/** Picks gzip or raw deflate from `Accept-Encoding` (q-values and `*` honoured; gzip wins ties). */
export function negotiateEncoding(header: string | undefined): "gzip" | "deflate" | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    q.set((name ?? "").trim(), qp ? Number(qp.slice(2)) || 0 : 1);
  }
  const star = q.get("*") ?? 0;
  const gzip = q.get("gzip") ?? star;
  const deflate = q.get("deflate") ?? star;
  if (gzip <= 0 && deflate <= 0) return null;
  return gzip >= deflate ? "gzip" : "deflate";
}

/** Renders any error of a control-plane route in its envelope (with `control_plane` on workflow routes). */
function renderError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const op = operationOf(request);
  if (error instanceof EngineError)
    return sendControlPlane(reply, error.status, { message: error.message, reason: error.reason, ...error.extra }, op);
  const parsed = bodyParserError(error as { code?: string; statusCode?: number; message: string });
  if (parsed) return sendControlPlane(reply, parsed.status, parsed.body, op);
  reply.log.error(error);
  return sendControlPlane(reply, 500, { message: "Server error.", reason: "server_error" }, op);
}

/**
 * Registers the operator HTTP API under `/api` (server-api.md §1–§2). Every route declares its
 * policy in `config.cp`; one preHandler enforces it in the real server's order — auth (401), role
 * (403), control-plane version (400), namespace (404) — after the body guards (415/400/413) that
 * run while parsing. Large JSON answers are gzip- or deflate-compressed.
 */
export function registerControlPlane(app: FastifyInstance, deps: ControlPlaneDeps): void {
  app.register(
    async (scope) => {
      scope.addHook("preHandler", async (request, reply) => {
        const cfg = cpConfig(request);
        if (!cfg) return undefined;
        const op = operationOf(request);
        if (cfg.roles) {
          const refusal = authorize(deps.auth, request.headers.authorization, cfg.roles);
          if (refusal) return sendControlPlane(reply, refusal.status, refusal.body, op);
        }
        // A command records who sent it (command-attribution.ts), which needs the auth config.
        rememberAuth(request, deps.auth);
        if (cfg.versioned) {
          const raw = request.headers[CONTROL_PLANE_HEADER.toLowerCase()];
          const requested = (Array.isArray(raw) ? raw[0] : raw)?.trim() || undefined;
          if (requested !== CONTROL_PLANE_VERSION) {
            return sendControlPlane(
              reply,
              400,
              {
                message: requested
                  ? `Unsupported control-plane version [${requested}].`
                  : "Missing control-plane version header.",
                reason: requested ? "unsupported_control_plane_version" : "missing_control_plane_version",
                supported_version: CONTROL_PLANE_VERSION,
                requested_version: requested ?? null,
                remediation: `Send the ${CONTROL_PLANE_HEADER}: ${CONTROL_PLANE_VERSION} header on control-plane requests.`,
              },
              op,
            );
          }
        }
        if (cfg.namespaced) {
          const namespace = namespaceOf(request);
          if (!namespaceExists(deps.engine.db, namespace)) {
            return sendControlPlane(
              reply,
              404,
              {
                // Words of app/Http/Middleware/NamespaceResolver.php@11d35b7.
                message: `Namespace '${namespace}' does not exist.`,
                reason: "namespace_not_found",
                namespace,
                remediation:
                  "Register the namespace via POST /api/namespaces, or send an X-Namespace header naming an existing namespace.",
              },
              op,
            );
          }
        }
        return undefined;
      });

      scope.addHook("onSend", async (request, reply, payload) => {
        const stream = payload instanceof Readable;
        if (!stream && (typeof payload !== "string" || Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES))
          return payload;
        if (!String(reply.getHeader("content-type") ?? "").includes("json")) return payload;
        const encoding = negotiateEncoding(request.headers["accept-encoding"]);
        if (!encoding) return payload;
        reply.header("content-encoding", encoding);
        reply.header("vary", "Accept-Encoding");
        reply.removeHeader("content-length");
        // Streamed bodies (the export bundle) are compressed as they are produced.
        if (stream) return pipeline(payload, encoding === "gzip" ? createGzip() : createDeflateRaw(), () => undefined);
        if (payload.length < SYNC_COMPRESSION_MAX_CHARS)
          return encoding === "gzip" ? gzipSync(payload) : deflateRawSync(payload);
        // Off the event loop (zlib's thread pool): compressing megabytes inline would stall every other request.
        return encoding === "gzip" ? gzipAsync(payload) : deflateRawAsync(payload);
      });

      scope.setErrorHandler((error, request, reply) => renderError(request, reply, error));

      registerDiscoveryRoutes(scope, deps);
      registerWorkflowRoutes(scope, deps);
      registerWorkflowCommandRoutes(scope, deps);
      registerQueryRoutes(scope, deps);
      registerUpdateRoutes(scope, deps);
      registerCooperativeCancellationRoutes(scope, deps);
      registerSystemRoutes(scope, deps);
      registerFleetRoutes(scope, deps);
      registerBuildIdRoutes(scope, deps);
      registerScheduleRoutes(scope, deps);
      registerNamespaceRoutes(scope, deps);
      registerSearchAttributeRoutes(scope, deps);
    },
    { prefix: "/api" },
  );
}
