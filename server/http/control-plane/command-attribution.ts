import type { FastifyRequest } from "fastify";
import type { CommandAuth, CommandCaller, CommandRequest } from "../../engine/command-context";
import type { AuthConfig, Principal } from "../auth";
import { authenticate } from "../auth";

/**
 * Who sent a control-plane command, recorded in its context as the real server's
 * `WorkflowCommandContextFactory::make` records it (durable-workflow/server
 * app/Support/WorkflowCommandContextFactory.php@11d35b7): the caller (forwarded caller headers only
 * when DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS is on, else `server` / `Standalone Server`), the auth
 * status, method, role(s) and principal (`Principal::toAuditContext`, app/Auth/Principal.php), and
 * the request (method, path, ip, user agent, X-Request-Id, X-Correlation-Id).
 */

/** The control plane's auth config per request, set by its preHandler (index.ts). */
const AUTH = new WeakMap<FastifyRequest, AuthConfig>();

export function rememberAuth(request: FastifyRequest, auth: AuthConfig): void {
  AUTH.set(request, auth);
}

function header(request: FastifyRequest, name: string): string | null {
  const raw = request.headers[name.toLowerCase()];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value : null;
}

/**
 * Node reads header bytes as latin1; PHP keeps the bytes, so a UTF-8 name arrives as that name. The
 * same here: bytes that are valid UTF-8 are read as UTF-8.
 */
function utf8(value: string | null): string | null {
  if (value === null) return null;
  const decoded = Buffer.from(value, "latin1").toString("utf8");
  return decoded.includes("\uFFFD") ? value : decoded;
}

/** `forwardedAttributionValue`: the header's trimmed value, only when the server trusts forwarded headers. */
function forwarded(
  request: FastifyRequest,
  auth: AuthConfig,
  field: "callerType" | "callerLabel" | "authStatus" | "authMethod",
) {
  return auth.attribution?.trustForwarded ? utf8(header(request, auth.attribution.headers[field])) : null;
}

/** `ConfiguredAuthProvider`'s subject, method and claims for each way in (app/Auth/ConfiguredAuthProvider.php@11d35b7). */
function auditContext(auth: AuthConfig, principal: Principal): { method: string; context: Record<string, unknown> } {
  if (auth.driver === "none")
    return { method: "none", context: { subject: "anonymous", roles: ["admin"], legacy_full_access: true } };
  const legacy = principal.legacy === true;
  return {
    method: "token",
    context: {
      subject: legacy ? "legacy-token" : `role:${principal.role}`,
      roles: [principal.role],
      ...(legacy ? { claims: { legacy_credential: true } } : {}),
      ...(principal.legacyFullAccess ? { legacy_full_access: true } : {}),
    },
  };
}

function commandAuth(request: FastifyRequest, auth: AuthConfig): CommandAuth {
  const principal = authenticate(auth, request.headers.authorization);
  const audit = principal ? auditContext(auth, principal) : null;
  const configured = auth.driver === "token";
  return {
    status:
      forwarded(request, auth, "authStatus") ??
      (audit
        ? audit.method === "none"
          ? "not_configured"
          : "authorized"
        : configured
          ? "authorized"
          : "not_configured"),
    method: forwarded(request, auth, "authMethod") ?? audit?.method ?? (configured ? "token" : "none"),
    ...(principal ? { role: principal.role, roles: [principal.role], principal: audit?.context } : {}),
  };
}

function commandCaller(request: FastifyRequest, auth: AuthConfig): CommandCaller {
  return {
    type: forwarded(request, auth, "callerType") ?? "server",
    label: forwarded(request, auth, "callerLabel") ?? "Standalone Server",
  };
}

/** The command's request, caller and auth context; method and path alone outside the control plane's hook. */
export function commandRequestOf(request: FastifyRequest): CommandRequest {
  const path = request.url.split("?")[0] ?? "/";
  const http: CommandRequest = { method: request.method, path: `/${path.replace(/^\/+/, "")}` };
  const auth = AUTH.get(request);
  if (!auth) return http;
  const requestId = header(request, "X-Request-Id");
  const correlationId = header(request, "X-Correlation-Id");
  const userAgent = header(request, "User-Agent");
  return {
    ...http,
    ip: request.ip,
    ...(userAgent ? { user_agent: userAgent } : {}),
    ...(requestId ? { request_id: requestId } : {}),
    ...(correlationId ? { correlation_id: correlationId } : {}),
    caller: commandCaller(request, auth),
    auth: commandAuth(request, auth),
  };
}
