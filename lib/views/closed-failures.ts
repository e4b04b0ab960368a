import type { HistoryEventInput } from "./events";
import { epochMs } from "./events";
import { exceptionRows } from "./exceptions";
import type { RunRef } from "./failure-groups";

/**
 * Fleet failure triage: closed runs of the server's `failed` status bucket (failed, cancelled,
 * terminated) in a time window, grouped by what ended the run: its exception type as the run page
 * shows it × failure_category × non_retryable × workflow type × where the failure came from, so one
 * decision (start them again, or fix the cause first) covers many runs. Input per run: its list row,
 * its debug view's `recent_failures` (durable-workflow/server@042e8da4
 * app/Support/WorkflowRunDiagnostics.php `recentFailures`: the newest 10 failure rows, with
 * exception_class but no exception_type) and `execution.last_event` read with
 * `include_last_event_payload` (same file, `lastEvent`: the closing event's payload, JSON cut at
 * 4 KiB), which names the worker's exception type. Pure.
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
  /** The run's last history event (see {@link lastEventInput}): the closing failure's type is only there. */
  lastEvent?: HistoryEventInput | null;
}

export interface GroupMessage {
  message: string;
  /** Runs of the group that ended with this message. */
  count: number;
}

export interface ClosedFailureGroup {
  key: string;
  verdict: ClosedVerdict;
  /** exception_type, else exception_class: the run page's Exceptions "Type" (lib/views/exceptions.ts). */
  exceptionType: string | null;
  failureCategory: string | null;
  nonRetryable: boolean;
  workflowType: string | null;
  /** `activity_execution`, `workflow_run`, …: where the failure that closed the run was raised. */
  sourceKind: string | null;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
  /** The group's distinct messages, most runs first (server text: show it as text). */
  messages: GroupMessage[];
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

/**
 * The activity (or child) failure a workflow's terminal failure passed on: a workflow that lets an
 * activity failure escape fails with that failure's message (the SDK rethrows it), so the newest such
 * row at or before the terminal one with the same message is the cause. null when there is none.
 */
export function propagatedCause(
  failures: readonly ClosedRunFailure[],
  closing: ClosedRunFailure | null,
): ClosedRunFailure | null {
  if (!closing || closing.source_kind !== "workflow_run") return null;
  const at = epochMs(closing.created_at) ?? Infinity;
  const candidates = failures.filter(
    (failure) =>
      failure !== closing &&
      failure.source_kind !== "workflow_run" &&
      failure.message === closing.message &&
      (epochMs(failure.created_at) ?? 0) <= at,
  );
  return candidates.sort((a, b) => (epochMs(b.created_at) ?? 0) - (epochMs(a.created_at) ?? 0))[0] ?? null;
}

const SCALAR =
  /^\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)\s*(,|\})/;

/** The scalar fields before the first object or list of a JSON object's text, which may be cut short. */
function leadingScalars(text: string): Record<string, unknown> | null {
  const start = text.indexOf("{");
  if (start < 0) return null;
  let rest = text.slice(start + 1);
  const out: Record<string, unknown> = {};
  for (let match = SCALAR.exec(rest); match; match = SCALAR.exec(rest)) {
    out[JSON.parse(match[1] ?? '""') as string] = JSON.parse(match[2] ?? "null");
    if (match[3] === "}") break;
    rest = rest.slice(match[0].length);
  }
  return out;
}

/** What debug's `execution.last_event` carries (the real server's `lastEvent`). */
export interface LastEventAnswer {
  sequence: number;
  event_type: string;
  timestamp?: string | null;
  payload_preview?: { truncated?: boolean | null; data?: unknown } | null;
}

/**
 * The last event as a history event for the exception fold. The preview is the payload's JSON text,
 * cut at 4 KiB; a cut one still yields its leading scalars (failure_id, exception_type,
 * exception_class, message come before the exception and its trace). null without a payload.
 */
export function lastEventInput(event: LastEventAnswer | null | undefined): HistoryEventInput | null {
  const data = event?.payload_preview?.data;
  if (!event || data === undefined || data === null) return null;
  let payload: unknown = data;
  if (typeof data === "string") {
    try {
      payload = JSON.parse(data);
    } catch {
      payload = leadingScalars(data);
    }
  }
  if (typeof payload !== "object" || payload === null) return null;
  return { sequence: event.sequence, event_type: event.event_type, timestamp: event.timestamp ?? null, payload };
}

/** The type the run page's Exceptions table shows for the closing failure (one derivation: exceptionRows). */
function closingType(lastEvent: HistoryEventInput | null | undefined, closing: ClosedRunFailure | null): string | null {
  if (!closing) return null;
  const rows = exceptionRows({ recent_failures: [closing] }, lastEvent ? [lastEvent] : []);
  return rows.find((row) => row.id === closing.failure_id)?.type ?? null;
}

export interface FailureReason {
  /** exception_type, else exception_class, as the run page names it. */
  type: string | null;
  message: string | null;
}

/** What ended a failed run, for its row in the runs list: the closing failure's type and message. */
export function failureReason(
  failures: readonly ClosedRunFailure[],
  lastEvent: HistoryEventInput | null | undefined,
): FailureReason | null {
  const closing = closingFailure(failures);
  return closing ? { type: closingType(lastEvent, closing), message: closing.message ?? null } : null;
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
    const closing = closingFailure(run.failures);
    // What ended the run: the failure its terminal failure passed on, else the closing one itself.
    const failure = propagatedCause(run.failures, closing) ?? closing;
    const group: ClosedFailureGroup = {
      key: "",
      verdict: closedVerdict(run.status, failure),
      exceptionType: closingType(run.lastEvent, closing),
      failureCategory: failure?.failure_category ?? null,
      nonRetryable: failure?.non_retryable === true,
      workflowType: run.workflowType,
      sourceKind: failure?.source_kind ?? null,
      count: 0,
      firstSeen: null,
      lastSeen: null,
      messages: [],
      runs: [],
    };
    group.key = JSON.stringify([
      group.verdict,
      group.exceptionType,
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
      message: closing?.message ?? null,
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
      messages: distinctMessages(newestFirst.map((entry) => entry.message)),
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

/** Each message once with how many runs ended with it; most runs first, ties in the order given (newest first). */
function distinctMessages(messages: readonly (string | null)[]): GroupMessage[] {
  const counts = new Map<string, number>();
  for (const message of messages) if (message !== null) counts.set(message, (counts.get(message) ?? 0) + 1);
  return [...counts].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count);
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
