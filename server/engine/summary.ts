import type Database from "better-sqlite3";
import type { Db } from "../store/db";
import { isoMicros } from "../clock";
import type { ActivityRow, RunRow, TaskRow } from "./rows";
import { isTerminal } from "./rows";

const BUCKET: Record<string, string> = {
  pending: "running",
  running: "running",
  waiting: "running",
  completed: "completed",
  failed: "failed",
  cancelled: "failed",
  terminated: "failed",
};

type Statement = Database.Statement<unknown[]>;
const statements = new WeakMap<Db, Map<string, Statement>>();

/** Prepared once per connection: the projection runs in every transition, so re-preparing would dominate its cost. */
function stmt(db: Db, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    s = db.prepare<unknown[]>(sql);
    cache.set(sql, s);
  }
  return s;
}

export function statusBucket(status: string): string {
  return BUCKET[status] ?? "running";
}

/** The engine's task-repair policy (`TaskRepairPolicy` defaults); one place so summary, repair and metrics agree. */
export const REPAIR_POLICY = {
  redispatch_after_seconds: 3,
  loop_throttle_seconds: 5,
  scan_limit: 25,
  scan_strategy: "scope_fair_round_robin",
  failure_backoff_max_seconds: 60,
  failure_backoff_strategy: "exponential_by_repair_count",
} as const;

