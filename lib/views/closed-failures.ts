import { epochMs } from "./events";
import type { RunRef } from "./failure-groups";

/**
 * Fleet failure triage: closed runs of the server's `failed` status bucket (failed, cancelled,
 * terminated) in a time window, grouped by exception class × failure_category × non_retryable ×
 * workflow type × where the failure came from, so one decision (start them again, or fix the
 * cause first) covers many runs. Input per run: its list row and its debug view's
 * `recent_failures` (durable-workflow/server@11d35b70 app/Support/WorkflowRunDiagnostics.php
 * 617-637: the run's newest 10 failure rows, with exception_class, failure_category,
 * non_retryable, handled, source_kind). Pure.
 */

/** Why the runs of a group ended, in the words an operator decides by. */
export type ClosedVerdict =
  "non_retryable" | "retries_exhausted" | "timeout" | "workflow_failed" | "cancelled" | "terminated";

export const CLOSED_VERDICTS: readonly ClosedVerdict[] = [
  "non_retryable",
  "retries_exhausted",
  "timeout",
  "workflow_failed",
  "terminated",
  "cancelled",
];

export interface ClosedRunFailure {
  failure_id: string;
  source_kind?: string | null;
  propagation_kind?: string | null;
  failure_category?: string | null;
  exception_class?: string | null;
  message?: string | null;
  non_retryable?: boolean | null;
  handled?: boolean | null;
  created_at?: string | null;
}

export interface ClosedRunInput {
  workflowId: string;
  runId: string;
  workflowType: string | null;
  status: string | null;
  closedAt: string | null;
  /** null when the run's debug view could not be read: the run is counted, not grouped by cause. */
  failures: readonly ClosedRunFailure[] | null;
}

export interface ClosedFailureGroup {
  key: string;
  verdict: ClosedVerdict;
  exceptionClass: string | null;
  failureCategory: string | null;
  nonRetryable: boolean;
  workflowType: string | null;
  /** `activity_execution`, `workflow_run`, …: where the failure that closed the run was raised. */
  sourceKind: string | null;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
  /** The newest run's failure message (server text: show it as text). */
  message: string | null;
  /** Every run of the group, newest first: drill-down and bulk actions need them all. */
  runs: RunRef[];
}

export interface ClosedTriage {
  groups: ClosedFailureGroup[];
  /** Runs in the window whose debug view could not be read. */
  unreadable: number;
  /** Runs in the window. */
  inWindow: number;
}

/** The failure that closed the run: the newest one the workflow did not handle, else the newest. */
export function closingFailure(failures: readonly ClosedRunFailure[]): ClosedRunFailure | null {
  const newestFirst = [...failures].sort((a, b) => (epochMs(b.created_at) ?? 0) - (epochMs(a.created_at) ?? 0));
  return newestFirst.find((failure) => failure.handled !== true) ?? newestFirst[0] ?? null;
}

export function closedVerdict(status: string | null, failure: ClosedRunFailure | null): ClosedVerdict {
  if (status === "cancelled") return "cancelled";
  if (status === "terminated") return "terminated";
  if (failure?.failure_category === "timeout" || failure?.propagation_kind === "timeout") return "timeout";
  if (failure?.non_retryable === true) return "non_retryable";
  // An activity failure reaches the workflow only once its retry policy gave up on it.
  if (failure?.source_kind === "activity_execution" || failure?.failure_category === "activity")
    return "retries_exhausted";
  return "workflow_failed";
}

export function closedFailureGroups(
  runs: readonly ClosedRunInput[],
  window: { from: number; to: number },
): ClosedTriage {
  const buckets = new Map<
    string,
    { group: ClosedFailureGroup; closed: { ref: RunRef; at: number; text: string | null; message: string | null }[] }
  >();
  let unreadable = 0;
  let inWindow = 0;
  for (const run of runs) {
    const at = epochMs(run.closedAt);
    if (at === null || at < window.from || at > window.to) continue;
    inWindow += 1;
    if (run.failures === null) {
      unreadable += 1;
      continue;
    }
    const failure = closingFailure(run.failures);
    const group: ClosedFailureGroup = {
      key: "",
      verdict: closedVerdict(run.status, failure),
      exceptionClass: failure?.exception_class ?? null,
      failureCategory: failure?.failure_category ?? null,
      nonRetryable: failure?.non_retryable === true,
      workflowType: run.workflowType,
      sourceKind: failure?.source_kind ?? null,
      count: 0,
      firstSeen: null,
      lastSeen: null,
      message: null,
      runs: [],
    };
    group.key = JSON.stringify([
      group.verdict,
      group.exceptionClass,
      group.failureCategory,
      group.nonRetryable,
      group.workflowType,
      group.sourceKind,
    ]);
    const bucket = buckets.get(group.key) ?? { group, closed: [] };
    bucket.closed.push({
      ref: { workflowId: run.workflowId, runId: run.runId },
      at,
      text: run.closedAt,
      message: failure?.message ?? null,
    });
    buckets.set(group.key, bucket);
  }
  const groups = [...buckets.values()].map(({ group, closed }): ClosedFailureGroup => {
    const newestFirst = [...closed].sort((a, b) => b.at - a.at);
    return {
      ...group,
      count: newestFirst.length,
      lastSeen: newestFirst[0]?.text ?? null,
      firstSeen: newestFirst.at(-1)?.text ?? null,
      message: newestFirst[0]?.message ?? null,
      runs: newestFirst.map((entry) => entry.ref),
    };
  });
  groups.sort(
    (a, b) =>
      b.count - a.count ||
      CLOSED_VERDICTS.indexOf(a.verdict) - CLOSED_VERDICTS.indexOf(b.verdict) ||
      (b.lastSeen ?? "").localeCompare(a.lastSeen ?? ""),
  );
  return { groups, unreadable, inWindow };
}

/** The triage windows an operator picks from, in the URL as `window=`. */
export const TRIAGE_WINDOWS = {
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
} as const;
export type TriageWindow = keyof typeof TRIAGE_WINDOWS;
export const DEFAULT_TRIAGE_WINDOW: TriageWindow = "24h";

export function parseTriageWindow(value: string | null | undefined): TriageWindow {
  return value && Object.hasOwn(TRIAGE_WINDOWS, value) ? (value as TriageWindow) : DEFAULT_TRIAGE_WINDOW;
}
