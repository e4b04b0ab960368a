import "server-only";
import type { ActionNeed, PersonRole } from "./roles";
import { isPersonRole, personMay, roleForGroups } from "./roles";
import type { AuthSettings, ProxyAuthSettings } from "./settings";
import { verifySession } from "./session";
import { sessionRevocations } from "@/lib/server/shared/stores";

/**
 * Who is asking. proxy.ts authenticates each request once (session cookie or auth-proxy headers)
 * and forwards the result to pages and handlers in FORWARDED_* request headers, after deleting any
 * the client sent; the action guard, the DW client and the shell read it from there.
 */

export interface Person {
  user: string;
  role: PersonRole;
}

export type Authentication =
  /** BREAKWATER_AUTH unset: no console authentication (local access only). */
  | { kind: "open" }
  | { kind: "person"; person: Person }
  | { kind: "anonymous" }
  /** Identity headers from an address that is not a trusted proxy: ignored, and worth a log line. */
  | { kind: "untrusted_peer"; peer: string | null }
  /** The proxy vouches for the person but none of their groups maps to a role. */
  | { kind: "no_role"; user: string };

export interface HeaderSource {
  get(name: string): string | null;
}

export interface AuthInput {
  headers: HeaderSource;
  sessionCookie: string | undefined;
  /** The connection's peer address (see peer.ts); null when not known, which trusts no proxy. */
  peer: string | null;
  nowMs: number;
}

function fromProxy(settings: ProxyAuthSettings, input: AuthInput): Authentication {
  const user = input.headers.get(settings.userHeader)?.trim() || input.headers.get(settings.emailHeader)?.trim() || "";
  if (!settings.trustedProxies.includes(input.peer)) {
    return user ? { kind: "untrusted_peer", peer: input.peer } : { kind: "anonymous" };
  }
  if (!user) return { kind: "anonymous" };
  const groups = (input.headers.get(settings.groupsHeader) ?? "")
    .split(",")
    .map((group) => group.trim())
    .filter((group) => group !== "");
  const role = roleForGroups(groups, settings.roleGroups);
  return role ? { kind: "person", person: { user, role } } : { kind: "no_role", user };
}

export async function authenticate(settings: AuthSettings, input: AuthInput): Promise<Authentication> {
  switch (settings.mode) {
    case "none":
      return { kind: "open" };
    case "proxy":
      return fromProxy(settings, input);
    case "password": {
      const claims = await verifySession(
        input.sessionCookie,
        settings.sessionSecret,
        input.nowMs,
        sessionRevocations(),
      );
      return claims ? { kind: "person", person: { user: claims.user, role: claims.role } } : { kind: "anonymous" };
    }
  }
}

export const FORWARDED_USER = "x-breakwater-user";
export const FORWARDED_ROLE = "x-breakwater-role";

/** Request headers for the page or handler: client-sent copies removed, the verified person added. */
export function forwardHeaders(incoming: Headers, person: Person | null): Headers {
  const headers = new Headers(incoming);
  headers.delete(FORWARDED_USER);
  headers.delete(FORWARDED_ROLE);
  if (person) {
    headers.set(FORWARDED_USER, encodeURIComponent(person.user));
    headers.set(FORWARDED_ROLE, person.role);
  }
  return headers;
}

/** Why a person may not run an action that needs `need`; null when they may. */
export function personRefusal(person: Person | null, need: ActionNeed): string | null {
  if (!person) return "Refused: nobody is signed in to the console.";
  if (personMay(person.role, need)) return null;
  const what = need === "admin" ? "run system passes" : "run actions";
  return `Refused: your role (${person.role}) cannot ${what}; this needs ${need}.`;
}

/** The person proxy.ts verified for this request; null when none (or when auth is off). */
export function forwardedPerson(headers: HeaderSource): Person | null {
  const role = headers.get(FORWARDED_ROLE);
  const user = headers.get(FORWARDED_USER);
  if (!isPersonRole(role) || !user) return null;
  try {
    return { user: decodeURIComponent(user), role };
  } catch {
    return null;
  }
}
