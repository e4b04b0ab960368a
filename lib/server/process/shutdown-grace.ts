/**
 * How long a console that received SIGTERM lets what is in flight finish before it closes the rest
 * and exits (BREAKWATER_SHUTDOWN_GRACE_SECONDS, default 20, 1–600; docs/decisions/0062). Loaded by
 * scripts/start.ts too, which waits this long plus a margin before it kills a child, so it is plain
 * Node (no `server-only` marker).
 */
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 20;

export function shutdownGraceMs(env: Record<string, string | undefined>): number {
  const raw = (env.BREAKWATER_SHUTDOWN_GRACE_SECONDS ?? "").trim();
  if (raw === "") return DEFAULT_SHUTDOWN_GRACE_SECONDS * 1000;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || seconds < 1 || seconds > 600)
    throw new Error(`BREAKWATER_SHUTDOWN_GRACE_SECONDS must be a number of seconds from 1 to 600 (got "${raw}").`);
  return Math.round(seconds * 1000);
}
