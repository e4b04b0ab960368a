import "server-only";
import { randomUUID } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import type { PersonRole } from "./roles";
import { isPersonRole } from "./roles";
import { cookiePath } from "@/lib/http/base-path";
import type { SessionRevocations } from "@/lib/server/shared/revocations";

/**
 * Password-mode sessions: an HS256 JWT (jose) in an HttpOnly, SameSite=Lax cookie, Secure when the
 * console is reached over https. The token carries who and which role, and expires after the TTL;
 * a changed, re-signed or expired cookie verifies to null. Each session has an id (`jti`); signing
 * out revokes it until it would have expired, so a copied cookie stops working: in this process
 * (RevokedSessions), or on every replica with BREAKWATER_REDIS_URL (lib/server/shared/revocations.ts).
 */

export const SESSION_COOKIE = "bw_session";
const ISSUER = "breakwater-console";
const AUDIENCE = "breakwater-console";

export interface SessionClaims {
  user: string;
  role: PersonRole;
}

export interface VerifiedSession extends SessionClaims {
  id: string;
  expiresAtMs: number;
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function issueSession(
  claims: SessionClaims,
  secret: string,
  ttlSeconds: number,
  nowMs: number,
): Promise<string> {
  const issuedAt = Math.floor(nowMs / 1000);
  return new SignJWT({ role: claims.role })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(claims.user)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setJti(randomUUID())
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(key(secret));
}

export async function verifySession(
  token: string | undefined,
  secret: string,
  nowMs: number,
  /** Where sign-outs are kept: lib/server/shared/stores.ts sessionRevocations() (this process's by default). */
  revocations: Pick<SessionRevocations, "isRevoked"> = {
    isRevoked: (id, now) => Promise.resolve(revokedSessions().has(id, now)),
  },
): Promise<VerifiedSession | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: new Date(nowMs),
      requiredClaims: ["exp", "sub", "jti"],
    });
    if (
      typeof payload.sub !== "string" ||
      !isPersonRole(payload.role) ||
      typeof payload.jti !== "string" ||
      typeof payload.exp !== "number"
    )
      return null;
    const session = { user: payload.sub, role: payload.role, id: payload.jti, expiresAtMs: payload.exp * 1000 };
    return (await revocations.isRevoked(session.id, nowMs)) ? null : session;
  } catch {
    return null;
  }
}

export interface CookieOptions {
  httpOnly: true;
  sameSite: "lax";
  secure: boolean;
  /** The console's sub-path, or "/" (lib/http/base-path.ts): other apps on the host never get the cookie. */
  path: string;
  maxAge: number;
}

export function sessionCookieOptions(https: boolean, ttlSeconds: number): CookieOptions {
  return { httpOnly: true, sameSite: "lax", secure: https, path: cookiePath(), maxAge: ttlSeconds };
}

/**
 * Sessions signed out before they expired, in this process's memory: bounded (the soonest-expiring
 * entry goes first when full) and forgotten on restart; each console instance has its own unless
 * BREAKWATER_REDIS_URL shares them (docs/configuration.md, "Console access control"). On globalThis because proxy.ts and the route handlers are separate
 * bundles in one process.
 */
export class RevokedSessions {
  private readonly until = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  revoke(id: string, expiresAtMs: number, nowMs: number): void {
    this.prune(nowMs);
    if (this.until.size >= this.capacity) {
      let soonest: string | undefined;
      let soonestMs = Infinity;
      for (const [key, ms] of this.until) if (ms < soonestMs) [soonest, soonestMs] = [key, ms];
      if (soonest !== undefined) this.until.delete(soonest);
    }
    this.until.set(id, expiresAtMs);
  }

  has(id: string, nowMs: number): boolean {
    const until = this.until.get(id);
    return until !== undefined && until > nowMs;
  }

  get size(): number {
    return this.until.size;
  }

  private prune(nowMs: number): void {
    for (const [key, ms] of this.until) if (ms <= nowMs) this.until.delete(key);
  }
}

const REVOKED = Symbol.for("breakwater.revoked-sessions");

export function revokedSessions(): RevokedSessions {
  const registry = globalThis as { [REVOKED]?: RevokedSessions };
  registry[REVOKED] ??= new RevokedSessions();
  return registry[REVOKED];
}
