import { NextResponse } from "next/server";
import type { NextRequest } from "next/server";
import { sameOriginProblem } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";
import { cookiePath, withBasePath } from "@/lib/http/base-path";
import { SESSION_COOKIE, verifySession } from "@/lib/server/auth/session";
import { getLogger } from "@/lib/server/process/log";
import { sessionRevocations } from "@/lib/server/shared/stores";

/**
 * `POST /api/auth/logout`: revokes the session (a copy of the cookie stops working too: on every replica
 * with BREAKWATER_REDIS_URL, else in this process until it restarts; lib/server/auth/session.ts), drops
 * the cookie and returns to /login. Same-origin only.
 */
export async function POST(request: NextRequest): Promise<Response> {
  const crossOrigin = sameOriginProblem(request.headers);
  if (crossOrigin) {
    return NextResponse.json(
      { reason: "cross_origin", message: `Refused: ${crossOrigin}.`, httpStatus: 403 },
      { status: 403 },
    );
  }
  const auth = getConfig().auth;
  if (auth.mode === "password") {
    const nowMs = Date.now();
    const revocations = sessionRevocations();
    const session = await verifySession(
      request.cookies.get(SESSION_COOKIE)?.value,
      auth.sessionSecret,
      nowMs,
      revocations,
    );
    if (session) {
      try {
        await revocations.revoke(session.id, session.expiresAtMs, nowMs);
      } catch (error) {
        // Revoked here only; the other replicas refuse every session while Redis is down anyway (fail closed).
        getLogger().error(
          { user: session.user, failure: error instanceof Error ? error.message : String(error) },
          "sign-out not shared: Redis unavailable",
        );
      }
    }
  }
  // Relative, so the browser stays on the host it used (request.url carries Next's own host name).
  const response = new NextResponse(null, {
    status: 303,
    headers: { location: withBasePath("/login?error=signed_out"), "cache-control": "no-store" },
  });
  // Same path and flags as the cookie set at sign-in, or the browser keeps the old one.
  response.cookies.set(SESSION_COOKIE, "", { path: cookiePath(), maxAge: 0, httpOnly: true, sameSite: "lax" });
  return response;
}
