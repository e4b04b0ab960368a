import "server-only";
import type { Redis } from "ioredis";
import type { RevokedSessions } from "@/lib/server/auth/session";
import { getLogger } from "@/lib/server/process/log";
import { KEY_PREFIX, onRedis } from "./redis";

/**
 * Signed-out sessions. In memory (RevokedSessions, one process) without BREAKWATER_REDIS_URL; with
 * it, in Redis — one key per signed-out session id, expiring when the session would have — so a
 * sign-out on one replica refuses the cookie on every replica (docs/decisions/0064).
 */
export interface SessionRevocations {
  revoke(id: string, expiresAtMs: number, nowMs: number): Promise<void>;
  /** True when revoked — and, with Redis, when that cannot be known now: a check fails closed. */
  isRevoked(id: string, nowMs: number): Promise<boolean>;
  /** Whether a new session can be checked at all (the login route refuses to issue one it could not honour). */
  available(): Promise<boolean>;
}

export class MemoryRevocations implements SessionRevocations {
  constructor(private readonly revoked: RevokedSessions) {}

  revoke(id: string, expiresAtMs: number, nowMs: number): Promise<void> {
    this.revoked.revoke(id, expiresAtMs, nowMs);
    return Promise.resolve();
  }

  isRevoked(id: string, nowMs: number): Promise<boolean> {
    return Promise.resolve(this.revoked.has(id, nowMs));
  }

  available(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

export class RedisRevocations implements SessionRevocations {
  constructor(
    private readonly client: Redis,
    /** This process's own list too: a sign-out here holds here even when Redis missed it. */
    private readonly local: RevokedSessions,
  ) {}

  private key(id: string): string {
    return `${KEY_PREFIX}revoked:${id}`;
  }

  async revoke(id: string, expiresAtMs: number, nowMs: number): Promise<void> {
    this.local.revoke(id, expiresAtMs, nowMs);
    if (expiresAtMs <= nowMs) return;
    // PX from this process's clock: a skew of seconds only shortens or lengthens the tail of an 8 h session.
    await onRedis(this.client, (c) => c.set(this.key(id), "1", "PX", expiresAtMs - nowMs));
  }

  async isRevoked(id: string, nowMs: number): Promise<boolean> {
    if (this.local.has(id, nowMs)) return true;
    try {
      return (await onRedis(this.client, (c) => c.exists(this.key(id)))) === 1;
    } catch (error) {
      // Fail closed: a session that may have been signed out elsewhere is not honoured.
      getLogger().warn(
        { failure: error instanceof Error ? error.message : String(error) },
        "session refused: revocations unreadable",
      );
      return true;
    }
  }

  async available(): Promise<boolean> {
    try {
      return (await onRedis(this.client, (c) => c.ping())) === "PONG";
    } catch {
      return false;
    }
  }
}
