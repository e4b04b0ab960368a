import type { SendResult } from "../confirm/bulk";
import type { RetryAnswer } from "./retry-confirm";
import { followRetry } from "./retry-follow";
import type { ExecutableTask, Incident } from "./schemas";

/**
 * Bulk retry of an attention group, planned and tallied for the console's one bulk runner
 * (lib/confirm/bulk-runner.ts): a dry run that re-reads each instance's incidents (only a still-OPEN
 * incident is retried), the sends through the single retry's route (each answered only once the
 * engine shows the incident RESOLVED and its task PENDING, lib/server/kikwiflow/retry.ts), then each
 * instance followed by the single retry's rule (lib/kikwiflow/retry-follow.ts): a newer incident on
 * the same task is the task failing again. Pure and browser-safe.
 */

export interface RetryTarget {
  readonly processInstanceId: string;
  readonly incidentId: string;
}

/** The dry run's read of one instance's incidents; null when it could not be read. */
export type RetryRead = readonly Incident[] | null;

export type RetryBucket = "retry" | "skip_not_open" | "skip_unreadable";
export const RETRY_BUCKETS: readonly RetryBucket[] = ["retry", "skip_not_open", "skip_unreadable"];

export interface PlannedRetry extends RetryTarget {
  readonly bucket: RetryBucket;
}

export interface BulkRetryPlan {
  readonly items: readonly PlannedRetry[];
  readonly counts: Readonly<Record<RetryBucket, number>>;
}

export function bulkRetryPlan(targets: readonly RetryTarget[], reads: readonly RetryRead[]): BulkRetryPlan {
  const counts: Record<RetryBucket, number> = { retry: 0, skip_not_open: 0, skip_unreadable: 0 };
  const items = targets.map((target, index) => {
    const read = reads[index] ?? null;
    // Not OPEN any more (someone retried it meanwhile): the engine would answer 409.
    const open = read?.some((incident) => incident.id === target.incidentId && incident.status === "OPEN");
    const bucket: RetryBucket = read === null ? "skip_unreadable" : open ? "retry" : "skip_not_open";
    counts[bucket] += 1;
    return { processInstanceId: target.processInstanceId, incidentId: target.incidentId, bucket };
  });
  return { items, counts };
}

export function retryItems(plan: BulkRetryPlan): RetryTarget[] {
  return plan.items
    .filter((item) => item.bucket === "retry")
    .map(({ processInstanceId, incidentId }) => ({ processInstanceId, incidentId }));
}

export type AcceptedRetry = Extract<RetryAnswer, { result: "accepted" }>;

/** One retry's result as the runner tallies it: the route's verdict phase, its 409, or a failure. */
export function retrySendResult(
  sent: { ok: true; answer: AcceptedRetry } | { ok: false; status: number | null; reason: string },
): SendResult {
  if (sent.ok) return { kind: "accepted", outcome: sent.answer.verdict.phase };
  return sent.status === 409 ? { kind: "rejected", reason: "already_retried" } : { kind: "error", reason: sent.reason };
}

/** What a retried instance went on to do. */
export type RetryFollow =
  | { readonly kind: "failed_again"; readonly incident: Incident }
  /** The task ran and left the instance (its task is gone), or the instance finished (404). */
  | { readonly kind: "moved_on"; readonly finished: boolean }
  /** The task is still there and has not failed again: the confirmation still holds. */
  | { readonly kind: "holding" };

/** `instance` is the snapshot's tasks, or "gone" when the engine answered 404. */
export function bulkFollow(
  answer: AcceptedRetry,
  incidents: readonly Incident[],
  instance: readonly ExecutableTask[] | "gone",
): RetryFollow {
  const after = followRetry(answer, incidents);
  if (after.kind === "failed_again") return after;
  if (instance === "gone") return { kind: "moved_on", finished: true };
  const task = instance.find((candidate) => candidate.id === answer.taskId);
  return task ? { kind: "holding" } : { kind: "moved_on", finished: false };
}

export type RetryState = "confirmed" | "unconfirmed" | "failed_again" | "moved_on" | "already_retried" | "error";

export interface RetryRow extends RetryTarget {
  readonly state: RetryState;
  /** For `failed_again`: the task's newest incident. */
  readonly incident: Incident | null;
}

export interface BulkRetryOutcome {
  readonly rows: readonly RetryRow[];
  readonly counts: Readonly<Record<RetryState, number>>;
  /** Every retried instance failed again or moved on: nothing more to wait for. */
  readonly settled: boolean;
}

function stateOf(send: SendResult, follow: RetryFollow | null): RetryState {
  if (send.kind === "rejected") return "already_retried";
  if (send.kind === "error") return "error";
  if (follow?.kind === "failed_again") return "failed_again";
  if (follow?.kind === "moved_on" || send.outcome === "moved_on") return "moved_on";
  // The route's bound ran out before the engine showed RESOLVED + PENDING.
  return send.outcome === "confirmed" ? "confirmed" : "unconfirmed";
}

export function bulkRetryOutcome(
  plan: BulkRetryPlan,
  sends: readonly SendResult[],
  follows: readonly (RetryFollow | null)[],
): BulkRetryOutcome {
  const counts: Record<RetryState, number> = {
    confirmed: 0,
    unconfirmed: 0,
    failed_again: 0,
    moved_on: 0,
    already_retried: 0,
    error: 0,
  };
  const rows = retryItems(plan).map((item, index) => {
    const follow = follows[index] ?? null;
    const state = stateOf(sends[index] ?? { kind: "error", reason: "aborted" }, follow);
    counts[state] += 1;
    return { ...item, state, incident: follow?.kind === "failed_again" ? follow.incident : null };
  });
  return { rows, counts, settled: counts.confirmed + counts.unconfirmed === 0 };
}