/** History budget thresholds (`HistoryBudget` engine defaults). */
export const HISTORY_BUDGET = {
  event_threshold: 10_000,
  size_bytes_threshold: 5_242_880,
  fan_out_threshold: 200,
  event_warning_threshold: 8_000,
  size_bytes_warning_threshold: 4_194_304,
  fan_out_warning_threshold: 160,
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

export function parsePayload(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The run columns RUN_FACTS_SQL selects. */
type RunColumns = Pick<
  RunRow,
  | "id"
  | "workflow_instance_id"
  | "namespace"
  | "run_number"
  | "workflow_class"
  | "workflow_type"
  | "business_key"
  | "visibility_labels"
  | "status"
  | "closed_reason"
  | "compatibility"
  | "connection"
  | "queue"
  | "started_at"
  | "closed_at"
  | "archived_at"
  | "archive_command_id"
  | "archive_reason"
  | "last_progress_at"
  | "created_at"
>;

/** The columns the projection reads of a run's open activities. */
type OpenActivity = Pick<
  ActivityRow,
  | "id"
  | "activity_type"
  | "status"
  | "attempt_count"
  | "created_at"
  | "schedule_deadline_at"
  | "close_deadline_at"
  | "schedule_to_close_deadline_at"
>;

interface WaitEventRow {
  sequence: number;
  event_type: string;
  payload: string | null;
  recorded_at: number;
}

/** Event types whose rows the partial index `workflow_history_events_waits` covers (migration 2). */
export const WAIT_EVENT_TYPES = [
  "SignalWaitOpened",
  "SignalApplied",
  "ConditionWaitOpened",
  "ConditionWaitSatisfied",
  "ConditionWaitTimedOut",
] as const;

export interface RunSummary {
  id: string;
  workflow_instance_id: string;
  namespace: string;
  run_number: number;
  is_current_run: number;
  class: string | null;
  workflow_type: string;
  compatibility: string | null;
  business_key: string | null;
  visibility_labels: string | null;
  status: string;
  status_bucket: string;
  closed_reason: string | null;
  connection: string | null;
  queue: string | null;
  started_at: number | null;
  sort_timestamp: number;
  sort_key: string;
  closed_at: number | null;
  archived_at: number | null;
  archive_command_id: string | null;
  archive_reason: string | null;
  duration_ms: number | null;
  wait_kind: string | null;
  wait_reason: string | null;
  wait_started_at: number | null;
  wait_deadline_at: number | null;
  open_wait_id: string | null;
  resume_source_kind: string | null;
  resume_source_id: string | null;
  next_task_at: number | null;
  next_task_id: string | null;
  next_task_type: string | null;
  next_task_status: string | null;
  next_task_lease_expires_at: number | null;
  liveness_state: string;
  liveness_reason: string;
  repair_blocked_reason: string | null;
  repair_attention: number;
  task_problem: number;
  exception_count: number;
  history_event_count: number;
  history_size_bytes: number;
  history_fan_out: number;
  continue_as_new_recommended: number;
  history_budget_pressure: string;
  created_at: number;
  updated_at: number;
}

interface Wait {
  kind: string;
  reason: string;
  openWaitId: string;
  resumeKind: string;
  resumeId: string;
  startedAt: number | null;
  deadlineAt: number | null;
}

function minDeadline(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null);
  return v.length ? Math.min(...v) : null;
}

function taskKind(t: TaskRow): string {
  return t.task_type === "activity" || t.task_type === "timer" ? t.task_type : "workflow";
}

function taskLabel(t: TaskRow): string {
  const k = taskKind(t);
  return k.charAt(0).toUpperCase() + k.slice(1);
}

/** Liveness of a healthy open task, `{type}_task_*` (timers read as scheduled until leased). */
function healthyTaskLiveness(t: TaskRow, now: number): [string, string] {
  const k = taskKind(t);
  if (t.status === "leased")
    return [`${k}_task_leased`, `${taskLabel(t)} task ${t.id} is leased to ${t.lease_owner ?? "a worker"}.`];
  if (claimFailed(t))
    return [`${k}_task_claim_failed`, `${taskLabel(t)} task ${t.id} claim failed: ${t.last_claim_error ?? ""}`.trim()];
  if (k === "timer")
    return ["timer_scheduled", `Timer task ${t.id} is scheduled to fire at ${isoMicros(t.available_at ?? now)}.`];
  return [`${k}_task_ready`, `${taskLabel(t)} task ${t.id} is ready.`];
}

function unhealthyReason(t: TaskRow, now: number): string {
  if (leaseExpired(t, now)) return `${taskLabel(t)} task ${t.id} lease expired at ${isoMicros(t.lease_expires_at)}.`;
  if (dispatchFailed(t))
    return `${taskLabel(t)} task ${t.id} could not be dispatched at ${isoMicros(t.last_dispatch_attempt_at)}. ${t.last_dispatch_error ?? ""}`.trim();
  return `${taskLabel(t)} task ${t.id} is ready but has not been dispatched since ${isoMicros(t.last_dispatch_attempt_at ?? t.created_at)}.`;
}

function byAvailability(a: TaskRow, b: TaskRow): number {
  return (
    (a.available_at ?? a.created_at) - (b.available_at ?? b.created_at) ||
    a.created_at - b.created_at ||
    (a.id < b.id ? -1 : 1)
  );
}

/**
 * Computes (without writing) the summary row of a run, following `RunSummaryProjector`: wait, next
 * task, liveness in the documented evaluation order, repair blocking, task problem, history budget.
 * Only index-backed lookups scoped to this one run, so it stays cheap inside every transition.
 */
export function projectRunSummary(db: Db, runId: string, now: number): RunSummary | null {
  return project(db, runId, now, previousSummary(db, runId));
}

function previousSummary(db: Db, runId: string): RunSummary | undefined {
  return stmt(db, "SELECT * FROM workflow_run_summaries WHERE id = ?").get(runId) as RunSummary | undefined;
}

/** The run row plus the scalar facts the projection needs, fetched in one statement (each call costs more than these lookups). */
const RUN_FACTS_SQL = `SELECT r.id, r.workflow_instance_id, r.namespace, r.run_number, r.workflow_class, r.workflow_type, r.business_key, r.visibility_labels, r.status,
   r.closed_reason, r.compatibility, r.connection, r.queue, r.started_at, r.closed_at, r.archived_at, r.archive_command_id, r.archive_reason, r.last_progress_at, r.created_at,
   (SELECT 1 FROM workflow_instances i WHERE i.namespace = r.namespace AND i.id = r.workflow_instance_id) AS instance_exists,
   (SELECT i.current_run_id FROM workflow_instances i WHERE i.namespace = r.namespace AND i.id = r.workflow_instance_id) AS current_run_id,
   (SELECT MAX(e.sequence) FROM workflow_history_events e WHERE e.workflow_run_id = r.id) AS max_sequence,
   (SELECT COALESCE(SUM(LENGTH(COALESCE(e.payload, '')) + LENGTH(e.event_type)), 0) FROM workflow_history_events e
     WHERE e.workflow_run_id = r.id AND e.sequence > @counted) AS new_event_bytes,
   (SELECT COUNT(*) FROM workflow_failures f WHERE f.workflow_run_id = r.id) AS exception_count
 FROM workflow_runs r WHERE r.id = @id`;

interface RunFacts extends RunColumns {
  instance_exists: number | null;
  current_run_id: string | null;
  max_sequence: number | null;
  /** Bytes of the events after the ones the previous projection counted. */
  new_event_bytes: number;
  exception_count: number;
}

/** A run's history budget figures: the event count is the highest sequence. */
interface RunHistoryFacts {
  run: RunFacts;
  maxSeq: number;
  sizeBytes: number;
}

/**
 * The run's facts, with the history size grown by the events since the last projection (all of
 * them when history shrank, which only a rebuilt file can show); null when the run does not exist.
 */
function readRunFacts(db: Db, runId: string, prev: RunSummary | undefined): RunHistoryFacts | null {
  const prevCount = prev?.history_event_count ?? 0;
  let run = stmt(db, RUN_FACTS_SQL).get({ id: runId, counted: prevCount }) as RunFacts | undefined;
  if (!run) return null;
  const maxSeq = run.max_sequence ?? 0;
  let sizeBytes = prev?.history_size_bytes ?? 0;
  if (prevCount > maxSeq) {
    run = stmt(db, RUN_FACTS_SQL).get({ id: runId, counted: 0 }) as RunFacts;
    sizeBytes = 0;
  }
  return { run, maxSeq, sizeBytes: sizeBytes + run.new_event_bytes };
}

type Liveness = [state: string, reason: string];

interface OpenTimer {
  id: string;
  fire_at: number;
  created_at: number;
  delay_seconds: number;
}
interface ReceivedSignal {
  id: string;
  signal_name: string;
  received_at: number;
}
interface OpenChild {
  id: string;
  child_workflow_type: string;
  created_at: number;
}
interface OpenSignalWait {
  name: string;
  at: number;
  timeout: number | null;
}
interface OpenConditionWait {
  key: string | null;
  at: number;
  timeout: number | null;
}

/** A run's open tasks: ready/leased ones by availability, the replay-blocked failed ones, the first unhealthy one. */
interface OpenTasks {
  open: TaskRow[];
  replayBlocked: TaskRow[];
  unhealthy: TaskRow | null;
  openWorkflowTask: TaskRow | null;
}

/** Everything a non-terminal run may be parked on, read with index-backed lookups scoped to the run. */
interface OpenWork extends OpenTasks {
  activities: OpenActivity[];
  timers: OpenTimer[];
  signals: ReceivedSignal[];
  children: OpenChild[];
  signalWaits: Map<string, OpenSignalWait>;
  conditionWaits: Map<string, OpenConditionWait>;
}

function readOpenTasks(db: Db, runId: string, now: number): OpenTasks {
  const tasks = stmt(
    db,
    "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased', 'failed')",
  ).all(runId) as TaskRow[];
  const replayBlocked = tasks.filter((t) => t.status === "failed" && parsePayload(t.payload).replay_blocked === true);
  const open = tasks.filter((t) => t.status === "ready" || t.status === "leased").sort(byAvailability);
  return {
    open,
    replayBlocked,
    unhealthy: open.find((t) => taskUnhealthy(t, now)) ?? null,
    openWorkflowTask: open.find((t) => taskKind(t) === "workflow") ?? null,
  };
}

/** The signal and condition waits still open after replaying the run's wait events in order. */
function openWaitsOf(waitEvents: WaitEventRow[]): Pick<OpenWork, "signalWaits" | "conditionWaits"> {
  const signalWaits = new Map<string, OpenSignalWait>();
  const conditionWaits = new Map<string, OpenConditionWait>();
  for (const e of waitEvents) {
    const p = parsePayload(e.payload);
    const sigId = typeof p.signal_wait_id === "string" ? p.signal_wait_id : null;
    const condId = typeof p.condition_wait_id === "string" ? p.condition_wait_id : null;
    const timeout = typeof p.timeout_seconds === "number" ? p.timeout_seconds : null;
    if (e.event_type === "SignalWaitOpened" && sigId)
      signalWaits.set(sigId, { name: String(p.signal_name ?? ""), at: e.recorded_at, timeout });
    else if (e.event_type === "SignalApplied" && sigId) signalWaits.delete(sigId);
    else if (e.event_type === "ConditionWaitOpened" && condId)
      conditionWaits.set(condId, {
        key: typeof p.condition_key === "string" ? p.condition_key : null,
        at: e.recorded_at,
        timeout,
      });
    else if (condId) conditionWaits.delete(condId);
  }
  return { signalWaits, conditionWaits };
}

/**
 * A signal wait with a timeout also ends when its timeout timer fires (no SignalApplied then).
 * Only such waits pay for this lookup, which scans the run's own events.
 */
function dropTimedOutSignalWaits(db: Db, runId: string, signalWaits: Map<string, OpenSignalWait>): void {
  for (const [id, w] of signalWaits) {
    if (w.timeout === null) continue;
    const fired = stmt(
      db,
      "SELECT 1 FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'TimerFired' AND json_extract(payload, '$.signal_wait_id') = ? LIMIT 1",
    ).get(runId, id);
    if (fired) signalWaits.delete(id);
  }
}

function readOpenWork(db: Db, runId: string, now: number): OpenWork {
  const activities = stmt(
    db,
    "SELECT id, activity_type, status, attempt_count, created_at, schedule_deadline_at, close_deadline_at, schedule_to_close_deadline_at FROM activity_executions WHERE workflow_run_id = ? AND status IN ('pending', 'running') ORDER BY sequence",
  ).all(runId) as OpenActivity[];
  const timers = stmt(
    db,
    "SELECT id, fire_at, created_at, delay_seconds FROM workflow_run_timers WHERE workflow_run_id = ? AND status = 'pending' ORDER BY fire_at",
  ).all(runId) as OpenTimer[];
  const signals = stmt(
    db,
    "SELECT id, signal_name, received_at FROM workflow_signal_records WHERE workflow_run_id = ? AND status = 'received' ORDER BY received_at",
  ).all(runId) as ReceivedSignal[];
  const children = stmt(
    db,
    "SELECT id, child_workflow_type, created_at FROM workflow_child_calls WHERE parent_workflow_run_id = ? AND status IN ('scheduled', 'started') ORDER BY sequence",
  ).all(runId) as OpenChild[];
  const waitEvents = stmt(
    db,
    `SELECT sequence, event_type, payload, recorded_at FROM workflow_history_events
         WHERE workflow_run_id = ? AND event_type IN (${WAIT_EVENT_TYPES.map((t) => `'${t}'`).join(", ")}) ORDER BY sequence`,
  ).all(runId) as WaitEventRow[];
  const waits = openWaitsOf(waitEvents);
  dropTimedOutSignalWaits(db, runId, waits.signalWaits);
  return { ...readOpenTasks(db, runId, now), activities, timers, signals, children, ...waits };
}

function firstEntry<K, V>(map: Map<K, V>): [K, V] | undefined {
  return [...map.entries()][0];
}

function activityWait(act: OpenActivity): Wait {
  return {
    kind: "activity",
    reason: `Waiting for activity ${act.activity_type}`,
    openWaitId: `activity:${act.id}`,
    resumeKind: "activity_execution",
    resumeId: act.id,
    startedAt: act.created_at,
    deadlineAt: minDeadline([act.schedule_deadline_at, act.close_deadline_at, act.schedule_to_close_deadline_at]),
  };
}

function signalApplicationWait(sig: ReceivedSignal): Wait {
  return {
    kind: "signal",
    reason: `Applying signal ${sig.signal_name}`,
    openWaitId: `signal-application:${sig.id}`,
    resumeKind: "workflow_signal",
    resumeId: sig.id,
    startedAt: sig.received_at,
    deadlineAt: null,
  };
}

/** A condition or signal wait opened by the workflow code, resumed by external input or its timeout. */
function externalInputWait(kind: string, reason: string, id: string, w: { at: number; timeout: number | null }): Wait {
  return {
    kind,
    reason: w.timeout !== null ? `${reason} or timeout` : reason,
    openWaitId: id,
    resumeKind: "external_input",
    resumeId: id,
    startedAt: w.at,
    deadlineAt: w.timeout !== null ? w.at + w.timeout * 1000 : null,
  };
}

function timerWait(tim: OpenTimer): Wait {
  return {
    kind: "timer",
    reason: `Waiting for timer (${tim.delay_seconds}s)`,
    openWaitId: `timer:${tim.id}`,
    resumeKind: "timer",
    resumeId: tim.id,
    startedAt: tim.created_at,
    deadlineAt: tim.fire_at,
  };
}

function childWait(child: OpenChild): Wait {
  return {
    kind: "child",
    reason: `Waiting for child workflow ${child.child_workflow_type}`,
    openWaitId: `child:${child.id}`,
    resumeKind: "child_workflow_run",
    resumeId: child.id,
    startedAt: child.created_at,
    deadlineAt: null,
  };
}

function workflowTaskWait(task: TaskRow): Wait {
  return {
    kind: "workflow-task",
    reason: task.status === "leased" ? "Workflow task is running" : "Waiting for a workflow task",
    openWaitId: `workflow-task:${task.id}`,
    resumeKind: "workflow_task",
    resumeId: task.id,
    startedAt: task.created_at,
    deadlineAt: null,
  };
}

function conditionLabel(key: string | null): string {
  return `Waiting for condition${key ? ` ${key}` : ""}`;
}

/** The wait: the earliest durable obligation the run is parked on, in the projector's order. */
function parkedWait(w: OpenWork): Wait | null {
  const act = w.activities[0];
  if (act) return activityWait(act);
  const sig = w.signals[0];
  if (sig) return signalApplicationWait(sig);
  const cond = firstEntry(w.conditionWaits);
  if (cond) return externalInputWait("condition", conditionLabel(cond[1].key), cond[0], cond[1]);
  const tim = w.timers[0];
  if (tim) return timerWait(tim);
  const child = w.children[0];
  if (child) return childWait(child);
  const sigWait = firstEntry(w.signalWaits);
  if (sigWait) return externalInputWait("signal", `Waiting for signal ${sigWait[1].name}`, sigWait[0], sigWait[1]);
  return w.openWorkflowTask ? workflowTaskWait(w.openWorkflowTask) : null;
}

/** The liveness of a run parked on an activity: its task's, or why it has none. */
function activityLiveness(w: OpenWork, act: OpenActivity, now: number): Liveness {
  const t = w.open.find(
    (task) => task.task_type === "activity" && parsePayload(task.payload).activity_execution_id === act.id,
  );
  if (t) return healthyTaskLiveness(t, now);
  if (act.status === "running")
    return ["activity_running_without_task", `Activity ${act.id} is running without an open activity task.`];
  return ["repair_needed", `Activity ${act.id} is pending without an open activity task.`];
}

function timerLiveness(w: OpenWork, tim: OpenTimer, now: number): Liveness {
  const t = w.open.find((task) => task.task_type === "timer" && parsePayload(task.payload).timer_id === tim.id);
  return t ? healthyTaskLiveness(t, now) : ["repair_needed", `Timer ${tim.id} is pending without an open timer task.`];
}

/**
 * Liveness in the documented evaluation order, first match wins; `orphanedSignal` marks a
 * received signal with no workflow task to apply it (a task problem although the run has a wait).
 */
function livenessOf(w: OpenWork, now: number): { liveness: Liveness; orphanedSignal: boolean } {
  const none = (liveness: Liveness) => ({ liveness, orphanedSignal: false });
  const blocked = w.replayBlocked[0];
  if (blocked)
    return none([
      "workflow_replay_blocked",
      `Workflow task ${blocked.id} is blocked: history cannot be replayed by the current build.`,
    ]);
  if (w.unhealthy) return none(["repair_needed", unhealthyReason(w.unhealthy, now)]);
  const act = w.activities[0];
  if (act) return none(activityLiveness(w, act, now));
  const sig = w.signals[0];
  if (sig) {
    if (w.openWorkflowTask) return none(healthyTaskLiveness(w.openWorkflowTask, now));
    return {
      liveness: ["repair_needed", `Accepted signal ${sig.signal_name} is received without an open workflow task.`],
      orphanedSignal: true,
    };
  }
  const cond = firstEntry(w.conditionWaits);
  if (cond) return none(["waiting_for_condition", `${conditionLabel(cond[1].key)}.`]);
  const tim = w.timers[0];
  if (tim) return none(timerLiveness(w, tim, now));
  const next = w.open[0];
  if (next) return none(healthyTaskLiveness(next, now));
  const child = w.children[0];
  if (child) return none(["waiting_for_child", `Waiting for child workflow ${child.child_workflow_type}.`]);
  const sigWait = firstEntry(w.signalWaits);
  if (sigWait) return none(["waiting_for_signal", `Waiting for signal ${sigWait[1].name}.`]);
  return none(["repair_needed", "Run is non-terminal but has no durable next-resume source."]);
}

/** What the projection derives from the run's open work (or from its closing, for a terminal run). */
interface RunState {
  wait: Wait | null;
  nextTask: TaskRow | null;
  liveness: Liveness;
  /** A transport problem now; the summary's badge also keeps an earlier one. */
  taskProblem: boolean;
  replayBlockedTask: boolean;
  fanOut: number;
}

function closedRunState(run: RunFacts): RunState {
  return {
    wait: null,
    nextTask: null,
    liveness: ["closed", `Run closed as ${run.closed_reason ?? run.status}.`],
    taskProblem: false,
    replayBlockedTask: false,
    fanOut: 0,
  };
}

function openRunState(db: Db, runId: string, now: number): RunState {
  const w = readOpenWork(db, runId, now);
  const wait = parkedWait(w);
  const { liveness, orphanedSignal } = livenessOf(w, now);
  const replayBlockedTask = w.replayBlocked.length > 0;
  const wt = w.openWorkflowTask;
  const taskProblem =
    orphanedSignal ||
    replayBlockedTask ||
    (wt !== null && (taskUnhealthy(wt, now) || claimFailed(wt) || wt.repair_count > 0)) ||
    (liveness[0] === "repair_needed" && wait === null);
  return {
    wait,
    nextTask: w.replayBlocked[0] ?? w.unhealthy ?? w.open[0] ?? null,
    liveness,
    taskProblem,
    replayBlockedTask,
    fanOut: w.activities.length + w.children.length + w.timers.length,
  };
}

function repairBlockedReason(isCurrent: boolean, terminal: boolean, state: RunState): string | null {
  const live = state.liveness[0];
  if (!isCurrent) return "selected_run_not_current";
  if (terminal) return "run_closed";
  if (live === "repair_needed") return null;
  if (live === "workflow_replay_blocked") return state.replayBlockedTask ? null : "unsupported_history";
  if (live.includes("waiting_for_compatible_worker")) return "waiting_for_compatible_worker";
  return "repair_not_needed";
}

function historyPressure(events: number, sizeBytes: number, fanOut: number): string {
  const b = HISTORY_BUDGET;
  if (events >= b.event_threshold || sizeBytes >= b.size_bytes_threshold || fanOut >= b.fan_out_threshold)
    return "continue_as_new_recommended";
  if (
    events >= b.event_warning_threshold ||
    sizeBytes >= b.size_bytes_warning_threshold ||
    fanOut >= b.fan_out_warning_threshold
  )
    return "approaching";
  return "ok";
}

/** The summary columns copied from the run row (and the ones derived from it alone). */
function runColumns(run: RunFacts, isCurrent: boolean) {
  const sortTs = run.started_at ?? run.created_at;
  return {
    id: run.id,
    workflow_instance_id: run.workflow_instance_id,
    namespace: run.namespace,
    run_number: run.run_number,
    is_current_run: isCurrent ? 1 : 0,
    class: run.workflow_class,
    workflow_type: run.workflow_type,
    compatibility: run.compatibility,
    business_key: run.business_key,
    visibility_labels: run.visibility_labels,
    status: run.status,
    status_bucket: statusBucket(run.status),
    closed_reason: run.closed_reason,
    connection: run.connection,
    queue: run.queue,
    started_at: run.started_at,
    sort_timestamp: sortTs,
    sort_key: sortKey(sortTs, run.id),
    closed_at: run.closed_at,
    archived_at: run.archived_at,
    archive_command_id: run.archive_command_id,
    archive_reason: run.archive_reason,
    duration_ms: run.closed_at !== null && run.started_at !== null ? run.closed_at - run.started_at : null,
  };
}

/** The wait, next-task and liveness columns. */
function stateColumns({ wait, nextTask, liveness }: RunState) {
  return {
    wait_kind: wait?.kind ?? null,
    wait_reason: wait?.reason ?? null,
    wait_started_at: wait?.startedAt ?? null,
    wait_deadline_at: wait?.deadlineAt ?? null,
    open_wait_id: wait?.openWaitId ?? null,
    resume_source_kind: wait?.resumeKind ?? null,
    resume_source_id: wait?.resumeId ?? null,
    next_task_at: nextTask ? (nextTask.available_at ?? nextTask.created_at) : null,
    next_task_id: nextTask?.id ?? null,
    next_task_type: nextTask ? taskKind(nextTask) : null,
    next_task_status: nextTask?.status ?? null,
    next_task_lease_expires_at: nextTask?.lease_expires_at ?? null,
    liveness_state: liveness[0],
    liveness_reason: liveness[1],
  };
}

function project(db: Db, runId: string, now: number, prev: RunSummary | undefined): RunSummary | null {
  const facts = readRunFacts(db, runId, prev);
  if (!facts) return null;
  const { run, maxSeq, sizeBytes } = facts;
  const isCurrent = run.instance_exists === null || run.current_run_id === null || run.current_run_id === run.id;
  const terminal = isTerminal(run.status);
  const state = terminal ? closedRunState(run) : openRunState(db, runId, now);
  const repairBlocked = repairBlockedReason(isCurrent, terminal, state);
  const pressure = historyPressure(maxSeq, sizeBytes, state.fanOut);
  return {
    ...runColumns(run, isCurrent),
    ...stateColumns(state),
    repair_blocked_reason: repairBlocked,
    repair_attention:
      repairBlocked === "unsupported_history" || repairBlocked === "waiting_for_compatible_worker" ? 1 : 0,
    // Sticky: once a run needed transport repair, its badge stays ("Task History") as the engine's does.
    task_problem: state.taskProblem || (prev?.task_problem ?? 0) === 1 ? 1 : 0,
    exception_count: run.exception_count,
    history_event_count: maxSeq,
    history_size_bytes: sizeBytes,
    history_fan_out: state.fanOut,
    continue_as_new_recommended: pressure === "continue_as_new_recommended" ? 1 : 0,
    history_budget_pressure: pressure,
    created_at: prev?.created_at ?? now,
    updated_at: run.closed_at ?? run.last_progress_at ?? now,
  };
}

/** Fixed-width so that the string order of sort keys is the order of (sort_timestamp, run id). */
export function sortKey(sortTs: number, runId: string): string {
  return `${String(sortTs).padStart(15, "0")}:${runId}`;
}

const COLUMNS: (keyof RunSummary)[] = [
  "id",
  "workflow_instance_id",
  "namespace",
  "run_number",
  "is_current_run",
  "class",
  "workflow_type",
  "compatibility",
  "business_key",
  "visibility_labels",
  "status",
  "status_bucket",
  "closed_reason",
  "connection",
  "queue",
  "started_at",
  "sort_timestamp",
  "sort_key",
  "closed_at",
  "archived_at",
  "archive_command_id",
  "archive_reason",
  "duration_ms",
  "wait_kind",
  "wait_reason",
  "wait_started_at",
  "wait_deadline_at",
  "open_wait_id",
  "resume_source_kind",
  "resume_source_id",
  "next_task_at",
  "next_task_id",
  "next_task_type",
  "next_task_status",
  "next_task_lease_expires_at",
  "liveness_state",
  "liveness_reason",
  "repair_blocked_reason",
  "repair_attention",
  "task_problem",
  "exception_count",
  "history_event_count",
  "history_size_bytes",
  "history_fan_out",
  "continue_as_new_recommended",
  "history_budget_pressure",
  "created_at",
  "updated_at",
];

const INSERT_SQL = `INSERT INTO workflow_run_summaries (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`;

/** Columns a refresh may change: `id` is the key and `created_at` keeps the first projection's time. */
const MUTABLE_COLUMNS = COLUMNS.filter((c) => c !== "id" && c !== "created_at");

/** Distinct changed-column sets seen in practice are a few dozen; past this the cache starts over. */
const MAX_UPDATE_SHAPES = 512;
const updateShapes = new WeakMap<Db, Map<string, Statement>>();

function updateStatement(db: Db, changed: (keyof RunSummary)[]): Statement {
  let shapes = updateShapes.get(db);
  if (!shapes) {
    shapes = new Map();
    updateShapes.set(db, shapes);
  }
  const key = changed.join(",");
  let s = shapes.get(key);
  if (!s) {
    if (shapes.size >= MAX_UPDATE_SHAPES) shapes.clear();
    s = db.prepare<unknown[]>(
      `UPDATE workflow_run_summaries SET ${changed.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
    );
    shapes.set(key, s);
  }
  return s;
}

/**
 * Where a refresh may find the run's summary row without reading it: the engine's SummaryCache for
 * the current transition. `undefined` means "read it".
 */
export interface SummaryScope {
  lookup(runId: string): RunSummary | undefined;
  /** Runs `write` (which writes exactly `summary` as the run's row) as the cache's own write. */
  write(runId: string, summary: RunSummary, write: () => void): void;
}

/**
 * Rebuilds the `workflow_run_summaries` row of one run. The engine calls this inside the same
 * transaction as every state transition, so lists, liveness and metrics never lag the durable truth.
 * Only the columns whose value changed are written: the summary carries ten indexes, and SQLite
 * rewrites an index entry for every SET column it covers, changed or not.
 * Time-driven changes (a lease expiring with no transition) are picked up by the repair sweep,
 * which refreshes the affected runs (docs/decisions/0003-liveness-refresh.md).
 */
export function refreshRunSummary(db: Db, runId: string, now: number, scope?: SummaryScope): RunSummary | null {
  const prev = scope?.lookup(runId) ?? previousSummary(db, runId);
  const summary = project(db, runId, now, prev);
  if (!summary) return null;
  const write = (): void => {
    if (!prev) {
      stmt(db, INSERT_SQL).run(summary);
    } else {
      const changed = MUTABLE_COLUMNS.filter((c) => prev[c] !== summary[c]);
      if (changed.length > 0) updateStatement(db, changed).run(...changed.map((c) => summary[c]), runId);
    }
  };
  if (scope) scope.write(runId, summary, write);
  else write();
  // A new run supersedes its predecessor: the old run's is_current_run flag must follow.
  if (summary.is_current_run === 1 && summary.run_number > 1) {
    stmt(
      db,
      "UPDATE workflow_run_summaries SET is_current_run = 0, repair_blocked_reason = 'selected_run_not_current' WHERE namespace = ? AND workflow_instance_id = ? AND id != ? AND is_current_run = 1",
    ).run(summary.namespace, summary.workflow_instance_id, summary.id);
  }
  return summary;
}
