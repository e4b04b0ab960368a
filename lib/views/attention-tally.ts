import type { AttentionCause, FailureGroup } from "./failure-groups";

/**
 * One count of the runs that need an operator, for the navigation's Attention badge and the
 * Attention page alike (issue 37: the badge said 4 while the page said "Nothing needs an
 * operator"). The count is the server's operator metrics — cheap enough for every page's
 * navigation, and whole (the page's scan reads at most 1,000 open runs) — under the one rule both
 * use: runs whose liveness is `repair_needed`, `*_waiting_for_compatible_worker` or
 * `*_task_claim_failed` (`runs.repair_needed + compatibility_blocked + claim_failed`). The page
 * lists the scan's groups of the same causes behind it and says how many it did not find.
 */
export const COUNTED_CAUSES: readonly AttentionCause[] = ["repair_needed", "compatibility_blocked", "claim_failed"];

/** The operator metrics' fields the count reads (lib/dw `operator_metrics.runs`). */
export interface AttentionMetricsRuns {
  repair_needed: number;
  compatibility_blocked?: number | null;
  claim_failed?: number | null;
}

/** Runs needing an operator by the server's count: the badge's number. */
export function needsOperatorCount(runs: AttentionMetricsRuns): number {
  return runs.repair_needed + (runs.compatibility_blocked ?? 0) + (runs.claim_failed ?? 0);
}

export interface AttentionTally {
  /** The server's count (null: this console's credentials may not read operator metrics). */
  counted: number | null;
  /** Runs of the counted causes the scan found (each such run is in one group only). */
  found: number;
  /** Counted by the server but not among the runs the scan found. */
  unlisted: number;
}

export function attentionTally(
  groups: readonly Pick<FailureGroup, "cause" | "count">[],
  counted: number | null,
): AttentionTally {
  const found = groups
    .filter((group) => COUNTED_CAUSES.includes(group.cause))
    .reduce((sum, group) => sum + group.count, 0);
  return { counted, found, unlisted: counted === null ? 0 : Math.max(0, counted - found) };
}
