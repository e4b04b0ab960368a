import "server-only";
import { Redis } from "ioredis";
import { getLogger } from "@/lib/server/process/log";

/**
 * The one Redis connection of a console process (BREAKWATER_REDIS_URL; docs/decisions/0064), on
 * globalThis because proxy.ts and each route handler may be separate bundles in one process.
 *
 * Failure is fast and visible: a command waits at most COMMAND_TIMEOUT_MS, and while the connection
 * is down (reconnecting) a command fails at once instead of queueing. What each caller does then is
 * its own safe choice (the decision record lists them): revocation checks fail closed, budgets fall
 * back to this process's memory, the long-poll cap refuses, the metrics history shows a gap.
 */

export const KEY_PREFIX = "bw:";
const COMMAND_TIMEOUT_MS = 1_000;

export class SharedStateUnavailable extends Error {
  constructor(cause: unknown) {
    super(`shared state (Redis) unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "SharedStateUnavailable";
  }
}

const CLIENTS = Symbol.for("breakwater.redis-clients");

/** A new client for `url`: commands time out, a dropped connection reconnects with backoff. */
export function newRedisClient(url: string): Redis {
  const client = new Redis(url, {
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let down = false;
  client.on("error", (error: Error) => {
    // One line per outage, not one per reconnection attempt.
    if (down) return;
    down = true;
    getLogger().error({ failure: error.message }, "shared state (Redis) unreachable");
  });
  client.on("ready", () => {
    if (down) getLogger().info({}, "shared state (Redis) reachable again");
    down = false;
  });
  return client;
}

/** The process's client for `url`, connecting on first use. */
export function redisClient(url: string): Redis {
  const registry = globalThis as { [CLIENTS]?: Map<string, Redis> };
  registry[CLIENTS] ??= new Map();
  let client = registry[CLIENTS].get(url);
  if (client === undefined) {
    client = newRedisClient(url);
    registry[CLIENTS].set(url, client);
  }
  return client;
}

/**
 * Runs `command` on the client, or throws SharedStateUnavailable at once when the connection is
 * known to be down (a queued command would only add a second of latency to every request).
 */
export async function onRedis<T>(client: Redis, command: (client: Redis) => Promise<T>): Promise<T> {
  if (client.status === "reconnecting" || client.status === "end" || client.status === "close") {
    throw new SharedStateUnavailable(new Error(`connection ${client.status}`));
  }
  try {
    return await command(client);
  } catch (error) {
    throw new SharedStateUnavailable(error);
  }
}

/**
 * Resolves once a client that is still making its first connection has made it (or after a second);
 * at once when it is ready or known to be down. Callers that check `status` themselves (the login
 * budget's rate limiter) wait here first, so a console's first requests do not count as an outage.
 */
export async function settled(client: Redis, timeoutMs = COMMAND_TIMEOUT_MS): Promise<void> {
  if (client.status !== "connecting" && client.status !== "connect" && client.status !== "wait") return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      client.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once("ready", done);
    client.once("close", done);
  });
}

/** Test support: close every client this process opened. */
export async function closeRedisClients(): Promise<void> {
  const registry = globalThis as { [CLIENTS]?: Map<string, Redis> };
  const clients = [...(registry[CLIENTS]?.values() ?? [])];
  registry[CLIENTS]?.clear();
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
}
