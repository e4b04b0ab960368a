import type { FailureCategory } from "@/lib/dw/enums";
import { epochMs } from "./epoch-ms";

/**
 * The triage inbox: open runs that need an operator, grouped by cause × workflow type × activity
 * type × failure_category × non_retryable, so one decision can cover many runs. Input is the debug
 * response of each run (`GET …/debug`), the only per-run source of liveness besides the export.
 */

export type AttentionCause =
  "repair_needed" | "replay_blocked" | "compatibility_blocked" | "claim_failed" | "activity_retrying" | "long_wait";

/** Most severe first; a run joins the groups of its most severe cause only. */
export const ATTENTION_CAUSES: readonly AttentionCause[] = [
  "repair_needed",
  "replay_blocked",
  "compatibility_blocked",
  "claim_failed",
  "activity_retrying",
  "long_wait",
];

export interface AttentionRunInput {
  workflow_id: string;
  run_id: string;
  execution: {
    status?: string | null;
    is_terminal?: boolean | null;
    workflow_type?: string | null;
    started_at?: string | null;
    last_progress_at?: string | null;
    wait_kind?: string | null;
    liveness_state?: string | null;
  };
  pending_activities?: ReadonlyArray<{
    activity_execution_id: string;
    activity_type?: string | null;
    activity_class?: string | null;
    status?: string | null;
    attempt_count?: number | null;
  }> | null;
  recent_failures?: ReadonlyArray<{
    failure_id: string;
    source_id?: string | null;
    failure_category?: string | null;
    non_retryable?: boolean | null;
    handled?: boolean | null;
    created_at?: string | null;
  }> | null;
}

export interface FailureGroupOptions {
  now: number;
  /** A healthy wait becomes a "long wait" after this long without progress (default one hour). */
  longWaitMs?: number;
  /** Run ids kept per group (default 3). */
  sampleSize?: number;
}

export interface RunRef {
  workflowId: string;
  runId: string;
}

export interface FailureGroup {
  key: string;
  cause: AttentionCause;
  workflowType: string | null;
  activityType: string | null;
  failureCategory: FailureCategory | null;
  nonRetryable: boolean | null;
  /** Distinct runs. */
  count: number;
  /** Earliest "last progress" among the runs, and how long ago that was. */
  oldestSince: string | null;
  oldestAgeMs: number | null;
  /** Latest "last progress" among the runs. */
  newestAt: string | null;
  /** Oldest first. */
  samples: RunRef[];
}

interface Occurrence {
  cause: AttentionCause;
  activityType: string | null;
  failureCategory: string | null;
  nonRetryable: boolean | null;
}

const TERMINAL_STATUSES = new Set(["completed", "failed", "cancelled", "terminated"]);

function causeFromLiveness(state: string): AttentionCause | null {
  if (state === "repair_needed") return "repair_needed";
  if (state === "workflow_replay_blocked") return "replay_blocked";
  if (state.endsWith("_waiting_for_compatible_worker")) return "compatibility_blocked";
  if (state.endsWith("_claim_failed")) return "claim_failed";
  return null;
}

function occurrences(run: AttentionRunInput, since: number | null, options: FailureGroupOptions): Occurrence[] {
  const failures = [...(run.recent_failures ?? [])].sort(
    (a, b) => (epochMs(b.created_at) ?? 0) - (epochMs(a.created_at) ?? 0),
  );
  const failureFor = (activityId: string | null) =>
    activityId
      ? failures.find((failure) => failure.source_id === activityId)
      : failures.find((failure) => !failure.handled);
  const occurrence = (
    cause: AttentionCause,
    activity: NonNullable<AttentionRunInput["pending_activities"]>[number] | null,
  ): Occurrence => {
    const failure = failureFor(activity?.activity_execution_id ?? null);
    return {
      cause,
      activityType: activity ? (activity.activity_type ?? activity.activity_class ?? null) : null,
      failureCategory: failure?.failure_category ?? null,
      nonRetryable: failure ? (failure.non_retryable ?? false) : null,
    };
  };
  const activities = run.pending_activities ?? [];
  const waitedOn = run.execution.wait_kind === "activity" ? (activities[0] ?? null) : null;

  const fromLiveness = causeFromLiveness(run.execution.liveness_state ?? "");
  if (fromLiveness) return [occurrence(fromLiveness, waitedOn)];
  // A pending execution that already used an attempt is waiting out a retry backoff.
  const retrying = activities.filter((activity) => activity.status === "pending" && (activity.attempt_count ?? 0) > 0);
  if (retrying.length) return retrying.map((activity) => occurrence("activity_retrying", activity));
  const longWaitMs = options.longWaitMs ?? 3_600_000;
  if (run.execution.wait_kind && since !== null && options.now - since >= longWaitMs)
    return [occurrence("long_wait", waitedOn)];
  return [];
}

interface Bucket {
  group: Omit<FailureGroup, "count" | "samples" | "oldestSince" | "oldestAgeMs" | "newestAt">;
  runs: Map<string, { ref: RunRef; since: number | null; sinceText: string | null }>;
}

export function failureGroups(runs: readonly AttentionRunInput[], options: FailureGroupOptions): FailureGroup[] {
  const buckets = new Map<string, Bucket>();
  for (const run of runs) {
    const execution = run.execution;
    if (execution.is_terminal || execution.liveness_state === "closed" || TERMINAL_STATUSES.has(execution.status ?? ""))
      continue;
    const sinceText = execution.last_progress_at ?? execution.started_at ?? null;
    const since = epochMs(sinceText);
    for (const found of occurrences(run, since, options)) {
      const workflowType = execution.workflow_type ?? null;
      const key = JSON.stringify([
        found.cause,
        workflowType,
        found.activityType,
        found.failureCategory,
        found.nonRetryable,
      ]);
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = { group: { key, workflowType, ...found }, runs: new Map() };
        buckets.set(key, bucket);
      }
      bucket.runs.set(`${run.workflow_id}\u0000${run.run_id}`, {
        ref: { workflowId: run.workflow_id, runId: run.run_id },
        since,
        sinceText,
      });
    }
  }

  const sampleSize = options.sampleSize ?? 3;
  const groups = [...buckets.values()].map((bucket): FailureGroup => {
    const members = [...bucket.runs.values()].sort((a, b) => (a.since ?? Infinity) - (b.since ?? Infinity));
    const dated = members.filter((member) => member.since !== null);
    const oldest = dated[0];
    const newest = dated.at(-1);
    return {
      ...bucket.group,
      count: members.length,
      oldestSince: oldest?.sinceText ?? null,
      oldestAgeMs: oldest?.since != null ? options.now - oldest.since : null,
      newestAt: newest?.sinceText ?? null,
      samples: members.slice(0, sampleSize).map((member) => member.ref),
    };
  });
  return groups.sort(
    (a, b) =>
      ATTENTION_CAUSES.indexOf(a.cause) - ATTENTION_CAUSES.indexOf(b.cause) ||
      b.count - a.count ||
      (b.oldestAgeMs ?? -1) - (a.oldestAgeMs ?? -1),
  );
}
