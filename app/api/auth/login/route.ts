import { NextResponse } from "next/server";
import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/process/config";
import { sameOriginProblem } from "@/lib/server/proxy/action-guard";
import { stampedPeer } from "@/lib/server/auth/peer";
import { safeNextPath } from "@/lib/server/auth/redirect";
import { withBasePath } from "@/lib/http/base-path";
import { issueSession, SESSION_COOKIE, sessionCookieOptions } from "@/lib/server/auth/session";
import { loadUsers, verifyPassword } from "@/lib/server/auth/users";
import { clientAddress, requestIsHttps } from "@/lib/server/edge/hosts";
import { getLogger } from "@/lib/server/process/log";
import { loginBudget, sessionRevocations } from "@/lib/server/shared/stores";

/**
 * `POST /api/auth/login` (password mode): the login form posts here; the answer is a 303 to where the
 * person was going, with the session cookie, or back to /login with the reason. Wrong passwords are
 * throttled per (address, user), per address and per user (rate-limit.ts): in this process, or for
 * every replica together with BREAKWATER_REDIS_URL (lib/server/shared/login-budget.ts).
 */

/**
 * A 303 with a relative Location: `request.url` carries the host Next was started with, which may
 * not be the one the browser used, and the session cookie belongs to the browser's host.
 */
function seeOther(location: string, extra?: Record<string, string>): NextResponse {
  // `location` is a console path; the browser needs it under the console's sub-path (BREAKWATER_BASE_PATH).
  const headers = { location: withBasePath(location), "cache-control": "no-store", ...extra };
  return new NextResponse(null, { status: 303, headers });
}

function backToLogin(error: string, next: string, extra?: Record<string, string>): NextResponse {
  const query = new URLSearchParams({ error });
  if (next !== "/") query.set("next", next);
  return seeOther(`/login?${query.toString()}`, extra);
}

export async function POST(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const auth = config.auth;
  if (auth.mode !== "password") {
    return NextResponse.json(
      { reason: "not_found", message: "Password sign-in is not enabled (BREAKWATER_AUTH).", httpStatus: 404 },
      { status: 404 },
    );
  }
  const crossOrigin = sameOriginProblem(request.headers);
  if (crossOrigin) {
    return NextResponse.json(
      { reason: "cross_origin", message: `Refused: ${crossOrigin}.`, httpStatus: 403 },
      { status: 403 },
    );
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return NextResponse.json(
      { reason: "invalid_request", message: "Expected a form submission.", httpStatus: 400 },
      { status: 400 },
    );
  }
  const user = String(form.get("user") ?? "")
    .trim()
    .slice(0, 128);
  const password = String(form.get("password") ?? "");
  const next = safeNextPath(form.get("next"));
  const peer = clientAddress(config.hosts, request.headers, stampedPeer(request.headers));
  const log = getLogger();

  if (!user || !password) return backToLogin("missing", next);
  const limiter = loginBudget();
  const throttle = await limiter.admit(peer, user, Date.now());
  if (!throttle.allowed) {
    log.warn({ user, peer, retryAfterSeconds: throttle.retryAfterSeconds }, "login throttled");
    return backToLogin("rate_limited", next, { "retry-after": String(throttle.retryAfterSeconds) });
  }

  let match;
  try {
    match = await verifyPassword(loadUsers(auth.usersFile), user, password);
  } catch (error) {
    log.error({ failure: error instanceof Error ? error.message : String(error) }, "users file unreadable");
    return backToLogin("unavailable", next);
  }
  if (!match) {
    await limiter.failed(peer, user, Date.now());
    log.info({ user, peer }, "login refused");
    return backToLogin("invalid", next);
  }

  await limiter.succeeded(peer, user);
  // A session whose sign-out could not be checked would be refused on the next request (fail closed):
  // say so here instead of signing the person in to a console that turns them away.
  if (!(await sessionRevocations().available())) {
    log.error({ user: match.user, peer }, "sign-in refused: session revocations (Redis) unavailable");
    return backToLogin("shared_state", next);
  }
  const session = await issueSession(
    { user: match.user, role: match.role },
    auth.sessionSecret,
    auth.sessionTtlSeconds,
    Date.now(),
  );
  log.info({ user: match.user, role: match.role, peer }, "signed in");
  const response = seeOther(next);
  response.cookies.set(SESSION_COOKIE, session, sessionCookieOptions(requestIsHttps(request), auth.sessionTtlSeconds));
  return response;
}
