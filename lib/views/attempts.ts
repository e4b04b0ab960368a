import type { ActivityAttemptStatus, ActivityStatus, FailureCategory, HistoryEventType } from "@/lib/dw/enums";
import type { HistoryEventInput, Payload, ViewEvent } from "./events";
import { classifyFailureEvent, epochMs, readArray, readNumber, readObject, readString, toViewEvents } from "./events";

/**
 * The attempt ledger: every activity execution of a run with every attempt, rebuilt from typed
 * history first (v2-model §5.1, §2.8) and filled in from export `activities[]` rows, which know
 * what history cannot: lease expiry writes no event, so only the row says an attempt `expired`.
 */

export interface RetryPolicyInput {
  max_attempts?: number | null;
  backoff_seconds?: readonly number[] | number | null;
  non_retryable_error_types?: readonly string[] | null;
  start_to_close_timeout?: number | null;
  schedule_to_start_timeout?: number | null;
  schedule_to_close_timeout?: number | null;
  heartbeat_timeout?: number | null;
}

/**
 * An export attempt row. Real engines emit `id`, `attempt_number` and `status` as `?? null`
 * (durable-workflow/workflow src/V2/Support/HistoryExport.php@8dc90d64 `activityAttempts`): a row
 * without an id cannot be joined to history and is skipped; without a number it takes the next one.
 */
export interface AttemptRowInput {
  id?: string | null;
  attempt_number?: number | null;
  status?: string | null;
  lease_owner?: string | null;
  started_at?: string | null;
  last_heartbeat_at?: string | null;
  lease_expires_at?: string | null;
  closed_at?: string | null;
}

/** The fields of export `activities[]` the ledger reads. */
export interface ActivityRowInput {
  id: string;
  sequence?: number | null;
  activity_type?: string | null;
  activity_class?: string | null;
  status?: string | null;
  attempt_count?: number | null;
  retry_policy?: RetryPolicyInput | null;
  created_at?: string | null;
  closed_at?: string | null;
  attempts?: readonly AttemptRowInput[] | null;
}

export interface RetryPolicyView {
  /** null when attempts are unlimited. */
  maxAttempts: number | null;
  backoffSeconds: number[];
  nonRetryableErrorTypes: string[];
  startToCloseTimeout: number | null;
  scheduleToStartTimeout: number | null;
  scheduleToCloseTimeout: number | null;
  heartbeatTimeout: number | null;
}

export interface AttemptFailure {
  eventType: HistoryEventType;
  /** true for ActivityRetryScheduled: this failure was retried. */
  retried: boolean;
  failureId: string | null;
  failureCategory: FailureCategory | null;
  nonRetryable: boolean;
  exceptionType: string | null;
  exceptionClass: string | null;
  message: string | null;
  code: string | null;
  timeoutKind: string | null;
}

export interface AttemptRetry {
  backoffSeconds: number | null;
  nextAttempt: number;
  nextAttemptDueAt: string | null;
}

/** What differs from the previous attempt (null on the first attempt). */
export interface AttemptChanges {
  worker: boolean;
  error: boolean;
  durationDeltaMs: number | null;
}

export interface LedgerAttempt {
  id: string;
  number: number;
  status: ActivityAttemptStatus;
  /** A later attempt started while this one was still open: its lease expired and it was redelivered. */
  superseded: boolean;
  worker: string | null;
  startedAt: string | null;
  closedAt: string | null;
  durationMs: number | null;
  lastHeartbeatAt: string | null;
  /** The lease the worker held (ActivityStarted `lease_expires_at`, else the row's). */
  leaseExpiresAt?: string | null;
  failure: AttemptFailure | null;
  /** The backoff that followed this attempt's failure. */
  retry: AttemptRetry | null;
  changes: AttemptChanges | null;
}

export interface LedgerActivity {
  /** `activity_execution_id`, the idempotency key activities see (a stand-in key when unknown). */
  executionId: string;
  /** False when the history names no execution id (older SDKs and engines): show no id then. */
  executionIdKnown: boolean;
  sequence: number | null;
  type: string | null;
  class: string | null;
  status: ActivityStatus;
  attemptsUsed: number;
  maxAttempts: number | null;
  unlimitedAttempts: boolean;
  retryPolicy: RetryPolicyView | null;
  scheduledAt: string | null;
  closedAt: string | null;
  /** Set while a retry is scheduled and its attempt has not started. */
  nextAttempt: number | null;
  nextAttemptDueAt: string | null;
  /** The failure that closed the execution (ActivityFailed / ActivityTimedOut). */
  terminalFailure: AttemptFailure | null;
  attempts: LedgerAttempt[];
}

