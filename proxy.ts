import { NextResponse } from "next/server";
import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { authenticate, forwardHeaders } from "@/lib/server/auth/principal";
import type { Authentication } from "@/lib/server/auth/principal";
import { PEER_HEADER, peerStampInstalled } from "@/lib/server/auth/peer";
import { SESSION_COOKIE } from "@/lib/server/auth/session";
import { getLogger } from "@/lib/server/log";

/**
 * Console access control (BREAKWATER_AUTH), on every request but static assets: the request's person
 * is verified once here and forwarded to pages and handlers (lib/server/auth/principal.ts). Without
 * a person, pages redirect to /login and /api/* answers 401 JSON; the action guard then checks roles.
 */

const PUBLIC_PATHS = new Set(["/login", "/api/healthz", "/api/auth/login", "/api/auth/logout"]);

function isApi(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

function refuse(request: NextRequest, outcome: Authentication, mode: string): NextResponse {
  const noRole = outcome.kind === "no_role";
  if (isApi(request.nextUrl.pathname)) {
    const status = noRole ? 403 : 401;
    const message = noRole
      ? "Your account has no Breakwater role: none of your groups is in BREAKWATER_ROLE_GROUPS."
      : mode === "password"
        ? "Sign in to the console first."
        : "Sign in through the console's authentication proxy first.";
    return NextResponse.json({ reason: noRole ? "no_role" : "unauthenticated", message, httpStatus: status }, { status, headers: { "cache-control": "no-store" } });
  }
  const login = new URL("/login", request.url);
  if (noRole) login.searchParams.set("error", "no_role");
  const target = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  if (target !== "/") login.searchParams.set("next", target);
  return NextResponse.redirect(login, 303);
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const config = getConfig();
  const outcome = await authenticate(config.auth, {
    headers: request.headers,
    sessionCookie: request.cookies.get(SESSION_COOKIE)?.value,
    peer: peerStampInstalled() ? request.headers.get(PEER_HEADER) : null,
    nowMs: Date.now(),
  });
  if (outcome.kind === "untrusted_peer") {
    getLogger().warn({ peer: outcome.peer, path: request.nextUrl.pathname }, "identity headers from an address that is not a trusted proxy were ignored");
  }
  const person = outcome.kind === "person" ? outcome.person : null;
  const forwarded = NextResponse.next({ request: { headers: forwardHeaders(request.headers, person) } });
  if (outcome.kind === "open" || person || PUBLIC_PATHS.has(request.nextUrl.pathname)) return forwarded;
  return refuse(request, outcome, config.auth.mode);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|icon.svg|favicon.ico|apple-touch-icon.png|icon-192.png|icon-512.png|manifest.webmanifest|robots.txt).*)"],
};
