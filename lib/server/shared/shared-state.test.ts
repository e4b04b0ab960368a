import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RevokedSessions } from "@/lib/server/auth/session";
import type { MetricsRead } from "@/lib/server/metrics/sampler";
import { MemoryInFlightLimiter } from "@/lib/server/proxy/person-limits";
import { LongPollPool } from "@/lib/server/run-view/long-poll-pool";
import type { MetricsSample } from "@/lib/views/metrics-samples";
import { RedisInFlightLimiter } from "./in-flight";
import { RedisPlaces } from "./leases";
import { RedisLoginBudget } from "./login-budget";
import { RedisMetricsSampler } from "./metrics-history";
import { newRedisClient } from "./redis";
import { RedisRevocations } from "./revocations";
import type { TestRedis } from "./redis-test-support";
import { startTestRedis } from "./redis-test-support";

/**
 * Issue 44 point 1 against a real redis-server (Debian's, started here on its own port): two
 * "replicas" are two clients, each with its own memory, so whatever one sees of the other went
 * through Redis. Then Redis is killed to check each failure mode (docs/decisions/0064).
 */

let redis: TestRedis;
let clients: Redis[] = [];

function replica(): Redis {
  const client = newRedisClient(redis.url);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await redis.stop();
});

beforeEach(async () => {
  const admin = replica();
  await admin.flushall();
});

afterEach(() => {
  for (const client of clients) client.disconnect();
  clients = [];
});

async function outage(): Promise<void> {
  await redis.kill();
  // Give the clients a moment to notice the dropped connection (event-driven, not a timing assertion).
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.status !== "ready") resolve();
          else client.once("close", () => resolve());
        }),
    ),
  );
}

describe("session revocations", () => {
  it("a sign-out on one replica is refused on the other", async () => {
    const a = new RedisRevocations(replica(), new RevokedSessions());
    const b = new RedisRevocations(replica(), new RevokedSessions());
    const now = Date.now();
    expect(await b.isRevoked("s1", now)).toBe(false);
    await a.revoke("s1", now + 60_000, now);
    expect(await b.isRevoked("s1", now)).toBe(true);
    expect(await b.isRevoked("s2", now)).toBe(false);
  });

  it("fails closed while Redis is down, and a sign-in is refused rather than issued", async () => {
    const b = new RedisRevocations(replica(), new RevokedSessions());
    expect(await b.available()).toBe(true);
    await outage();
    expect(await b.isRevoked("never-revoked", Date.now())).toBe(true);
    expect(await b.available()).toBe(false);
    await redis.restart();
  });
});

describe("login budget", () => {
  it("one (address, user) budget across replicas: 5 wrong passwords in all, wherever they land", async () => {
    const a = new RedisLoginBudget(replica());
    const b = new RedisLoginBudget(replica());
    for (let i = 0; i < 5; i++) {
      const budget = i % 2 === 0 ? a : b;
      expect(await budget.admit("10.0.0.9", "ada")).toEqual({ allowed: true });
      await budget.failed("10.0.0.9", "ada");
    }
    const refused = await b.admit("10.0.0.9", "ada");
    expect(refused.allowed).toBe(false);
    expect(await a.admit("10.0.0.9", "ADA")).toMatchObject({ allowed: false });
    // Another address is not throttled by this one's guesses.
    expect(await a.admit("10.0.0.10", "ada")).toEqual({ allowed: true });
    // A correct password forgives the pair's mistakes, on every replica.
    await a.succeeded("10.0.0.9", "ada");
    expect(await b.admit("10.0.0.9", "ada")).toEqual({ allowed: true });
  });

  it("with Redis down each replica falls back to its own budget in memory", async () => {
    const a = new RedisLoginBudget(replica());
    await outage();
    for (let i = 0; i < 5; i++) {
      expect(await a.admit("10.0.0.7", "ola")).toEqual({ allowed: true });
      await a.failed("10.0.0.7", "ola");
    }
    expect((await a.admit("10.0.0.7", "ola")).allowed).toBe(false);
    await redis.restart();
  });
});