/**
 * The retry rules worth showing beside an activity: the backoffs a retry can still use (one fewer
 * than the attempts; all of them when attempts are unlimited) and the error types that stop retries.
 * An activity allowed one attempt never retries, so its policy's backoff list is noise: none.
 */
export function retryRules(activity: Pick<LedgerActivity, "maxAttempts" | "retryPolicy">): {
  backoffSeconds: number[];
  nonRetryableErrorTypes: string[];
} {
  const policy = activity.retryPolicy;
  const max = activity.maxAttempts;
  if (!policy || max === 1) return { backoffSeconds: [], nonRetryableErrorTypes: [] };
  const backoffSeconds = max === null ? policy.backoffSeconds : policy.backoffSeconds.slice(0, Math.max(0, max - 1));
  return { backoffSeconds, nonRetryableErrorTypes: policy.nonRetryableErrorTypes };
}

export function toRetryPolicy(input: Payload | RetryPolicyInput | null | undefined): RetryPolicyView | null {
  if (!input) return null;
  const p = input as Payload;
  const backoff = p.backoff_seconds;
  const numbers = (values: readonly unknown[]) => values.filter((v): v is number => typeof v === "number");
  return {
    maxAttempts: readNumber(p, "max_attempts"),
    backoffSeconds: typeof backoff === "number" ? [backoff] : numbers(readArray(p, "backoff_seconds")),
    nonRetryableErrorTypes: readArray(p, "non_retryable_error_types").filter((v): v is string => typeof v === "string"),
    startToCloseTimeout: readNumber(p, "start_to_close_timeout"),
    scheduleToStartTimeout: readNumber(p, "schedule_to_start_timeout"),
    scheduleToCloseTimeout: readNumber(p, "schedule_to_close_timeout"),
    heartbeatTimeout: readNumber(p, "heartbeat_timeout"),
  };
}

interface MutableAttempt extends Omit<LedgerAttempt, "durationMs" | "changes" | "superseded"> {
  closedByHistory: boolean;
}

interface MutableActivity extends Omit<
  LedgerActivity,
  "attempts" | "executionIdKnown" | "attemptsUsed" | "maxAttempts" | "unlimitedAttempts"
> {
  attempts: Map<string, MutableAttempt>;
  firstSequence: number;
  attemptCount: number;
  /** `max_attempts` from ActivityRetryScheduled, which wins over the snapshot (null = unlimited). */
  retryMaxAttempts: number | null | undefined;
}

const HISTORY_ATTEMPT_STATUS: Readonly<Record<string, ActivityAttemptStatus>> = {
  ActivityRetryScheduled: "failed",
  ActivityFailed: "failed",
  ActivityTimedOut: "expired",
  ActivityCompleted: "completed",
  ActivityCancelled: "cancelled",
};

const HISTORY_ACTIVITY_STATUS: Readonly<Record<string, ActivityStatus>> = {
  ActivityScheduled: "pending",
  ActivityStarted: "running",
  ActivityHeartbeatRecorded: "running",
  ActivityRetryScheduled: "pending",
  ActivityCompleted: "completed",
  ActivityFailed: "failed",
  ActivityTimedOut: "failed",
  ActivityCancelled: "cancelled",
};

const CLOSING_EVENTS = new Set(["ActivityCompleted", "ActivityFailed", "ActivityTimedOut", "ActivityCancelled"]);

const ATTEMPT_OUTCOMES = new Set(["ActivityCompleted", "ActivityFailed", "ActivityTimedOut", "ActivityRetryScheduled"]);

const TERMINAL_ATTEMPT_STATUSES = new Set(["completed", "failed", "cancelled", "expired"]);

function attemptFailure(event: ViewEvent): AttemptFailure | null {
  const failure = classifyFailureEvent(event);
  if (!failure) return null;
  return {
    eventType: failure.eventType,
    retried: failure.kind === "attempt",
    failureId: failure.failureId,
    failureCategory: failure.failureCategory,
    nonRetryable: failure.nonRetryable,
    exceptionType: failure.exceptionType,
    exceptionClass: failure.exceptionClass,
    message: failure.message,
    code: failure.code,
    timeoutKind: failure.timeoutKind,
  };
}

