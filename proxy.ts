import { NextResponse } from "next/server";
import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { authenticate, forwardHeaders } from "@/lib/server/auth/principal";
import { FORWARDED_PATH } from "@/lib/server/proxy/attribution";
import type { Authentication } from "@/lib/server/auth/principal";
import { REPEATED_HEADER, stampedPeer } from "@/lib/server/auth/peer";
import { SESSION_COOKIE } from "@/lib/server/auth/session";
import { contentSecurityPolicy, newNonce } from "@/lib/server/edge/csp";
import { checkHost, requestIsHttps, VALIDATED_HOST } from "@/lib/server/edge/hosts";
import { getLogger } from "@/lib/server/process/log";
import { PAGE_NAMESPACE_HEADER } from "@/lib/server/proxy/request-namespace";
import { NAMESPACE_COOKIE, parseNamespace, preferenceCookie } from "@/lib/preferences";
import { legacyRedirectPath, routeParam } from "@/lib/routes/route-for";

/**
 * Every request but static assets passes here, in this order (docs/decisions/0009, 0012):
 *  1. the Host allow-list (DNS rebinding): a name the console is not known by gets 421 (but for
 *     the health check);
 *  2. a path whose percent-encoding does not decode gets 400 (not a 500 further in);
 *  3. repeated identity headers get 400 (a second X-Forwarded-Groups must not add a group);
 *  4. console access control: the request's person is verified once and forwarded to pages and
 *     handlers (lib/server/auth/principal.ts); without one, pages redirect to /login and /api/*
 *     answers 401 JSON; the action guard then checks roles;
 *  5. the console's paths from before the namespace moved into the URL (`/`, `/runs`,
 *     `/workflows/…`) redirect to the same screen in the last-used namespace (docs/decisions/0017);
 *  6. a Content-Security-Policy with a fresh nonce, in the request (Next.js puts it on its scripts)
 *     and in the response; `upgrade-insecure-requests` only over https (requestIsHttps: the peer
 *     stamp already deleted every forwarded header a peer outside BREAKWATER_TRUSTED_PROXIES sent).
 */

const PUBLIC_PATHS = new Set([
  "/login",
  "/api/healthz",
  "/api/readyz",
  "/api/auth/login",
  "/api/auth/logout",
  // Answers a scraper's token or an admin itself (lib/server/metrics/scrape-access.ts).
  "/api/metrics/prometheus",
]);
/**
 * Load balancers and Kubernetes probes address an instance by its IP, and the answer is `{"ok":true}`
 * and nothing else: a rebinding page learns only that a console is alive there.
 */
const ANY_HOST_PATHS = new Set(["/api/healthz", "/api/readyz"]);
const NO_STORE = { "cache-control": "no-store" };

function isApi(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

function answer(request: NextRequest, status: number, reason: string, message: string): NextResponse {
  if (isApi(request.nextUrl.pathname))
    return NextResponse.json({ reason, message, httpStatus: status }, { status, headers: NO_STORE });
  return new NextResponse(`${message}\n`, {
    status,
    headers: { ...NO_STORE, "content-type": "text/plain; charset=utf-8" },
  });
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
    return NextResponse.json(
      { reason: noRole ? "no_role" : "unauthenticated", message, httpStatus: status },
      { status, headers: NO_STORE },
    );
  }
  // A copy of the request's URL keeps Next's basePath (the console's sub-path) in the redirect.
  const login = request.nextUrl.clone();
  login.pathname = "/login";
  login.search = "";
  if (noRole) login.searchParams.set("error", "no_role");
  const target = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  if (target !== "/") login.searchParams.set("next", target);
  return NextResponse.redirect(login, 303);
}

