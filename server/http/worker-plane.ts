import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Engine } from "../engine";
import { EngineError } from "../engine";
import type { AuthConfig } from "./auth";
import { requireRoles } from "./auth";
import { registerCancellationDeliveryRoute } from "./worker-cancellation-routes";
import { registerQueryTaskRoutes } from "./worker-query-tasks";
import { namespaceOf, parse } from "./worker-request";
import {
  MAX_LONG_POLL_TIMEOUT_SECONDS,
  registerActivityTaskRoutes,
  registerWorkflowTaskRoutes,
} from "./worker-task-routes";
import {
  LONG_POLL_TIMEOUT_SECONDS,
  sendWorker,
  WORKER_PROTOCOL_HEADER,
  WORKER_PROTOCOL_VERSION,
  isCompatibleProtocolVersion,
  splitProtocolVersion,
} from "./worker-protocol";

/** Worker runtimes a registration may name. */
export const WORKER_RUNTIMES = ["php", "python", "typescript", "go", "java", "rust"] as const;

export interface WorkerPlaneOptions {
  engine: Engine;
  auth: AuthConfig;
  /** Long-poll hold; the protocol's 30 s unless a test shortens it. */
  pollTimeoutMs?: number;
  /** Aborted when the server closes, releasing held long-polls. */
  shutdown: AbortSignal;
}

const registerSchema = z.object({
  worker_id: z.string().min(1).max(255).nullish(),
  task_queue: z.string().min(1).max(255),
  // The real server's list (WorkerController::register@11d35b7, `in:php,python,typescript,go,java`)
  // plus "rust", which the official Rust SDK 4.10.2 sends (see docs/contract.md: no readable server
  // source names it yet, so the SDK's requirement decides).
  runtime: z.enum(WORKER_RUNTIMES),
  sdk_version: z.string().max(255).nullish(),
  build_id: z.string().max(255).nullish(),
  supported_workflow_types: z.array(z.string()).nullish(),
  workflow_definition_fingerprints: z.record(z.string(), z.string()).nullish(),
  // Per type `{signals, signal_contracts, …}`: the durable signal contract of runs started on this queue (server@205c046).
  workflow_command_contracts: z.record(z.string(), z.record(z.string(), z.unknown())).nullish(),
  supported_activity_types: z.array(z.string()).nullish(),
  max_concurrent_workflow_tasks: z.number().int().min(1).nullish(),
  max_concurrent_activity_tasks: z.number().int().min(1).nullish(),
  ...workerStatusFields(),
  max_concurrent_worker_sessions: z.number().int().min(1).nullish(),
  capabilities: z.array(z.string().max(255)).nullish(),
});

/**
 * What registration and heartbeat may report about the worker's state, with the real server's rules
 * (WorkerController register/heartbeat validation of durable-workflow/server after @f5b35ef): free slots are
 * non-negative integers, the process metrics' numbers non-negative; the metrics are kept as reported.
 */
function workerStatusFields() {
  const count = z.number().int().min(0).nullish();
  return {
    task_slots: z
      .object({ workflow_available: count, activity_available: count, session_available: count })
      .loose()
      .nullish(),
    process_metrics: z
      .object({
        cpu_percent: z.number().min(0).nullish(),
        memory_bytes: count,
        process_uptime_seconds: count,
        process_id: z.union([z.number().int().min(0), z.string().max(255)]).nullish(),
        process_started_at: z.string().max(64).nullish(),
        host: z.string().max(255).nullish(),
      })
      .loose()
      .nullish(),
    heartbeat_interval_seconds: z.number().int().min(1).max(3600).nullish(),
  };
}
const heartbeatSchema = z.object({ worker_id: z.string().min(1), ...workerStatusFields() });

