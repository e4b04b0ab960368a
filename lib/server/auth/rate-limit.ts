/**
 * Login throttling: a token bucket per client address and one per user name, in memory. State is per
 * console process (docs/decisions/0009): several instances behind a balancer each allow the budget.
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
    return { tokens: Math.min(this.spec.capacity, bucket.tokens + elapsed * this.spec.refillPerSecond), updatedMs: nowMs };
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
}

export const IP_BUCKET: BucketSpec = { capacity: 20, refillPerSecond: 1 / 3 };
export const USER_BUCKET: BucketSpec = { capacity: 5, refillPerSecond: 1 / 30 };

export type LoginThrottle = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class LoginLimiter {
  private readonly byAddress: TokenBuckets;
  private readonly byUser: TokenBuckets;

  constructor(ipSpec: BucketSpec = IP_BUCKET, userSpec: BucketSpec = USER_BUCKET) {
    this.byAddress = new TokenBuckets(ipSpec);
    this.byUser = new TokenBuckets(userSpec);
  }

  /** One login attempt: both buckets must have a token (both are charged only when both do). */
  attempt(address: string, user: string, nowMs: number): LoginThrottle {
    const userKey = user.toLowerCase();
    const addressWait = this.byAddress.retryAfterSeconds(address, nowMs);
    const userWait = this.byUser.retryAfterSeconds(userKey, nowMs);
    if (addressWait > 0 || userWait > 0) return { allowed: false, retryAfterSeconds: Math.max(addressWait, userWait) };
    this.byAddress.take(address, nowMs);
    this.byUser.take(userKey, nowMs);
    return { allowed: true };
  }
}
