import "server-only";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { isDwError } from "@/lib/dw/errors";
import { PERSON_ROLES } from "@/lib/server/auth/roles";
import type { MetricsRead, SamplerClock, SamplerCredential, SamplerTimer } from "@/lib/server/metrics/sampler";
import { MAX_SAMPLED_NAMESPACES, RING_CAPACITY, SAMPLE_INTERVAL_MS, VIEWER_TTL_MS } from "@/lib/server/metrics/sampler";
import { getLogger } from "@/lib/server/process/log";
import { toSample } from "@/lib/views/metrics-samples";
import type { MetricsHistory, MetricsPoint, MetricsSample } from "@/lib/views/metrics-samples";
import { KEY_PREFIX, onRedis } from "./redis";

/**
 * The Overview's 24 h metrics history shared by every replica (docs/decisions/0027, 0064). Each
 * replica runs the same 15 s timer, but only the one holding the leader lock — a Redis key with an
 * expiry, renewed by its holder each tick — polls operator_metrics, so the server is polled once per
 * namespace however many replicas there are, and a replica that dies hands over within three ticks.
 * The points live in one Redis sorted set per namespace (score = time), so every replica answers
 * the same history. Which namespaces are sampled, by whose role, and when each was last viewed is one
 * Redis hash. The rules are the in-memory sampler's (lib/server/metrics/sampler.ts): 24 h at 15 s, a
 * namespace nobody viewed for 30 min is forgotten, at most 16 namespaces, a refused role is not retried.
 */

const LEADER = `${KEY_PREFIX}metrics:leader`;
const NAMESPACES = `${KEY_PREFIX}metrics:namespaces`;
const pointsKey = (namespace: string) => `${KEY_PREFIX}metrics:points:${namespace}`;

/** Holds the lock if free or already ours, for `ttl` ms more; 1 when we hold it. */
const LEAD = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
  return 1