function newActivity(executionId: string, firstSequence: number): MutableActivity {
  return {
    executionId,
    sequence: null,
    type: null,
    class: null,
    status: "pending",
    retryPolicy: null,
    scheduledAt: null,
    closedAt: null,
    nextAttempt: null,
    nextAttemptDueAt: null,
    terminalFailure: null,
    attempts: new Map(),
    firstSequence,
    attemptCount: 0,
    retryMaxAttempts: undefined,
  };
}

function touchAttempt(activity: MutableActivity, id: string, number: number | null): MutableAttempt {
  let attempt = activity.attempts.get(id);
  if (!attempt) {
    attempt = {
      id,
      number: number ?? activity.attempts.size + 1,
      status: "running",
      worker: null,
      startedAt: null,
      closedAt: null,
      lastHeartbeatAt: null,
      leaseExpiresAt: null,
      failure: null,
      retry: null,
      closedByHistory: false,
    };
    activity.attempts.set(id, attempt);
  } else if (number !== null) {
    attempt.number = number;
  }
  activity.attemptCount = Math.max(activity.attemptCount, attempt.number);
  return attempt;
}

function applyEvent(activity: MutableActivity, event: ViewEvent): void {
  const p = event.payload;
  const snapshot = readObject(p, "activity");
  activity.type ??= readString(p, "activity_type") ?? readString(snapshot, "type");
  activity.class ??= readString(p, "activity_class") ?? readString(snapshot, "class");
  activity.sequence ??= readNumber(p, "sequence") ?? readNumber(snapshot, "sequence");
  // The snapshot is frozen at schedule time: read it once, not from every event that repeats it.
  if (!activity.retryPolicy)
    activity.retryPolicy = toRetryPolicy(readObject(p, "retry_policy") ?? readObject(snapshot, "retry_policy"));
  activity.status = HISTORY_ACTIVITY_STATUS[event.type] ?? activity.status;

  if (event.type === "ActivityScheduled") {
    activity.scheduledAt ??= event.recordedAt;
    return;
  }

  // The engine names the attempt on the event itself (`activity_attempt_id`, `attempt_number`) and
  // in the activity snapshot (`attempt_id`); only heartbeats carry an `activity_attempt` snapshot
  // (workflow src/V2/Support/DefaultHistoryProjectionRole.php, ActivityOutcomeRecorder.php@8dc90d64).
  const attemptId =
    readString(p, "activity_attempt_id") ??
    readString(p, "retry_after_attempt_id") ??
    readString(snapshot, "attempt_id");
  const attemptNumber = readNumber(p, "attempt_number") ?? readNumber(p, "retry_after_attempt");
  const attempt = attemptId ? touchAttempt(activity, attemptId, attemptNumber) : null;
  // An outcome proves an attempt ran even where older histories name none (golden histories).
  if (ATTEMPT_OUTCOMES.has(event.type)) activity.attemptCount = Math.max(activity.attemptCount, attemptNumber ?? 1);
  const failure = attemptFailure(event);

  if (event.type === "ActivityStarted") {
    activity.nextAttempt = null;
    activity.nextAttemptDueAt = null;
    if (attempt) {
      // ActivityStarted carries the execution's `started_at` and the claimed task's snapshot (its lease owner).
      attempt.startedAt ??= readString(snapshot, "started_at") ?? event.recordedAt;
      attempt.worker ??= readString(readObject(p, "task"), "lease_owner");
      attempt.leaseExpiresAt ??= readString(p, "lease_expires_at");
    }
    return;
  }
  if (event.type === "ActivityHeartbeatRecorded") {
    if (attempt) attempt.lastHeartbeatAt = readString(p, "heartbeat_at") ?? event.recordedAt;
    return;
  }

  const attemptStatus = HISTORY_ATTEMPT_STATUS[event.type];
  if (attempt && attemptStatus) {
    attempt.status = attemptStatus;
    attempt.closedByHistory = true;
    attempt.closedAt = readString(snapshot, "closed_at") ?? event.recordedAt;
    attempt.failure = failure;
  }

  if (event.type === "ActivityRetryScheduled") {
    const afterAttempt = readNumber(p, "retry_after_attempt") ?? attempt?.number ?? activity.attemptCount;
    const retry: AttemptRetry = {
      backoffSeconds: readNumber(p, "retry_backoff_seconds"),
      nextAttempt: afterAttempt + 1,
      nextAttemptDueAt: readString(p, "retry_available_at"),
    };
    if (attempt) attempt.retry = retry;
    activity.nextAttempt = retry.nextAttempt;
    activity.nextAttemptDueAt = retry.nextAttemptDueAt;
    if ("max_attempts" in p) activity.retryMaxAttempts = readNumber(p, "max_attempts");
    return;
  }
  if (CLOSING_EVENTS.has(event.type)) {
    activity.closedAt = readString(snapshot, "closed_at") ?? event.recordedAt;
    activity.nextAttempt = null;
    activity.nextAttemptDueAt = null;
    if (failure) activity.terminalFailure = failure;
  }
}

