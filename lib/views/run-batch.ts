import type { SendResult } from "@/lib/confirm/bulk";

/**
 * Batch cancel / terminate of runs selected in the runs list: a dry-run plan from a fresh describe
 * of each run (its `actions.can_cancel` / `can_terminate`, WorkflowController@formatRun,
 * durable-workflow/server@11d35b7), then the tally of what the runs did after the commands. Pure.
 */

export type BatchAction = "cancel" | "terminate";
export type BatchBucket = "send" | "skip_closed" | "skip_not_allowed" | "skip_unreadable";
export const BATCH_BUCKETS: readonly BatchBucket[] = ["send", "skip_closed", "skip_not_allowed", "skip_unreadable"];

export interface BatchRunInput {
  workflowId: string;
  runId: string;
  /** null when the describe read failed. */
  describe: { is_terminal: boolean; actions: { can_cancel: boolean; can_terminate: boolean } } | null;
}

export interface BatchPlannedRun {
  workflowId: string;
  runId: string;
  bucket: BatchBucket;
}

export interface BatchPlan {
  action: BatchAction;
  runs: BatchPlannedRun[];
  counts: Readonly<Record<BatchBucket, number>>;
}

export function classifyForBatch(action: BatchAction, run: BatchRunInput): BatchBucket {
  if (!run.describe) return "skip_unreadable";
  if (run.describe.is_terminal) return "skip_closed";
  const allowed = action === "cancel" ? run.describe.actions.can_cancel : run.describe.actions.can_terminate;
  return allowed ? "send" : "skip_not_allowed";
}

export function batchPlan(action: BatchAction, runs: readonly BatchRunInput[]): BatchPlan {
  const counts: Record<BatchBucket, number> = { send: 0, skip_closed: 0, skip_not_allowed: 0, skip_unreadable: 0 };
  const planned = runs.map((run): BatchPlannedRun => {
    const bucket = classifyForBatch(action, run);
    counts[bucket] += 1;
    return { workflowId: run.workflowId, runId: run.runId, bucket };
  });
  return { action, runs: planned, counts };
}

/** A run's state when re-read after the command; null when the read failed. */
export interface BatchFollowUp {
  status: string;
  isTerminal: boolean;
}

export interface BatchOutcome {
  sent: number;
  accepted: number;
  rejected: number;
  errors: number;
  /** Accepted runs now closed, by their status (`cancelled`, `terminated`, or another if it closed first). */
  closedBy: Readonly<Record<string, number>>;
  /** Accepted runs not (yet) closed, or not readable. */
  stillOpen: number;
  /** Every accepted run is closed: nothing more to wait for. */
  settled: boolean;
}

export function batchOutcome(sends: readonly SendResult[], followUps: readonly (BatchFollowUp | null)[]): BatchOutcome {
  const closedBy: Record<string, number> = {};
  let stillOpen = 0;
  let accepted = 0;
  sends.forEach((send, index) => {
    if (send.kind !== "accepted") return;
    accepted += 1;
    const follow = followUps[index] ?? null;
    if (!follow?.isTerminal) stillOpen += 1;
    else closedBy[follow.status] = (closedBy[follow.status] ?? 0) + 1;
  });
  return {
    sent: sends.length,
    accepted,
    rejected: sends.filter((send) => send.kind === "rejected").length,
    errors: sends.filter((send) => send.kind === "error").length,
    closedBy,
    stillOpen,
    settled: stillOpen === 0,
  };
}

/** Rows one batch acts on at most: the largest page the list shows. */
export const BATCH_MAX_RUNS = 200;
