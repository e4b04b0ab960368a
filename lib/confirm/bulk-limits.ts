/**
 * How far the console walks many runs at once: the attention scan (lib/queries/attention.ts) and
 * bulk repair (components/attention/bulk-repair.tsx). The server lists runs by status only and has
 * no liveness filter (docs/research/issue-14-real-server-facts.md §5), so finding stuck runs means
 * one debug read per open run. Every bound is here, and the screens state them.
 *
 * Concurrency stays below the real server's four PHP workers (facts §1, durable-workflow/server@11d35b7):
 * a scan or a plan never holds all of them, so the pages other people have open still get answers.
 */

/** Open runs read per scan; beyond it the view says it is partial. */
export const SCAN_LIMIT = 1_000;
/** Debug reads in flight at once during a scan. */
export const SCAN_CONCURRENCY = 3;
/** Runs per list page: the real server's maximum for `GET /workflows` (facts §5). */
export const SCAN_PAGE_SIZE = 200;
/** A finished scan is repeated after this long while the screen is open. */
export const RESCAN_MS = 30_000;

/** Runs one bulk repair plans for at most: a group comes from one scan, so never more than it read. */
export const BULK_MAX_RUNS = SCAN_LIMIT;
/** Fresh debug reads in flight at once while planning, and describe+debug pairs while tracking. */
export const BULK_READ_CONCURRENCY = 3;
/** Repair commands in flight at once. */
export const BULK_SEND_CONCURRENCY = 3;
/** The repaired runs are re-read this often… */
export const BULK_TRACK_INTERVAL_MS = 3_000;
/** …for at most this long; the tally then says what was still open. */
export const BULK_TRACK_FOR_MS = 10 * 60_000;

/**
 * How old a closed run's describe or debug answer served by the console's cache may be
 * (lib/server/proxy/closed-run-cache.ts). Here, not there, so the screens can state it.
 */
export const CLOSED_RUN_CACHE_TTL_MS = 10 * 60_000;

/** The bounds as the screens state them (whole seconds and minutes). */
export const WALK_LIMITS = {
  scanLimit: SCAN_LIMIT,
  scanConcurrency: SCAN_CONCURRENCY,
  scanPageSize: SCAN_PAGE_SIZE,
  rescanSeconds: RESCAN_MS / 1000,
  bulkMaxRuns: BULK_MAX_RUNS,
  bulkReadConcurrency: BULK_READ_CONCURRENCY,
  bulkSendConcurrency: BULK_SEND_CONCURRENCY,
  trackIntervalSeconds: BULK_TRACK_INTERVAL_MS / 1000,
  trackForMinutes: BULK_TRACK_FOR_MS / 60_000,
  closedCacheMinutes: CLOSED_RUN_CACHE_TTL_MS / 60_000,
} as const;

/**
 * The members a bulk plan reads: at most {@link BULK_MAX_RUNS}, in the order given; `left` says how
 * many were not planned, so the screen can say so.
 */
export function boundedMembers<T>(members: readonly T[], limit = BULK_MAX_RUNS): { planned: T[]; left: number } {
  return { planned: members.slice(0, limit), left: Math.max(0, members.length - limit) };
}