end
return 0
`;

/** Adds a point after the newest (one not after it is dropped), trimmed to the newest `capacity`. */
const PUSH = `
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] ~= nil and tonumber(ARGV[1]) <= tonumber(newest[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]), ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
`;

interface Entry {
  lastViewedAt: number;
  credential: SamplerCredential;
  /** False after the server refused the credential: not polled until a viewer's read passes again. */
  armed: boolean;
}

function rank(credential: SamplerCredential): number {
  return credential === null ? -1 : PERSON_ROLES.indexOf(credential);
}

function refused(error: unknown): boolean {
  return isDwError(error) && (error.reason === "unauthorized" || error.reason === "forbidden");
}

function parseEntry(raw: string | null | undefined): Entry | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Entry;
  } catch {
    return null;
  }
}

export interface SharedSamplerOptions {
  read: MetricsRead;
  clock?: SamplerClock;
  timer?: SamplerTimer;
  intervalMs?: number;
  capacity?: number;
  viewerTtlMs?: number;
  maxNamespaces?: number;
  /** How long the leader lock outlives its holder's last tick (three intervals). */
  leaderTtlMs?: number;
}

export class RedisMetricsSampler {
  readonly intervalMs: number;
  private readonly capacity: number;
  private readonly viewerTtlMs: number;
  private readonly maxNamespaces: number;
  private readonly leaderTtlMs: number;
  private readonly read: MetricsRead;
  private readonly clock: SamplerClock;
  private readonly timer: SamplerTimer;
  private readonly id = randomUUID();
  private readonly controller = new AbortController();
  private stopTimer: (() => void) | null = null;
  private ticking = false;
  /** Whether this replica held the lock at its last tick (for tests and the log). */
  leading = false;

  constructor(
    private readonly client: Redis,
    options: SharedSamplerOptions,
  ) {
    this.read = options.read;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.timer =
      options.timer ??
      ((ms, tick) => {
        const handle = setInterval(tick, ms);
        handle.unref();
        return () => clearInterval(handle);
      });
    this.intervalMs = options.intervalMs ?? SAMPLE_INTERVAL_MS;
    this.capacity = options.capacity ?? RING_CAPACITY;
    this.viewerTtlMs = options.viewerTtlMs ?? VIEWER_TTL_MS;
    this.maxNamespaces = options.maxNamespaces ?? MAX_SAMPLED_NAMESPACES;
    this.leaderTtlMs = options.leaderTtlMs ?? this.intervalMs * 3;
  }

  /** As MetricsSampler.view, in Redis: false when the bound is reached. Throws SharedStateUnavailable. */
  async view(namespace: string, credential: SamplerCredential, sample: MetricsSample): Promise<boolean> {
    const existing = parseEntry(await onRedis(this.client, (c) => c.hget(NAMESPACES, namespace)));
    if (existing === null && (await onRedis(this.client, (c) => c.hlen(NAMESPACES))) >= this.maxNamespaces) {
      return false;
    }
    const keep = existing !== null && existing.armed && rank(credential) >= rank(existing.credential);
    const entry: Entry = {
      lastViewedAt: this.clock.now(),
      credential: keep ? existing.credential : credential,
      armed: true,
    };
    await onRedis(this.client, (c) => c.hset(NAMESPACES, namespace, JSON.stringify(entry)));
    await this.push(namespace, sample);
    this.stopTimer ??= this.timer(this.intervalMs, () => void this.tick());
    return true;
  }

  /** The namespace's points after `since`, the same on every replica. Throws SharedStateUnavailable. */
  async history(namespace: string, since: number | null): Promise<MetricsHistory> {
    const key = pointsKey(namespace);
    const [sampled, oldest, members] = await onRedis(this.client, (c) =>
      Promise.all([
        c.hexists(NAMESPACES, namespace),
        c.zrange(key, 0, 0, "WITHSCORES"),
        c.zrangebyscore(key, since === null ? "-inf" : `(${since}`, "+inf"),
      ]),
    );
    return {
      sampling: sampled === 1,
      intervalMs: this.intervalMs,
      since: oldest[1] === undefined ? null : Number(oldest[1]),
      points: members.map((member) => JSON.parse(member) as MetricsPoint),
    };
  }

  /** One round on this replica: lead if the lock is free or ours, and if so poll every viewed namespace. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const lead = await onRedis(this.client, (c) => c.eval(LEAD, 1, LEADER, this.id, this.leaderTtlMs));
      this.leading = lead === 1;
      if (!this.leading) return;
      const now = this.clock.now();
      const all = await onRedis(this.client, (c) => c.hgetall(NAMESPACES));
      const polls: Promise<void>[] = [];
      for (const [namespace, raw] of Object.entries(all)) {
        const entry = parseEntry(raw);
        if (entry === null || now - entry.lastViewedAt > this.viewerTtlMs) {
          await onRedis(this.client, (c) => c.multi().hdel(NAMESPACES, namespace).del(pointsKey(namespace)).exec());
        } else if (entry.armed) polls.push(this.poll(namespace, entry));
      }
      await Promise.all(polls);
    } catch (error) {
      // Redis unreachable: nobody samples until it is back; the charts show the gap.
      this.leading = false;
      getLogger().debug({ failure: error instanceof Error ? error.message : String(error) }, "metrics sampler tick");
    } finally {
      this.ticking = false;
    }
  }

  private async poll(namespace: string, entry: Entry): Promise<void> {
    try {
      await this.push(namespace, toSample(await this.read(namespace, entry.credential, this.controller.signal)));
    } catch (error) {
      await this.push(namespace, { at: this.clock.now(), gap: true });
      if (refused(error)) {
        const now = parseEntry(await onRedis(this.client, (c) => c.hget(NAMESPACES, namespace)));
        // Disarmed only if no viewer has since re-armed it with another role.
        if (now !== null && now.credential === entry.credential) {
          await onRedis(this.client, (c) => c.hset(NAMESPACES, namespace, JSON.stringify({ ...now, armed: false })));
        }
      }
    }
  }

  private async push(namespace: string, point: MetricsPoint): Promise<void> {
    // The whole ring lapses a day after its namespace was last written: nothing outlives its use.
    const ttl = this.capacity * this.intervalMs + this.viewerTtlMs;
    await onRedis(this.client, (c) =>
      c.eval(PUSH, 1, pointsKey(namespace), point.at, JSON.stringify(point), this.capacity, ttl),
    );
  }

  /** Stops the timer and any poll under way (tests; a process that shuts down). */
  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    this.controller.abort(new DOMException("the sampler stopped", "AbortError"));
  }
}