describe("per-person places", () => {
  it("the limit counts every replica's places, and a released place is free everywhere", async () => {
    const a = new RedisInFlightLimiter(new RedisPlaces(replica()), new MemoryInFlightLimiter());
    const b = new RedisInFlightLimiter(new RedisPlaces(replica()), new MemoryInFlightLimiter());
    const first = await a.acquire("reads", "user:vic", 2);
    const second = await b.acquire("reads", "user:vic", 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await a.acquire("reads", "user:vic", 2)).toBeNull();
    expect(await b.acquire("reads", "user:vic", 2)).toBeNull();
    // Another person and another pool are counted apart.
    expect(await b.acquire("reads", "user:ada", 2)).not.toBeNull();
    expect(await b.acquire("streams", "user:vic", 2)).not.toBeNull();
    first?.release();
    const places = new RedisPlaces(replica());
    await expect.poll(() => places.count("person:reads:user:vic")).toBe(1);
    expect(await b.acquire("reads", "user:vic", 2)).not.toBeNull();
  });

  it("a place a dead replica held lapses after the lease; a live one renews its own", async () => {
    const deadClient = replica();
    const dead = new RedisPlaces(deadClient, 300, 100);
    const live = new RedisPlaces(replica(), 300, 100);
    expect(await live.take("p", 2)).not.toBeNull();
    expect(await dead.take("p", 2)).not.toBeNull();
    const other = new RedisPlaces(replica());
    expect(await other.take("p", 2)).toBeNull();
    // The dead replica stops renewing (its client goes away); the live one keeps its place.
    deadClient.disconnect();
    await expect.poll(() => other.count("p"), { timeout: 5_000 }).toBe(1);
    expect(await other.take("p", 2)).not.toBeNull();
    expect(await other.count("p")).toBe(2);
  });

  it("with Redis down the limit is this replica's own, not lifted", async () => {
    const a = new RedisInFlightLimiter(new RedisPlaces(replica()), new MemoryInFlightLimiter());
    await outage();
    expect(await a.acquire("reads", "user:vic", 1)).not.toBeNull();
    expect(await a.acquire("reads", "user:vic", 1)).toBeNull();
    await redis.restart();
  });
});

describe("long-poll cap", () => {
  it("is cluster-wide, one per run across replicas, and refuses (no long-poll) while Redis is down", async () => {
    const a = new LongPollPool(2, new RedisPlaces(replica()));
    const b = new LongPollPool(2, new RedisPlaces(replica()));
    expect(await a.tryTake("run-1")).toBe(true);
    // The same run on the other replica waits on nothing: it is already long-polled.
    expect(await b.tryTake("run-1")).toBe(false);
    expect(await b.tryTake("run-2")).toBe(true);
    expect(await b.tryTake("run-3")).toBe(false);
    expect(await a.tryTake("run-3")).toBe(false);
    expect(a.size + b.size).toBe(2);
    a.release("run-1");
    await expect.poll(() => new RedisPlaces(replica()).count("long-polls")).toBe(1);
    expect(await b.tryTake("run-3")).toBe(true);
    await outage();
    const c = new LongPollPool(2, new RedisPlaces(replica()));
    expect(await c.tryTake("run-4")).toBe(false);
    expect(c.size).toBe(0);
    await redis.restart();
  });
});

describe("metrics history", () => {
  const sample = (at: number, running: number): MetricsSample => ({
    at,
    running,
    repairNeeded: 0,
    tasksReady: 0,
    tasksLeased: 0,
    tasksUnhealthy: 0,
    activitiesRetrying: 0,
    failedAttempts: 0,
  });

  it("one leader polls, every replica answers the same history, and a dead leader is replaced", async () => {
    let now = 1_000_000;
    const polls: string[] = [];
    const reader =
      (name: string): MetricsRead =>
      () => {
        polls.push(name);
        return Promise.resolve({
          workflows: { running: now / 1000 },
        } as unknown as Awaited<ReturnType<MetricsRead>>);
      };
    const manual = () => () => undefined;
    const options = (name: string) => ({
      read: reader(name),
      clock: { now: () => now },
      timer: manual,
      leaderTtlMs: 500,
    });
    const clientA = replica();
    const clientB = replica();
    const a = new RedisMetricsSampler(clientA, options("a"));
    const b = new RedisMetricsSampler(clientB, options("b"));
    expect(await a.view("default", null, sample(now, 1))).toBe(true);
    for (let i = 0; i < 3; i++) {
      now += 15_000;
      await a.tick();
      await b.tick();
    }
    expect(a.leading !== b.leading).toBe(true);
    // Three rounds, one poll each: not one per replica.
    expect(polls).toHaveLength(3);
    const fromA = await a.history("default", null);
    const fromB = await b.history("default", null);
    expect(fromA.points).toHaveLength(4);
    expect(fromB).toEqual(fromA);
    expect(fromB.sampling).toBe(true);
    // The leader goes away; its lock lapses and the other takes over.
    const [leader, follower, leaderClient] = a.leading ? [a, b, clientA] : [b, a, clientB];
    leader.stop();
    leaderClient.disconnect();
    await expect
      .poll(
        async () => {
          now += 15_000;
          await follower.tick();
          return follower.leading;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
    const after = await follower.history("default", fromA.points.at(-1)?.at ?? null);
    expect(after.points.length).toBeGreaterThan(0);
  });

  it("with Redis down the history is unreadable (the route then answers its own read alone)", async () => {
    const a = new RedisMetricsSampler(replica(), {
      read: () => Promise.reject(new Error("unused")),
      timer: () => () => undefined,
    });
    await outage();
    await expect(a.history("default", null)).rejects.toThrow(/unavailable/);
    await redis.restart();
  });
});