function mergeRow(activity: MutableActivity, row: ActivityRowInput, fromHistory: boolean): void {
  activity.type ??= row.activity_type ?? null;
  activity.class ??= row.activity_class ?? null;
  activity.sequence ??= row.sequence ?? null;
  activity.retryPolicy ??= toRetryPolicy(row.retry_policy);
  activity.scheduledAt ??= row.created_at ?? null;
  activity.closedAt ??= row.closed_at ?? null;
  activity.attemptCount = Math.max(activity.attemptCount, row.attempt_count ?? 0);
  if (!fromHistory && row.status) activity.status = row.status;
  for (const rowAttempt of row.attempts ?? []) {
    if (!rowAttempt.id) continue;
    const attempt = touchAttempt(activity, rowAttempt.id, rowAttempt.attempt_number ?? null);
    attempt.worker ??= rowAttempt.lease_owner ?? null;
    attempt.startedAt ??= rowAttempt.started_at ?? null;
    attempt.lastHeartbeatAt ??= rowAttempt.last_heartbeat_at ?? null;
    attempt.leaseExpiresAt ??= rowAttempt.lease_expires_at ?? null;
    // History is authoritative for closed attempts; an open-in-history attempt takes the row's
    // terminal status because lease expiry and fencing leave no event.
    if (!attempt.closedByHistory && rowAttempt.status && TERMINAL_ATTEMPT_STATUSES.has(rowAttempt.status)) {
      attempt.status = rowAttempt.status;
      attempt.closedAt ??= rowAttempt.closed_at ?? null;
    }
  }
}

function errorKey(failure: AttemptFailure | null): string | null {
  if (!failure) return null;
  return `${failure.exceptionType ?? failure.exceptionClass ?? ""}\u0000${failure.message ?? ""}`;
}

function finish(activity: MutableActivity): LedgerActivity {
  const ordered = [...activity.attempts.values()].sort((a, b) => a.number - b.number);
  const lastNumber = ordered.at(-1)?.number ?? 0;
  const attempts = ordered.map((attempt): LedgerAttempt => {
    const superseded = !attempt.closedByHistory && attempt.number < lastNumber;
    const started = epochMs(attempt.startedAt);
    const closed = epochMs(attempt.closedAt);
    const durationMs = started !== null && closed !== null ? closed - started : null;
    return {
      id: attempt.id,
      number: attempt.number,
      // A superseded attempt is closed whether or not its row was read: only expiry starts a newer one.
      status: superseded && attempt.status === "running" ? "expired" : attempt.status,
      superseded,
      worker: attempt.worker,
      startedAt: attempt.startedAt,
      closedAt: attempt.closedAt,
      durationMs,
      lastHeartbeatAt: attempt.lastHeartbeatAt,
      leaseExpiresAt: attempt.leaseExpiresAt ?? null,
      failure: attempt.failure,
      retry: attempt.retry,
      changes: null,
    };
  });
  for (const [i, current] of attempts.entries()) {
    const previous = attempts[i - 1];
    if (!previous) continue; // the first attempt has nothing to change from
    current.changes = {
      worker: previous.worker !== null && current.worker !== null && previous.worker !== current.worker,
      error:
        errorKey(previous.failure) !== null &&
        errorKey(current.failure) !== null &&
        errorKey(previous.failure) !== errorKey(current.failure),
      durationDeltaMs:
        previous.durationMs !== null && current.durationMs !== null ? current.durationMs - previous.durationMs : null,
    };
  }
  const maxAttempts =
    activity.retryMaxAttempts !== undefined ? activity.retryMaxAttempts : (activity.retryPolicy?.maxAttempts ?? null);
  const knowsLimit = activity.retryMaxAttempts !== undefined || activity.retryPolicy !== null;
  return {
    executionId: activity.executionId,
    executionIdKnown: !activity.executionId.startsWith(SYNTHETIC_KEY),
    sequence: activity.sequence,
    type: activity.type,
    class: activity.class,
    status: activity.status,
    attemptsUsed: Math.max(activity.attemptCount, lastNumber),
    maxAttempts,
    unlimitedAttempts: knowsLimit && maxAttempts === null,
    retryPolicy: activity.retryPolicy,
    scheduledAt: activity.scheduledAt,
    closedAt: activity.closedAt,
    nextAttempt: activity.nextAttempt,
    nextAttemptDueAt: activity.nextAttemptDueAt,
    terminalFailure: activity.terminalFailure,
    attempts,
  };
}

