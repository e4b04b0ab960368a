import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

export type Role = "worker" | "operator" | "admin";

export interface AuthConfig {
  driver: "none" | "token";
  tokens: { worker: string | null; operator: string | null; admin: string | null; legacy: string | null };
  /** DW_AUTH_BACKWARD_COMPATIBLE (default true): the legacy DW_AUTH_TOKEN is honoured. */
  backwardCompatible: boolean;
  /** Command attribution (config/server.php `command_attribution`@11d35b7); absent: trust nothing. */
  attribution?: AttributionConfig;
}

/**
 * DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS (default false) and the four header names
 * (DW_CALLER_TYPE_HEADER, DW_CALLER_LABEL_HEADER, DW_AUTH_STATUS_HEADER, DW_AUTH_METHOD_HEADER),
 * as the real server reads them (durable-workflow/server config/server.php@11d35b7).
 */
export interface AttributionConfig {
  trustForwarded: boolean;
  headers: { callerType: string; callerLabel: string; authStatus: string; authMethod: string };
}

export interface Principal {
  role: Role;
  /** Driver `none`, or the legacy token with no role tokens configured: every route, worker plane included. */
  legacyFullAccess: boolean;
  /** Authenticated by the shared DW_AUTH_TOKEN (the real server's subject `legacy-token`). */
  legacy?: true;
}

export interface AuthRefusal {
  status: 401 | 403;
  body: { reason: "unauthorized" | "forbidden"; message: string; role?: Role; allowed_roles?: Role[] };
}

function nonEmpty(v: string | undefined): string | null {
  return v !== undefined && v.trim() !== "" ? v.trim() : null;
}

/**
 * Reads DW_AUTH_DRIVER, DW_WORKER_TOKEN / DW_OPERATOR_TOKEN / DW_ADMIN_TOKEN, DW_AUTH_TOKEN. Without
 * DW_AUTH_DRIVER the driver is `token` when any token is set and `none` otherwise, so a fresh
 * embedded server runs locally without setup while a configured token always turns auth on.
 */
export function authConfigFromEnv(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const anyToken = [env.DW_WORKER_TOKEN, env.DW_OPERATOR_TOKEN, env.DW_ADMIN_TOKEN, env.DW_AUTH_TOKEN].some(
    (t) => nonEmpty(t) !== null,
  );
  const driver = (env.DW_AUTH_DRIVER ?? (anyToken ? "token" : "none")).trim().toLowerCase();
  if (driver !== "none" && driver !== "token") throw new Error(`DW_AUTH_DRIVER must be none or token, got ${driver}`);
  return {
    driver,
    tokens: {
      worker: nonEmpty(env.DW_WORKER_TOKEN),
      operator: nonEmpty(env.DW_OPERATOR_TOKEN),
      admin: nonEmpty(env.DW_ADMIN_TOKEN),
      legacy: nonEmpty(env.DW_AUTH_TOKEN),
    },
    backwardCompatible: (env.DW_AUTH_BACKWARD_COMPATIBLE ?? "true").trim().toLowerCase() !== "false",
    attribution: attributionConfigFromEnv(env),
  };
}

// PHP's FILTER_VALIDATE_BOOLEAN with FILTER_NULL_ON_FAILURE, `?? false`: these words are true.
const TRUE_WORDS = new Set(["1", "true", "on", "yes"]);

export function attributionConfigFromEnv(env: NodeJS.ProcessEnv): AttributionConfig {
  const header = (name: string, fallback: string) => nonEmpty(env[name]) ?? fallback;
  return {
    trustForwarded: TRUE_WORDS.has((env.DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS ?? "").trim().toLowerCase()),
    headers: {
      callerType: header("DW_CALLER_TYPE_HEADER", "X-Workflow-Caller-Type"),
      callerLabel: header("DW_CALLER_LABEL_HEADER", "X-Workflow-Caller-Label"),
      authStatus: header("DW_AUTH_STATUS_HEADER", "X-Workflow-Auth-Status"),
      authMethod: header("DW_AUTH_METHOD_HEADER", "X-Workflow-Auth-Method"),
    },
  };
}

// Hashing first gives equal-length buffers, so the comparison time says nothing about the token length.
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

/** Who the `Authorization` header authenticates as, or null when it authenticates no one. */
export function authenticate(config: AuthConfig, authorization: string | undefined): Principal | null {
  if (config.driver === "none") return { role: "admin", legacyFullAccess: true };
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? "");
  const token = match?.[1]?.trim();
  if (!token) return null;
  const { worker, operator, admin, legacy } = config.tokens;
  let found: Principal | null = null;
  // Every configured token is compared, so timing does not reveal which role matched.
  if (worker !== null && sameSecret(token, worker)) found = { role: "worker", legacyFullAccess: false };
  if (operator !== null && sameSecret(token, operator)) found = found ?? { role: "operator", legacyFullAccess: false };
  if (admin !== null && sameSecret(token, admin)) found = found ?? { role: "admin", legacyFullAccess: false };
  if (found) return found;
  if (legacy !== null && config.backwardCompatible && sameSecret(token, legacy)) {
    const anyRoleToken = worker !== null || operator !== null || admin !== null;
    return { role: "admin", legacyFullAccess: !anyRoleToken, legacy: true };
  }
  return null;
}

/**
 * The role check of server-api.md §1.2: null when allowed, else the exact 401/403 body
 * (`unauthorized`, or `forbidden` with the caller's `role` and the route's `allowed_roles`).
 */
export function authorize(
  config: AuthConfig,
  authorization: string | undefined,
  allowed: readonly Role[],
): AuthRefusal | null {
  const principal = authenticate(config, authorization);
  if (!principal)
    return { status: 401, body: { reason: "unauthorized", message: "Invalid or missing authentication token." } };
  if (principal.legacyFullAccess || allowed.includes(principal.role)) return null;
  return {
    status: 403,
    body: {
      reason: "forbidden",
      message: "Authenticated role is not allowed to access this endpoint.",
      role: principal.role,
      allowed_roles: [...allowed],
    },
  };
}

/**
 * A Fastify preHandler enforcing `allowed` roles; `render` sends the refusal in the plane's own
 * envelope (worker plane adds protocol fields, control plane its version header).
 */
export function requireRoles(
  config: AuthConfig,
  allowed: readonly Role[],
  render: (reply: FastifyReply, refusal: AuthRefusal) => FastifyReply,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const refusal = authorize(config, request.headers.authorization, allowed);
    if (refusal) return render(reply, refusal);
    return undefined;
  };
}
