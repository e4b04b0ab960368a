import "server-only";
import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER } from "@/lib/dw/transport";
import { getConfig } from "@/lib/server/process/config";
import { isDraining } from "@/lib/server/process/lifecycle";
import { getLogger, loggedFetch } from "@/lib/server/process/log";

/**
 * Readiness, as distinct from liveness (`/api/healthz`: the process answers): this console can serve
 * now — its configuration is valid, it is not draining after SIGTERM, and the Durable Workflow server
 * answers its health route (`GET /api/health`, no token: routes/api.php serves it without auth).
 * The server is asked at most once per CACHE_MS whatever the probe rate, with a bounded timeout, and
 * the answer names only which check failed, never a URL, a host or an error text.
 */

export const READINESS_CACHE_MS = 2_000;
export const READINESS_TIMEOUT_MS = 2_000;

export type ServerCheck = "ok" | "unhealthy" | "timeout" | "unreachable";
export interface Readiness {
  ready: boolean;
  checks: { config: "ok" | "invalid"; server: ServerCheck | "not_checked"; draining: boolean };
}

interface Cached {
  at: number;
  result: Promise<ServerCheck>;
}
const SHARED = Symbol.for("breakwater.readiness");

async function askServer(serverUrl: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<ServerCheck> {
  try {
    const response = await fetchImpl(`${serverUrl}/api/health`, {
      headers: { Accept: "application/json", [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION },
      signal: AbortSignal.timeout(timeoutMs),
      cache: "no-store",
    });
    await response.body?.cancel();
    return response.ok ? "ok" : "unhealthy";
  } catch (error) {
    return error instanceof DOMException && error.name === "TimeoutError" ? "timeout" : "unreachable";
  }
}

export interface ReadinessOptions {
  now?: () => number;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

export async function readiness(options: ReadinessOptions = {}): Promise<Readiness> {
  const draining = isDraining();
  let serverUrl: string;
  try {
    serverUrl = getConfig().serverUrl;
  } catch {
    return { ready: false, checks: { config: "invalid", server: "not_checked", draining } };
  }
  const now = options.now ?? Date.now;
  const holder = globalThis as { [SHARED]?: Cached };
  const cached = holder[SHARED];
  let result: Promise<ServerCheck>;
  if (cached !== undefined && now() - cached.at < READINESS_CACHE_MS) result = cached.result;
  else {
    const fetchImpl = options.fetchImpl ?? loggedFetch(getLogger());
    result = askServer(serverUrl, fetchImpl, options.timeoutMs ?? READINESS_TIMEOUT_MS);
    holder[SHARED] = { at: now(), result };
  }
  const server = await result;
  return { ready: server === "ok" && !draining, checks: { config: "ok", server, draining } };
}

/** Test support: forget the cached answer. */
export function resetReadiness(): void {
  delete (globalThis as { [SHARED]?: Cached })[SHARED];
}