/**
 * The activity an event belongs to. Current engines name it (`activity_execution_id`); histories
 * recorded by older SDKs and engines (the golden histories of durable-workflow/sdk-python
 * tests/fixtures/golden_history@b15778e and durable-workflow/workflow tests/Fixtures/V2/GoldenHistory
 * @8dc90d64) carry only the workflow `sequence` of the call, or nothing: then the call's sequence,
 * else the event itself, stands in, and {@link LedgerActivity.executionIdKnown} says so.
 */
function executionKey(event: ViewEvent): string {
  const executionId = readString(event.payload, "activity_execution_id");
  if (executionId) return executionId;
  const sequence = readNumber(event.payload, "sequence");
  return sequence !== null ? `${SYNTHETIC_KEY}sequence:${sequence}` : `${SYNTHETIC_KEY}event:${event.sequence}`;
}

const SYNTHETIC_KEY = "\u0000";

/**
 * The ledger as a fold over events in sequence order, so the console server can derive it page by
 * page without keeping the events (issue 14). {@link ledgerFromEvents} is this fold run over a
 * whole history: one code path for the batch and the paged view.
 *
 * An activity is *settled* once a closing event (ActivityCompleted, ActivityFailed, ActivityTimedOut,
 * ActivityCancelled) is applied: the engine writes no outcome for an execution once its lease was
 * reclaimed or its attempt superseded ("Ignore late activity outcomes", workflow
 * src/V2/Support/ActivityOutcomeRecorder.php@797aa6f1 lines 100-111), so a later event naming a
 * closed activity is an anomaly, and both paths ignore it alike.
 * {@link LedgerFold.takeSettled} hands out settled activities in ledger order, only as a prefix (an
 * activity goes once it and every earlier one are settled), and drops their state.
 */
export class LedgerFold {
  /** Activities not yet taken, in insertion order = first-event order (events arrive ascending). */
  private readonly byId = new Map<string, MutableActivity>();
  /** Keys of closed activities: late events naming them are ignored (a Set of ids, not their state). */
  private readonly closedIds = new Set<string>();
  private taken = 0;

  /** Apply one event (any type; non-activity events are skipped). Events must come in sequence order. */
  add(event: ViewEvent): void {
    if (!event.type.startsWith("Activity")) return;
    const executionId = executionKey(event);
    if (this.closedIds.has(executionId)) return;
    let activity = this.byId.get(executionId);
    if (!activity) {
      activity = newActivity(executionId, event.sequence);
      this.byId.set(executionId, activity);
    }
    applyEvent(activity, event);
    if (CLOSING_EVENTS.has(event.type)) this.closedIds.add(executionId);
  }

  /** The settled prefix since the last call, finished; their state is dropped. */
  takeSettled(): LedgerActivity[] {
    const settled: LedgerActivity[] = [];
    for (const [id, activity] of this.byId) {
      if (!this.closedIds.has(id)) break;
      settled.push(finish(activity));
      this.byId.delete(id);
    }
    this.taken += settled.length;
    return settled;
  }

  /** Batch only: fill in from export `activities[]` rows after every event was applied. */
  mergeRows(rows: readonly ActivityRowInput[]): void {
    for (const row of rows) {
      const known = this.byId.get(row.id);
      const activity = known ?? newActivity(row.id, Number.MAX_SAFE_INTEGER);
      if (!known) this.byId.set(row.id, activity);
      mergeRow(activity, row, known !== undefined);
    }
  }

  /** Every activity not yet taken, finished, in ledger order; non-destructive. */
  open(): LedgerActivity[] {
    return [...this.byId.values()]
      .sort((a, b) => a.firstSequence - b.firstSequence || (a.sequence ?? 0) - (b.sequence ?? 0))
      .map(finish);
  }

  /** Activities held in memory (open, or settled behind an open one). */
  get heldCount(): number {
    return this.byId.size;
  }

