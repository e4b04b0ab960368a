import "server-only";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import type { RateLimiterRes } from "rate-limiter-flexible";
import type { BucketSpec, LimiterSpecs, LoginThrottle } from "@/lib/server/auth/rate-limit";
import { LOGIN_LIMITS, LoginLimiter } from "@/lib/server/auth/rate-limit";
import { KEY_PREFIX, settled } from "./redis";

/**
 * The login budgets (lib/server/auth/rate-limit.ts) as one interface: this process's token buckets
 * without BREAKWATER_REDIS_URL, and with it rate-limiter-flexible's RateLimiterRedis, so a guesser
 * has one budget however many replicas the balancer spreads them over (docs/decisions/0064).
 */
export interface LoginBudget {
  admit(address: string, user: string, nowMs: number): Promise<LoginThrottle>;
  failed(address: string, user: string, nowMs: number): Promise<void>;
  succeeded(address: string, user: string): Promise<void>;
}

export class MemoryLoginBudget implements LoginBudget {
  constructor(private readonly limiter = new LoginLimiter()) {}

  admit(address: string, user: string, nowMs: number): Promise<LoginThrottle> {
    return Promise.resolve(this.limiter.admit(address, user, nowMs));
  }

  failed(address: string, user: string, nowMs: number): Promise<void> {
    this.limiter.failed(address, user, nowMs);
    return Promise.resolve();
  }

  succeeded(address: string, user: string): Promise<void> {
    this.limiter.succeeded(address, user);
    return Promise.resolve();
  }
}

/**
 * A bucket of `capacity` refilled at `refillPerSecond` becomes a window of `capacity` attempts per
 * the time it takes to refill: the same number of guesses per hour, counted in fixed windows (the
 * shape rate-limiter-flexible keeps in one Redis key). When Redis fails, each limiter falls back to
 * its insurance limiter, the same window in this process's memory: per replica, as without Redis.
 */
function windowed(client: Redis, name: string, spec: BucketSpec): RateLimiterRedis {
  const options = { points: spec.capacity, duration: Math.ceil(spec.capacity / spec.refillPerSecond) };
  return new RateLimiterRedis({
    ...options,
    storeClient: client,
    // While Redis is down, straight to the insurance limiter: no second of waiting per attempt.
    rejectIfRedisNotReady: true,
    keyPrefix: `${KEY_PREFIX}login:${name}`,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

function used(result: RateLimiterRes | null): number {
  return result?.consumedPoints ?? 0;
}

export class RedisLoginBudget implements LoginBudget {
  private readonly pair: RateLimiterRedis;
  private readonly address: RateLimiterRedis;
  private readonly user: RateLimiterRedis;
  private readonly global: RateLimiterRedis;

  constructor(
    private readonly client: Redis,
    specs: LimiterSpecs = LOGIN_LIMITS,
  ) {
    this.pair = windowed(client, "pair", specs.pair);
    this.address = windowed(client, "address", specs.address);
    this.user = windowed(client, "user", specs.user);
    this.global = windowed(client, "global", specs.global);
  }

  /** Seconds until the window of `result` has room again; 0 when it has room now. */
  private static wait(limiter: RateLimiterRedis, result: RateLimiterRes | null): number {
    if (result === null || result.consumedPoints < limiter.points) return 0;
    return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  }

  async admit(address: string, user: string): Promise<LoginThrottle> {
    await settled(this.client);
    const pairKey = `${address}\u0000${user.toLowerCase()}`;
    const [global, byAddress, pair] = await Promise.all([
      this.global.get("*"),
      this.address.get(address),
      this.pair.get(pairKey),
    ]);
    const waits = [
      RedisLoginBudget.wait(this.global, global),
      RedisLoginBudget.wait(this.address, byAddress),
      RedisLoginBudget.wait(this.pair, pair),
    ];
    // As in memory: the per-user ceiling stops only addresses that have themselves guessed wrong lately.
    if (used(pair) > 0) waits.push(RedisLoginBudget.wait(this.user, await this.user.get(user.toLowerCase())));
    const wait = Math.max(...waits);
    if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
    await this.global.consume("*").catch(() => undefined);
    return { allowed: true };
  }

  async failed(address: string, user: string): Promise<void> {
    await settled(this.client);
    const userKey = user.toLowerCase();
    // A consume past the limit rejects with the limiter's answer: the attempt is still counted.
    await Promise.all([
      this.pair.consume(`${address}\u0000${userKey}`).catch(() => undefined),
      this.address.consume(address).catch(() => undefined),
      this.user.consume(userKey).catch(() => undefined),
    ]);
  }

  async succeeded(address: string, user: string): Promise<void> {
    await settled(this.client);
    await this.pair.delete(`${address}\u0000${user.toLowerCase()}`).catch(() => undefined);
  }
}
