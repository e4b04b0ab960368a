import type { TaskRow } from "./rows";
import { parsePayload } from "./rows";

/**
 * Task transport health: when an open task's lease, dispatch or claim has gone wrong, and the
 * repair policy that answers it. The summary projection, the repair sweep, metrics and the debug
 * read judge tasks by these same predicates, so they agree.
 */

/** The engine's task-repair policy (`TaskRepairPolicy` defaults); one place so summary, repair and metrics agree. */
export const REPAIR_POLICY = {
  redispatch_after_seconds: 3,
  loop_throttle_seconds: 5,
  scan_limit: 25,
  scan_strategy: "scope_fair_round_robin",
  failure_backoff_max_seconds: 60,
  failure_backoff_strategy: "exponential_by_repair_count",
} as const;

export function leaseExpired(t: TaskRow, now: number): boolean {
  return t.status === "leased" && t.lease_expires_at !== null && t.lease_expires_at <= now;
}

export function dispatchFailed(t: TaskRow): boolean {
  return (
    t.status === "ready" &&
    t.last_dispatch_attempt_at !== null &&
    !!t.last_dispatch_error &&
    (t.last_dispatched_at === null || t.last_dispatched_at < t.last_dispatch_attempt_at)
  );
}

export function claimFailed(t: TaskRow): boolean {
  return t.status === "ready" && t.last_claim_failed_at !== null && !!t.last_claim_error;
}

/**
 * The embedded server dispatches by long-poll: committing a ready task is its dispatch, so a task
 * merely waiting for a poller is not overdue (redispatching it would change nothing). Overdue is
 * a dispatch that was attempted (`last_dispatch_attempt_at`) but never confirmed
 * (`last_dispatched_at`) within the policy delay, with no recorded dispatch or claim error.
 */
export function dispatchOverdue(t: TaskRow, now: number): boolean {
  return (
    t.status === "ready" &&
    (t.available_at === null || t.available_at <= now) &&
    !dispatchFailed(t) &&
    !claimFailed(t) &&
    t.last_dispatch_attempt_at !== null &&
    t.last_dispatched_at === null &&
    t.last_dispatch_attempt_at <= now - REPAIR_POLICY.redispatch_after_seconds * 1000
  );
}

/** Task needs the watchdog: the unhealthy states that make a run `repair_needed`. */
export function taskUnhealthy(t: TaskRow, now: number): boolean {
  return leaseExpired(t, now) || dispatchFailed(t) || dispatchOverdue(t, now);
}

/** `3 × 2^(repair_count−1)` seconds capped at 60 (first failure immediate), `exponential_by_repair_count`. */
export function repairBackoffSeconds(repairCount: number): number {
  if (repairCount <= 0) return 0;
  return Math.min(
    REPAIR_POLICY.redispatch_after_seconds * 2 ** (repairCount - 1),
    REPAIR_POLICY.failure_backoff_max_seconds,
  );
}

/** `RunTaskView::transportState`. */
export function transportState(t: TaskRow, now: number): string {
  if (t.status === "failed" && parsePayload(t.payload).replay_blocked === true) return "replay_blocked";
  if (t.status === "leased") return leaseExpired(t, now) ? "lease_expired" : "leased";
  if (t.status !== "ready") return t.status;
  if (t.available_at !== null && t.available_at > now) return "scheduled";
  if (t.repair_available_at !== null && t.repair_available_at > now && (dispatchFailed(t) || claimFailed(t)))
    return "repair_backoff";
  if (dispatchFailed(t)) return "dispatch_failed";
  if (claimFailed(t)) return "claim_failed";
  if (dispatchOverdue(t, now)) return "dispatch_overdue";
  return "ready";
}

/** The task's kind as the summary names it: activity and timer tasks by type, any other a workflow task. */
export function taskKind(t: TaskRow): string {
  return t.task_type === "activity" || t.task_type === "timer" ? t.task_type : "workflow";
}
