import { NextResponse } from "next/server";
import type { NextRequest } from "next/server";
import { sameOriginProblem } from "@/lib/server/action-guard";
import { SESSION_COOKIE } from "@/lib/server/auth/session";

/** `POST /api/auth/logout`: drops the session cookie and returns to /login. Same-origin only. */
export function POST(request: NextRequest): Response {
  const crossOrigin = sameOriginProblem(request.headers);
  if (crossOrigin) {
    return NextResponse.json({ reason: "cross_origin", message: `Refused: ${crossOrigin}.`, httpStatus: 403 }, { status: 403 });
  }
  // Relative, so the browser stays on the host it used (request.url carries Next's own host name).
  const response = new NextResponse(null, { status: 303, headers: { location: "/login?error=signed_out", "cache-control": "no-store" } });
  // Same path and flags as the cookie set at sign-in, or the browser keeps the old one.
  response.cookies.set(SESSION_COOKIE, "", { path: "/", maxAge: 0, httpOnly: true, sameSite: "lax" });
  return response;
}