/** Registers `/api/worker/*` (server-api.md §5): auth (worker role) → protocol version → namespace → handler. */
export function registerWorkerPlane(app: FastifyInstance, opts: WorkerPlaneOptions): void {
  const { engine } = opts;
  // Namespaces are never deleted, so one found stays found; every worker request checks its own.
  const knownNamespaces = new Set<string>();
  const pollTimeoutMs = opts.pollTimeoutMs ?? LONG_POLL_TIMEOUT_SECONDS * 1000;

  app.register(
    async (scope) => {
      scope.addHook(
        "preHandler",
        requireRoles(opts.auth, ["worker"], (reply, refusal) => sendWorker(reply, refusal.status, refusal.body)),
      );
      scope.addHook("preHandler", async (request, reply) => {
        const raw = request.headers[WORKER_PROTOCOL_HEADER.toLowerCase()];
        const requested = (Array.isArray(raw) ? raw[0] : raw)?.trim() || undefined;
        if (requested !== undefined && isCompatibleProtocolVersion(requested, WORKER_PROTOCOL_VERSION)) {
          const namespace = namespaceOf(request);
          if (knownNamespaces.has(namespace)) return undefined;
          const exists = engine.db.prepare("SELECT 1 FROM namespaces WHERE name = ?").get(namespace);
          if (exists) knownNamespaces.add(namespace);
          else {
            return sendWorker(reply, 404, {
              // Words of app/Http/Middleware/NamespaceResolver.php@11d35b7.
              message: `Namespace '${namespace}' does not exist.`,
              reason: "namespace_not_found",
              namespace,
              remediation:
                "Register the namespace via POST /api/namespaces, or send an X-Namespace header naming an existing namespace.",
            });
          }
          return undefined;
        }
        return sendWorker(reply, 400, protocolRefusal(requested));
      });
      scope.setErrorHandler((error, _request, reply) => renderWorkerError(reply, error));

      scope.post("/register", async (request, reply) => {
        const body = parse(registerSchema, request.body);
        const result = engine.registerWorker(namespaceOf(request), body);
        return sendWorker(reply, 201, result);
      });

      // Unfenced deregistration, which sdk-python 2.12.0 sends on shutdown when the server does not
      // advertise `worker_deregistration_fencing` (durable_workflow/client.py@2.12.0
      // `deregister_worker_registration`): the registration goes, and the workflow tasks its
      // worker still leases are ready again at once instead of after their lease.
      scope.delete<{ Params: { workerId: string } }>("/registrations/:workerId", async (request, reply) => {
        return sendWorker(reply, 200, engine.deregisterWorker(namespaceOf(request), request.params.workerId));
      });

      scope.post("/heartbeat", async (request, reply) => {
        const body = parse(heartbeatSchema, request.body);
        return sendWorker(reply, 200, engine.workerHeartbeat(namespaceOf(request), body.worker_id, body));
      });

      const tasks = { engine, pollTimeoutMs, shutdown: opts.shutdown };
      registerWorkflowTaskRoutes(scope, tasks);
      registerCancellationDeliveryRoute(scope, engine);
      registerActivityTaskRoutes(scope, tasks);

      registerQueryTaskRoutes(scope, {
        engine,
        pollTimeoutMs,
        maxPollSeconds: MAX_LONG_POLL_TIMEOUT_SECONDS,
        shutdown: opts.shutdown,
        namespaceOf,
      });
    },
    { prefix: "/api/worker" },
  );
}

/**
 * The 400 for a missing or incompatible worker-protocol version, in the real server's words
 * (durable-workflow/server app/Support/WorkerProtocol.php@051508c `rejectUnsupported`).
 */
export function protocolRefusal(requested: string | undefined): Record<string, unknown> {
  const v = WORKER_PROTOCOL_VERSION;
  if (requested === undefined) {
    return {
      error: "Missing worker protocol version header.",
      reason: "missing_protocol_version",
      supported_version: v,
      requested_version: null,
      remediation: `Send the ${WORKER_PROTOCOL_HEADER}: ${v} header on worker protocol requests.`,
    };
  }
  const [major, minor] = splitProtocolVersion(v) ?? [0, 0];
  return {
    error: "Unsupported worker protocol version.",
    reason: "unsupported_protocol_version",
    supported_version: v,
    requested_version: requested,
    remediation: `Worker requested protocol version ${requested}; this server supports ${v}. Workers may target any ${major}.x version with x ≤ ${minor}. Upgrade the worker to a release that targets a compatible version, or connect to a server that matches.`,
  };
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message: string;
  /** Set by the app's JSON parser when it knows the precise `json_error`. */
  jsonError?: string;
}

/**
 * Worker-plane error envelope: engine refusals keep their reason and extras (message under `error`),
 * 422 validation uses `message` + `errors` + `validation_errors`, body-parser failures map to the
 * documented 400/413/415 reasons.
 */
export function renderWorkerError(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof EngineError) {
    if (error.status === 422)
      return sendWorker(reply, error.status, { message: error.message, reason: error.reason, ...error.extra });
    return sendWorker(reply, error.status, { error: error.message, reason: error.reason, ...error.extra });
  }
  const e = error as FastifyLikeError;
  const body = bodyParserError(e);
  if (body) return sendWorker(reply, body.status, body.body);
  reply.log.error(error);
  return sendWorker(reply, 500, { error: "Server error.", reason: "server_error" });
}

/** Maps Fastify's body-parser errors onto the documented envelope reasons; null when not one of them. */
export function bodyParserError(e: FastifyLikeError): { status: number; body: Record<string, unknown> } | null {
  if (e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return {
      status: 415,
      body: {
        message: "Request bodies must use a JSON media type.",
        reason: "unsupported_media_type",
        accepted_content_types: ["application/json", "application/*+json"],
      },
    };
  }
  if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return {
      status: 413,
      body: { message: "The request body is too large.", reason: "payload_too_large", limit: MAX_PAYLOAD_BYTES },
    };
  }
  if (e.code === "FST_ERR_CTP_INVALID_JSON_BODY" || (e.statusCode === 400 && e instanceof SyntaxError)) {
    return {
      status: 400,
      body: {
        message: "The request body is not valid JSON.",
        reason: "malformed_json",
        json_error: e.jsonError ?? "Syntax error",
      },
    };
  }
  return null;
}

/** DW_MAX_PAYLOAD_BYTES default. */
export const MAX_PAYLOAD_BYTES = 2_097_152;
