import "server-only";
/**
 * Login throttling, in memory, per console process (docs/decisions/0009, 0012). Only wrong passwords
 * fill the buckets, and they are keyed so that a guesser throttles itself rather than its victims:
 *  - per (address, user): 5 wrong passwords, then one per 30 s — one address guessing one account;
 *  - per address: 20, then one per 3 s — one address spraying many account names;
 *  - per user, from every address: 50, then one per 60 s — a distributed guess at one account. When
 *    it is empty, an address that has no recent wrong password for that user is still let through
 *    to try: a correct password signs in, a wrong one is throttled. The victim is not locked out by
 *    failures that came from elsewhere;
 *  - every verification, process-wide: 60, then 5 per second — a ceiling on bcrypt work.
 * The address is the client's (behind trusted proxies, from X-Forwarded-For: lib/server/edge/hosts.ts).
 */

export interface BucketSpec {
  /** Attempts available at once. */
  capacity: number;
  /** Attempts regained per second. */
  refillPerSecond: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Bounded so a flood of distinct keys cannot grow memory without limit; the oldest entry goes first. */
const MAX_KEYS = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly spec: BucketSpec) {}

  private refreshed(key: string, nowMs: number): Bucket {
    const bucket = this.buckets.get(key);
    if (!bucket) return { tokens: this.spec.capacity, updatedMs: nowMs };
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    return {
      tokens: Math.min(this.spec.capacity, bucket.tokens + elapsed * this.spec.refillPerSecond),
      updatedMs: nowMs,
    };
  }

  /** Takes one token; false when the bucket is empty. */
  take(key: string, nowMs: number): boolean {
    const bucket = this.refreshed(key, nowMs);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_KEYS) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return allowed;
  }

  /** Seconds until one token is back (0 when one is available). */
  retryAfterSeconds(key: string, nowMs: number): number {
    const bucket = this.refreshed(key, nowMs);
    return bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) / this.spec.refillPerSecond);
  }

  /** True when nothing has been taken (or all of it has refilled). */
  full(key: string, nowMs: number): boolean {
    return this.refreshed(key, nowMs).tokens >= this.spec.capacity;
  }

  forget(key: string): void {
    this.buckets.delete(key);
  }
}

export interface LimiterSpecs {
  pair: BucketSpec;
  address: BucketSpec;
  user: BucketSpec;
  global: BucketSpec;
}

export const LOGIN_LIMITS: LimiterSpecs = {
  pair: { capacity: 5, refillPerSecond: 1 / 30 },
  address: { capacity: 20, refillPerSecond: 1 / 3 },
  user: { capacity: 50, refillPerSecond: 1 / 60 },
  global: { capacity: 60, refillPerSecond: 5 },
};

export type LoginThrottle = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class LoginLimiter {
  private readonly pair: TokenBuckets;
  private readonly address: TokenBuckets;
  private readonly user: TokenBuckets;
  private readonly global: TokenBuckets;

  constructor(specs: LimiterSpecs = LOGIN_LIMITS) {
    this.pair = new TokenBuckets(specs.pair);
    this.address = new TokenBuckets(specs.address);
    this.user = new TokenBuckets(specs.user);
    this.global = new TokenBuckets(specs.global);
  }

  /** Before verifying a password: may this attempt be checked at all? Charges only the global ceiling. */
  admit(address: string, user: string, nowMs: number): LoginThrottle {
    const pairKey = `${address}\u0000${user.toLowerCase()}`;
    const userKey = user.toLowerCase();
    const waits = [
      this.global.retryAfterSeconds("*", nowMs),
      this.address.retryAfterSeconds(address, nowMs),
      this.pair.retryAfterSeconds(pairKey, nowMs),
    ];
    // The per-user ceiling stops only addresses that have themselves guessed wrong for this user lately.
    if (!this.pair.full(pairKey, nowMs)) waits.push(this.user.retryAfterSeconds(userKey, nowMs));
    const wait = Math.max(...waits);
    if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
    this.global.take("*", nowMs);
    return { allowed: true };
  }

  /** After a wrong password: it counts against this address, this pair and the user's ceiling. */
  failed(address: string, user: string, nowMs: number): void {
    const userKey = user.toLowerCase();
    this.pair.take(`${address}\u0000${userKey}`, nowMs);
    this.address.take(address, nowMs);
    this.user.take(userKey, nowMs);
  }

  /** After a correct password: this address's mistakes for this user are forgiven. */
  succeeded(address: string, user: string): void {
    this.pair.forget(`${address}\u0000${user.toLowerCase()}`);
  }
}
