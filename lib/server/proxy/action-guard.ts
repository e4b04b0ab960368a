import "server-only";
import type { Role } from "@/lib/views/capabilities";
import type { ActionContext } from "@/lib/actions/contract";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { forwardedPerson, personRefusal } from "@/lib/server/auth/principal";
import { VALIDATED_HOST } from "@/lib/server/edge/hosts";
import { auditRefusal } from "@/lib/server/proxy/audit";

/**
 * The gate every action handler passes before it sends anything with the console's token:
 * same-origin (CSRF), read-only mode, then the role the token is known to carry. A refusal is an
 * answer with a reason the screen can put into words, never a 500.
 */

export type GuardReason = "cross_origin" | "read_only" | "role";

export interface GuardRefusal {
  status: 403;
  reason: GuardReason;
  message: string;
}

/** The header names the guard reads; `Headers` and plain maps both fit. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * Browsers send `Sec-Fetch-Site` on every fetch and `Origin` on every POST, and a page cannot forge
 * either. A request with neither is not from a browser page of this console, so it is refused too:
 * the action API is for the console's own screens. Origin is compared with the host proxy.ts
 * validated against the allow-list (lib/server/edge/hosts.ts), never with a raw `Host`/`X-Forwarded-Host`:
 * a DNS-rebinding page sends a Host and an Origin that agree with each other.
 */
export function sameOriginProblem(headers: HeaderSource): string | null {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return `Sec-Fetch-Site is "${site}"`;
  const origin = headers.get("origin");
  if (origin === null || origin === "" || origin === "null") return "the request carries no Origin";
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return "the Origin header is not a URL";
  }
  const validated = headers.get(VALIDATED_HOST);
  if (!validated) return "the request did not pass the console's host check";
  let host: string;
  try {
    // Through URL, so "console:80" and an Origin of http://console compare as they should.
    host = new URL(`${new URL(origin).protocol}//${validated}`).host;
  } catch {
    return "the request did not pass the console's host check";
  }
  return host === originHost ? null : `Origin ${originHost} is not this console (${validated})`;
}

/**
 * The role the server grants the console's token, when the variable that supplied it says so.
 * `DW_TOKEN` (or no token, which the server may run without) leaves it to the server.
 */
export function consoleRole(config: Pick<ConsoleConfig, "tokenSource">): Role | null {
  switch (config.tokenSource) {
    case "DW_ADMIN_TOKEN":
      return "admin";
    case "DW_OPERATOR_TOKEN":
      return "operator";
    default:
      return null;
  }
}

export type { ActionContext };

const RANK: Readonly<Record<Role, number>> = { worker: 0, operator: 1, admin: 2 };

/** {@link judgeAction}, with each refusal written to the audit log (lib/server/proxy/audit.ts). */
export function guardAction(
  headers: HeaderSource,
  config: Pick<ConsoleConfig, "readOnly" | "tokenSource"> & Partial<Pick<ConsoleConfig, "auth" | "personTokens">>,
  requiredRole: Role,
): GuardRefusal | null {
  const refused = judgeAction(headers, config, requiredRole);
  if (refused) auditRefusal(headers, forwardedPerson(headers), refused);
  return refused;
}

export function judgeAction(
  headers: HeaderSource,
  config: Pick<ConsoleConfig, "readOnly" | "tokenSource"> & Partial<Pick<ConsoleConfig, "auth" | "personTokens">>,
  requiredRole: Role,
): GuardRefusal | null {
  const crossOrigin = sameOriginProblem(headers);
  if (crossOrigin) return { status: 403, reason: "cross_origin", message: `Refused: ${crossOrigin}.` };
  if (config.readOnly)
    return {
      status: 403,
      reason: "read_only",
      message: "Refused: the console runs in read-only mode (BREAKWATER_READ_ONLY=1).",
    };
  let tokenSource = config.tokenSource;
  // With console auth (BREAKWATER_AUTH), the signed-in person's role decides first, then their token's.
  if (config.auth && config.auth.mode !== "none") {
    const person = forwardedPerson(headers);
    const refusedPerson = personRefusal(person, requiredRole === "admin" ? "admin" : "operator");
    if (refusedPerson || !person)
      return { status: 403, reason: "role", message: refusedPerson ?? "Refused: nobody is signed in to the console." };
    tokenSource = config.personTokens?.[person.role].source ?? null;
  }
  const role = consoleRole({ tokenSource });
  if (role !== null && RANK[role] < RANK[requiredRole]) {
    return {
      status: 403,
      reason: "role",
      message: `Refused: the console's token has the ${role} role; this action needs ${requiredRole}.`,
    };
  }
  return null;
}

/**
 * What the screens need to know to enable or explain actions for the person asking (public facts
 * only), judged as {@link guardAction} will judge their click: under console auth their own role
 * and the role of the token the console sends for them; otherwise the console's token.
 */
export function actionContext(
  config: Pick<ConsoleConfig, "readOnly" | "tokenSource"> & Partial<Pick<ConsoleConfig, "auth" | "personTokens">>,
  headers?: HeaderSource,
): ActionContext {
  if (!config.auth || config.auth.mode === "none") {
    return { readOnly: config.readOnly, role: consoleRole(config), personRole: null };
  }
  // proxy.ts answers 401 before a handler runs for nobody; should one get here, it may only read.
  const person = headers ? forwardedPerson(headers) : null;
  const personRole = person?.role ?? "viewer";
  const tokenSource = config.personTokens?.[personRole].source ?? null;
  return { readOnly: config.readOnly, role: consoleRole({ tokenSource }), personRole };
}
