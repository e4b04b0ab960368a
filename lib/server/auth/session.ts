import { jwtVerify, SignJWT } from "jose";
import type { PersonRole } from "./roles";
import { isPersonRole } from "./roles";

/**
 * Password-mode sessions: an HS256 JWT (jose) in an HttpOnly, SameSite=Lax cookie, Secure when the
 * console is reached over https. The token carries who and which role, and expires after the TTL;
 * a changed, re-signed or expired cookie verifies to null.
 */

export const SESSION_COOKIE = "bw_session";
const ISSUER = "breakwater-console";
const AUDIENCE = "breakwater-console";

export interface SessionClaims {
  user: string;
  role: PersonRole;
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function issueSession(claims: SessionClaims, secret: string, ttlSeconds: number, nowMs: number): Promise<string> {
  const issuedAt = Math.floor(nowMs / 1000);
  return new SignJWT({ role: claims.role })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(claims.user)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(key(secret));
}

export async function verifySession(token: string | undefined, secret: string, nowMs: number): Promise<SessionClaims | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: new Date(nowMs),
      requiredClaims: ["exp", "sub"],
    });
    if (typeof payload.sub !== "string" || !isPersonRole(payload.role)) return null;
    return { user: payload.sub, role: payload.role };
  } catch {
    return null;
  }
}

export interface CookieOptions {
  httpOnly: true;
  sameSite: "lax";
  secure: boolean;
  path: "/";
  maxAge: number;
}

export function sessionCookieOptions(https: boolean, ttlSeconds: number): CookieOptions {
  return { httpOnly: true, sameSite: "lax", secure: https, path: "/", maxAge: ttlSeconds };
}