  /** Activities seen so far, taken or held. */
  get knownCount(): number {
    return this.taken + this.byId.size;
  }
}

/**
 * One entry per activity execution, in schedule order. `activities` (export `activities[]`) is
 * optional: without it, attempts that expired without a successor still read `running`.
 */
export function attemptLedger(
  history: readonly HistoryEventInput[],
  activities: readonly ActivityRowInput[] = [],
): LedgerActivity[] {
  return ledgerFromEvents(toViewEvents(history), activities);
}

/** {@link attemptLedger} over events already normalised (and sorted) by {@link toViewEvents}. */
export function ledgerFromEvents(
  events: readonly ViewEvent[],
  activities: readonly ActivityRowInput[] = [],
): LedgerActivity[] {
  const fold = new LedgerFold();
  for (const event of events) fold.add(event);
  fold.mergeRows(activities);
  return fold.open();
}

/**
 * Why the execution stopped retrying, for its header (issue 15 item 9: the policy's
 * `non_retryable_error_types` list read like a verdict). Only a failed execution has one: its
 * terminal failure was non-retryable, or every allowed attempt was used ("retries exhausted (3/3)").
 */
export type RetryVerdict =
  { kind: "non_retryable"; type: string | null } | { kind: "exhausted"; used: number; max: number } | null;

export function retryVerdict(
  activity: Pick<LedgerActivity, "status" | "terminalFailure" | "attemptsUsed" | "maxAttempts">,
): RetryVerdict {
  if (activity.status !== "failed") return null;
  const failure = activity.terminalFailure;
  if (failure?.nonRetryable) return { kind: "non_retryable", type: failure.exceptionType ?? failure.exceptionClass };
  if (activity.maxAttempts !== null && activity.attemptsUsed >= activity.maxAttempts)
    return { kind: "exhausted", used: activity.attemptsUsed, max: activity.maxAttempts };
  return null;
}

/** The retry-policy timeout (seconds) that a `timeout_kind` names. */
function policyTimeout(policy: RetryPolicyView | null, kind: string): number | null {
  if (!policy) return null;
  switch (kind) {
    case "start_to_close":
      return policy.startToCloseTimeout;
    case "schedule_to_start":
      return policy.scheduleToStartTimeout;
    case "schedule_to_close":
      return policy.scheduleToCloseTimeout;
    case "heartbeat":
      return policy.heartbeatTimeout;
    default:
      return null;
  }
}

/**
 * What ended an attempt that produced no outcome of its own, and how long until the next one began:
 * a timeout the engine recorded (`timeout_kind`, with the policy's limit), or a lease that ran out
 * (lease expiry writes no event: the attempt was superseded or its row says `expired`).
 */
export type AttemptGap =
  | {
      kind: "timeout";
      timeoutKind: string;
      limitSeconds: number | null;
      nextAttempt: number | null;
      gapMs: number | null;
    }
  | {
      kind: "lease";
      leaseExpiresAt: string | null;
      lastHeartbeatAt: string | null;
      nextAttempt: number | null;
      gapMs: number | null;
    }
  | null;

export function attemptGap(
  activity: Pick<LedgerActivity, "attempts" | "retryPolicy">,
  attempt: LedgerAttempt,
): AttemptGap {
  const next = activity.attempts.find((other) => other.number > attempt.number) ?? null;
  const nextStart = epochMs(next?.startedAt ?? null);
  const timeoutKind = attempt.failure?.timeoutKind ?? null;
  if (timeoutKind) {
    const ended = epochMs(attempt.closedAt);
    return {
      kind: "timeout",
      timeoutKind,
      limitSeconds: policyTimeout(activity.retryPolicy, timeoutKind),
      nextAttempt: next?.number ?? null,
      gapMs: ended !== null && nextStart !== null ? Math.max(0, nextStart - ended) : null,
    };
  }
  if (attempt.status !== "expired") return null;
  const leaseExpiresAt = attempt.leaseExpiresAt ?? null;
  const from = epochMs(leaseExpiresAt) ?? epochMs(attempt.lastHeartbeatAt) ?? epochMs(attempt.startedAt);
  return {
    kind: "lease",
    leaseExpiresAt,
    lastHeartbeatAt: attempt.lastHeartbeatAt,
    nextAttempt: next?.number ?? null,
    gapMs: from !== null && nextStart !== null ? Math.max(0, nextStart - from) : null,
  };
}
