import { deriveRepairBlockedReason } from "@/lib/views/liveness";

/**
 * Bulk repair of an attention group: a dry-run plan before anything is sent, then the tally of
 * what the repaired runs did afterwards (ui-anchors §2 items 2 and 5). Pure.
 */

export type PlanBucket =
  "repair" | "skip_closed" | "skip_healthy" | "skip_non_retryable" | "skip_blocked" | "skip_unreadable";

export const PLAN_BUCKETS: readonly PlanBucket[] = [
  "repair",
  "skip_closed",
  "skip_healthy",
  "skip_non_retryable",
  "skip_blocked",
  "skip_unreadable",
];

/** The fields of a fresh debug read (`GET …/debug`) the plan needs. */
export interface PlanRunInput {
  workflowId: string;
  runId: string;
  /** null when the debug read failed. */
  debug: {
    execution: {
      status?: string | null;
      is_terminal?: boolean | null;
      liveness_state?: string | null;
      repair_attention?: boolean | null;
      wait_kind?: string | null;
    };
    recent_failures?: ReadonlyArray<{
      non_retryable?: boolean | null;
      handled?: boolean | null;
      created_at?: string | null;
      failure_category?: string | null;
    }> | null;
  } | null;
}

export interface PlannedRun {
  workflowId: string;
  runId: string;
  bucket: PlanBucket;
}

export interface RepairPlan {
  runs: PlannedRun[];
  counts: Readonly<Record<PlanBucket, number>>;
  /** Up to `sampleSize` runs per bucket. */
  samples: Readonly<Record<PlanBucket, PlannedRun[]>>;
}

function latestUnhandledNonRetryable(failures: NonNullable<PlanRunInput["debug"]>["recent_failures"]): boolean {
  const open = [...(failures ?? [])].filter((failure) => failure.handled !== true);
  open.sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? ""));
  return open[0]?.non_retryable === true;
}

export function classifyForRepair(run: PlanRunInput): PlanBucket {
  if (!run.debug) return "skip_unreadable";
  const execution = run.debug.execution;
  const blocked = deriveRepairBlockedReason({
    liveness_state: execution.liveness_state,
    repair_attention: execution.repair_attention,
    is_terminal: execution.is_terminal,
    status: execution.status,
    wait_kind: execution.wait_kind,
  });
  if (blocked === "run_closed") return "skip_closed";
  if (blocked === "repair_not_needed") return "skip_healthy";
  if (blocked !== null) return "skip_blocked";
  // Re-dispatching a run whose latest failure is non-retryable only replays it into the same failure.
  if (latestUnhandledNonRetryable(run.debug.recent_failures)) return "skip_non_retryable";
  return "repair";
}

function emptyCounts(): Record<PlanBucket, number> {
  return { repair: 0, skip_closed: 0, skip_healthy: 0, skip_non_retryable: 0, skip_blocked: 0, skip_unreadable: 0 };
}

export function repairPlan(runs: readonly PlanRunInput[], sampleSize = 3): RepairPlan {
  const planned = runs.map((run): PlannedRun => ({
    workflowId: run.workflowId,
    runId: run.runId,
    bucket: classifyForRepair(run),
  }));
  const counts = emptyCounts();
  const samples: Record<PlanBucket, PlannedRun[]> = {
    repair: [],
    skip_closed: [],
    skip_healthy: [],
    skip_non_retryable: [],
    skip_blocked: [],
    skip_unreadable: [],
  };
  for (const run of planned) {
    counts[run.bucket] += 1;
    if (samples[run.bucket].length < sampleSize) samples[run.bucket].push(run);
  }
  return { runs: planned, counts, samples };
}

/** What sending one repair produced: the server's answer, or why nothing was sent. */
export type SendResult =
  | { kind: "accepted"; outcome: string | null }
  | { kind: "rejected"; reason: string | null }
  | { kind: "error"; reason: string };

/** Later state of one repaired run, from describe + debug. */
export interface FollowUp {
  status: string | null;
  isTerminal: boolean;
  livenessState: string | null;
  /** `failure_category` of the newest failure, for runs that failed again. */
  failureCategory: string | null;
}

export interface BulkOutcome {
  sent: number;
  accepted: number;
  dispatched: number;
  notNeeded: number;
  rejected: number;
  errors: number;
  completed: number;
  failedAgain: number;
  /** Runs that failed again, by newest failure category (`unknown` when none was recorded). */
  failedByCategory: Readonly<Record<string, number>>;
  otherClosed: number;
  stillStuck: number;
  stillOpen: number;
  /** True once every accepted run is closed: nothing more to wait for. */
  settled: boolean;
}

export function bulkOutcome(sends: readonly SendResult[], followUps: readonly (FollowUp | null)[]): BulkOutcome {
  const accepted = sends.filter((send) => send.kind === "accepted");
  const failedByCategory: Record<string, number> = {};
  let completed = 0;
  let failedAgain = 0;
  let otherClosed = 0;
  let stillStuck = 0;
  let stillOpen = 0;
  sends.forEach((send, index) => {
    if (send.kind !== "accepted") return;
    const follow = followUps[index] ?? null;
    if (!follow || !follow.isTerminal) {
      if (follow?.livenessState === "repair_needed") stillStuck += 1;
      else stillOpen += 1;
      return;
    }
    if (follow.status === "completed") completed += 1;
    else if (follow.status === "failed") {
      failedAgain += 1;
      const category = follow.failureCategory ?? "unknown";
      failedByCategory[category] = (failedByCategory[category] ?? 0) + 1;
    } else otherClosed += 1;
  });
  return {
    sent: sends.length,
    accepted: accepted.length,
    dispatched: accepted.filter((send) => send.outcome === "repair_dispatched").length,
    notNeeded: accepted.filter((send) => send.outcome === "repair_not_needed").length,
    rejected: sends.filter((send) => send.kind === "rejected").length,
    errors: sends.filter((send) => send.kind === "error").length,
    completed,
    failedAgain,
    failedByCategory,
    otherClosed,
    stillStuck,
    stillOpen,
    settled: stillStuck + stillOpen === 0,
  };
}

export { mapBounded } from "./map-bounded";
