import "server-only";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { KEY_PREFIX, onRedis } from "./redis";

/**
 * Places held across replicas: a counting semaphore in one Redis sorted set per pool (member = the
 * place's id, score = when it lapses, in Redis's own clock so replicas' clocks need not agree).
 * Taking a place is one Lua script — drop lapsed places, refuse a member already there or a full set,
 * add — so two replicas can never both take the last place. A replica renews the places it holds
 * every RENEW_MS; one that dies stops renewing, and its places lapse after LEASE_MS instead of being
 * held for ever. This is a semaphore, not a rate limiter: rate-limiter-flexible counts per time
 * window, and these bounds are on what is in flight now (docs/decisions/0044, 0064).
 */

export const LEASE_MS = 30_000;
export const RENEW_MS = 10_000;

const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local renewed = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return renewed
`;

const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

/** One place held in a pool; release it once (later calls do nothing). */
export interface HeldPlace {
  readonly pool: string;
  readonly member: string;
  release(): Promise<void>;
}

export class RedisPlaces {
  private readonly held = new Map<string, { key: string; member: string }>();
  private renewal: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly client: Redis,
    private readonly leaseMs = LEASE_MS,
    private readonly renewMs = RENEW_MS,
  ) {}

  /**
   * A place in `pool` if fewer than `limit` are held cluster-wide (and `member` holds none yet:
   * give a run's key to allow one place per run); null when refused. Throws SharedStateUnavailable.
   */
  async take(pool: string, limit: number, member: string = randomUUID()): Promise<HeldPlace | null> {
    const key = `${KEY_PREFIX}places:${pool}`;
    const taken = await onRedis(this.client, (c) => c.eval(TAKE, 1, key, member, limit, this.leaseMs));
    if (taken !== 1) return null;
    const id = `${key}\u0000${member}`;
    this.held.set(id, { key, member });
    this.renewal ??= this.startRenewal();
    let released = false;
    return {
      pool,
      member,
      release: async () => {
        if (released) return;
        released = true;
        this.held.delete(id);
        if (this.held.size === 0) this.stopRenewal();
        // A failed release lapses by itself within LEASE_MS.
        await onRedis(this.client, (c) => c.zrem(key, member)).catch(() => undefined);
      },
    };
  }

  /** Places held in `pool` now, by every replica. */
  async count(pool: string): Promise<number> {
    return Number(await onRedis(this.client, (c) => c.eval(COUNT, 1, `${KEY_PREFIX}places:${pool}`)));
  }

  /** Places this process holds (any pool). */
  get heldHere(): number {
    return this.held.size;
  }

  /** Renews every place this process holds (the timer calls it; tests may too). */
  async renew(): Promise<void> {
    await Promise.all(
      [...this.held.values()].map(({ key, member }) =>
        onRedis(this.client, (c) => c.eval(RENEW, 1, key, member, this.leaseMs)).catch(() => undefined),
      ),
    );
  }

  private startRenewal(): ReturnType<typeof setInterval> {
    const handle = setInterval(() => void this.renew(), this.renewMs);
    handle.unref();
    return handle;
  }

  private stopRenewal(): void {
    if (this.renewal !== null) clearInterval(this.renewal);
    this.renewal = null;
  }
}
