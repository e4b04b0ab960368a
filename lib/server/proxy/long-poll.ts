import "server-only";
import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER, SCHEMA_DECODERS, longPollLimitMs } from "@/lib/dw/client";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { credentialHeaders } from "@/lib/server/proxy/credentials";

/**
 * How long the read proxy waits for a history long-poll: the server's advertised hold (cluster/info
 * `worker_protocol.server_capabilities.long_poll_timeout`) plus a grace, learned once per server and
 * kept for a minute, so a deployment with DW_WORKER_POLL_TIMEOUT above 30 s is not cut short.
 * When cluster/info cannot be read, the server default (30 s) applies.
 */

const CACHE_MS = 60_000;

interface Learned {
  limitMs: number;
  until: number;
}

const learned = new Map<string, Learned>();

export async function longPollLimitFor(
  config: Pick<ConsoleConfig, "serverUrl" | "timeoutMs" | "dwAuth" | "token">,
  now: () => number = Date.now,
  fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<number> {
  const cached = learned.get(config.serverUrl);
  if (cached && cached.until > now()) return cached.limitMs;
  let limitMs = longPollLimitMs(null);
  try {
    // The console's own call, not one made for a person: only the learned number leaves this module.
    const response = await fetchImpl(`${config.serverUrl}/api/cluster/info`, {
      headers: {
        Accept: "application/json",
        [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
        ...(await credentialHeaders(config, config.token, "")),
      },
      signal: AbortSignal.timeout(config.timeoutMs),
      cache: "no-store",
    });
    if (response.ok) {
      const decoded = SCHEMA_DECODERS.clusterInfo(await response.json());
      if (decoded.ok) limitMs = longPollLimitMs(decoded.value);
    }
  } catch {
    // Unreachable or not JSON: keep the default; the long-poll itself will report the outage.
  }
  learned.set(config.serverUrl, { limitMs, until: now() + CACHE_MS });
  return limitMs;
}

/** Test support: forget what was learned. */
export function resetLongPollLimits(): void {
  learned.clear();
}
