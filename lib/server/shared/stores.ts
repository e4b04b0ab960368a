import "server-only";
import type { Redis } from "ioredis";
import { revokedSessions } from "@/lib/server/auth/session";
import { getConfig } from "@/lib/server/process/config";
import { redisClient } from "./redis";
import { RedisPlaces } from "./leases";
import type { LoginBudget } from "./login-budget";
import { MemoryLoginBudget, RedisLoginBudget } from "./login-budget";
import type { SessionRevocations } from "./revocations";
import { MemoryRevocations, RedisRevocations } from "./revocations";

/**
 * Where each piece of state replicas must agree on lives (docs/decisions/0064): in Redis when
 * BREAKWATER_REDIS_URL is set, else in this process's memory as before. Each is made once per
 * process, on globalThis (proxy.ts and the route handlers are separate bundles in one process).
 */

const REGISTRY = Symbol.for("breakwater.shared-stores");

interface Stores {
  url: string | null;
  revocations?: SessionRevocations;
  places?: RedisPlaces;
  login?: LoginBudget;
}

function stores(): Stores {
  const url = getConfig().redisUrl;
  const registry = globalThis as { [REGISTRY]?: Stores };
  if (registry[REGISTRY]?.url !== url) registry[REGISTRY] = { url };
  return registry[REGISTRY];
}

/** The shared Redis client, or null when replicas share nothing. */
export function sharedRedis(): Redis | null {
  const url = stores().url;
  return url === null ? null : redisClient(url);
}

export function sessionRevocations(): SessionRevocations {
  const held = stores();
  const redis = sharedRedis();
  held.revocations ??=
    redis === null ? new MemoryRevocations(revokedSessions()) : new RedisRevocations(redis, revokedSessions());
  return held.revocations;
}

/** Cluster-wide places (per-person limits, the long-poll cap), or null without Redis. */
export function sharedPlaces(): RedisPlaces | null {
  const held = stores();
  const redis = sharedRedis();
  if (redis === null) return null;
  held.places ??= new RedisPlaces(redis);
  return held.places;
}

/** The login budgets: one for every replica with Redis, else this process's. */
export function loginBudget(): LoginBudget {
  const held = stores();
  const redis = sharedRedis();
  held.login ??= redis === null ? new MemoryLoginBudget() : new RedisLoginBudget(redis);
  return held.login;
}
