import { WALK_LIMITS } from "@/lib/confirm/bulk-limits";

/**
 * What every bulk panel (batch cancel/terminate and signal, bulk repair, start again, Kikwiflow
 * retry all) shows around the runner's stage: which plan buckets get a line and which runs are named
 * on it, whether a tally has refusals to state, the tone of the line that says what the items did,
 * the failure categories, and the note on a group larger than one plan. Pure; the pieces in
 * components/actions/bulk-panel.tsx draw them with each panel's own words.
 */

/** The buckets a plan states, in the flow's order: each one holding items, and `always` even at zero. */
export function shownBuckets<B extends string>(
  order: readonly B[],
  counts: Readonly<Record<B, number>>,
  always?: B,
): B[] {
  return order.filter((bucket) => bucket === always || counts[bucket] > 0);
}

/** The first `limit` items of one bucket, in plan order: named beside its line, the rest only counted. */
export function firstInBucket<T extends { bucket: string }>(items: readonly T[], bucket: string, limit: number): T[] {
  const named: T[] = [];
  for (const item of items) {
    if (named.length === limit) break;
    if (item.bucket === bucket) named.push(item);
  }
  return named;
}

/** A list cut to `limit`, and how many it left off. */
export function firstOf<T>(items: readonly T[], limit: number): { shown: T[]; more: number } {
  return { shown: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}

/** The commands the server refused or that never got an answer, or null when there are none to state. */
export function refusals(tally: { rejected: number; errors: number }): { rejected: number; errors: number } | null {
  return tally.rejected || tally.errors ? { rejected: tally.rejected, errors: tally.errors } : null;
}

/** How a line reads: done as hoped, worth a look, gone wrong, or beside the point. */
export type BulkTone = "ok" | "warn" | "bad" | "muted";

/** The line that says what the sent items did: bad while any went wrong, ok once all settled, else plain. */
export function afterTone(outcome: { settled: boolean }, wentWrong: boolean): BulkTone | null {
  if (wentWrong) return "bad";
  return outcome.settled ? "ok" : null;
}

/** Items that failed again, by failure category (`category × count`, in the tally's order); null when none. */
export function categoryList(byCategory: Readonly<Record<string, number>>): string | null {
  const entries = Object.entries(byCategory);
  return entries.length ? entries.map(([category, count]) => `${category} × ${count}`).join(", ") : null;
}

/** The note on a group larger than one plan: how many were planned of how many; null when all were. */
export function cappedNote(bounded: { planned: readonly unknown[]; left: number }): {
  limit: number;
  total: number;
} | null {
  if (bounded.left === 0) return null;
  return { limit: bounded.planned.length, total: bounded.planned.length + bounded.left };
}

/** The values a panel's limits sentence may use (each catalog's sentence says the ones its flow keeps). */
export function limitValues(trackForMs: number) {
  return {
    reads: WALK_LIMITS.bulkReadConcurrency,
    sends: WALK_LIMITS.bulkSendConcurrency,
    interval: WALK_LIMITS.trackIntervalSeconds,
    minutes: trackForMs / 60_000,
    cacheMinutes: WALK_LIMITS.closedCacheMinutes,
  };
}