function decodablePath(pathname: string): boolean {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** Identity-carrying headers that must arrive at most once: repeated, Node would join them into one list. */
function repeatedIdentityHeader(config: ConsoleConfig, headers: Headers): string | null {
  const repeated = (headers.get(REPEATED_HEADER) ?? "").split(",").filter((name) => name !== "");
  const identity = ["x-forwarded-host"];
  if (config.auth.mode === "proxy") {
    identity.push(config.auth.userHeader, config.auth.emailHeader);
    // oauth2-proxy (reverse-proxy mode) sends one line per group, having deleted the client's own.
    if (!config.auth.joinRepeatedGroups) identity.push(config.auth.groupsHeader);
  }
  return repeated.find((name) => identity.includes(name)) ?? null;
}

/** Early checks that answer before authentication; otherwise the validated host. */
function precheck(
  request: NextRequest,
  config: ConsoleConfig,
  peer: string | null,
): { refusal: NextResponse } | { host: string | null } {
  const host = checkHost(config.hosts, request.headers, peer);
  if (!host.ok && !ANY_HOST_PATHS.has(request.nextUrl.pathname)) {
    getLogger().warn(
      { host: host.host.slice(0, 200), peer, path: request.nextUrl.pathname },
      "request for a host the console does not answer to",
    );
    const message = `This console does not answer to the host "${host.host.slice(0, 200)}". Add it to BREAKWATER_ALLOWED_HOSTS if it is the console's own name.`;
    return { refusal: answer(request, 421, "host_not_allowed", message) };
  }
  if (!decodablePath(request.nextUrl.pathname)) {
    return { refusal: answer(request, 400, "invalid_path", "The request path is not valid percent-encoded UTF-8.") };
  }
  const repeated = repeatedIdentityHeader(config, request.headers);
  if (repeated) {
    getLogger().warn({ header: repeated, peer }, "repeated identity header refused");
    return { refusal: answer(request, 400, "repeated_header", `The ${repeated} header was sent more than once.`) };
  }
  return { host: host.ok ? host.host : null };
}

/** The namespace the last-used cookie names, else DW_NAMESPACE: where bare old paths go. */
function lastNamespace(request: NextRequest, config: ConsoleConfig): string {
  return parseNamespace(request.cookies.get(NAMESPACE_COOKIE)?.value) ?? config.namespace;
}

/** Old links keep working: `/runs?status=failed` → `/namespaces/{last}/runs?status=failed` (307: it depends on the cookie). */
function legacyRedirect(request: NextRequest, config: ConsoleConfig): NextResponse | null {
  const target = legacyRedirectPath(request.nextUrl.pathname, lastNamespace(request, config));
  if (target === null) return null;
  const url = request.nextUrl.clone();
  url.pathname = target;
  return NextResponse.redirect(url, 307);
}

/** The namespace a `/namespaces/{ns}/…` page shows, which becomes the last used one. */
function visitedNamespace(pathname: string): string | null {
  const match = /^\/namespaces\/([^/]+)/.exec(pathname);
  return match?.[1] ? parseNamespace(routeParam(match[1])) : null;
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const config = getConfig();
  const peer = stampedPeer(request.headers);
  const checked = precheck(request, config, peer);
  if ("refusal" in checked) return checked.refusal;

  const outcome = await authenticate(config.auth, {
    headers: request.headers,
    sessionCookie: request.cookies.get(SESSION_COOKIE)?.value,
    peer,
    nowMs: Date.now(),
  });
  if (outcome.kind === "untrusted_peer") {
    getLogger().warn(
      { peer: outcome.peer, path: request.nextUrl.pathname },
      "identity headers from an address that is not a trusted proxy were ignored",
    );
  }
  const person = outcome.kind === "person" ? outcome.person : null;
  if (!(outcome.kind === "open" || person || PUBLIC_PATHS.has(request.nextUrl.pathname)))
    return refuse(request, outcome, config.auth.mode);
  const redirected = legacyRedirect(request, config);
  if (redirected) return redirected;

  const csp = contentSecurityPolicy(newNonce(), {
    https: requestIsHttps(request),
    dev: process.env.NODE_ENV === "development",
  });
  const headers = forwardHeaders(request.headers, person);
  // Replaces any client-sent copy; absent (the health check on a foreign name), nothing is same-origin.
  if (checked.host) headers.set(VALIDATED_HOST, checked.host);
  else headers.delete(VALIDATED_HOST);
  headers.set("content-security-policy", csp);
  headers.set(FORWARDED_PATH, request.nextUrl.pathname);
  const visited = visitedNamespace(request.nextUrl.pathname);
  if (visited) headers.set(PAGE_NAMESPACE_HEADER, visited);
  else headers.delete(PAGE_NAMESPACE_HEADER);
  const forwarded = NextResponse.next({ request: { headers } });
  forwarded.headers.set("content-security-policy", csp);
  if (visited && visited !== request.cookies.get(NAMESPACE_COOKIE)?.value)
    forwarded.headers.append("set-cookie", preferenceCookie(NAMESPACE_COOKIE, visited));
  return forwarded;
}

export const config = {
  matcher: [
    "/((?!_next/static|_next/image|icon.svg|favicon.ico|apple-touch-icon.png|icon-192.png|icon-512.png|manifest.webmanifest|robots.txt).*)",
  ],
};
