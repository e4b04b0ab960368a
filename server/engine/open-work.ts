import type { Db } from "../store/db";
import type { ActivityRow, TaskRow } from "./rows";
import { parsePayload } from "./rows";
import { preparedOnce as stmt } from "./statement-cache";
import { taskKind, taskUnhealthy } from "./task-health";

/**
 * What a non-terminal run may be parked on — its open tasks, activities, timers, received signals,
 * children and the signal and condition waits its history left open — read for the summary
 * projection with index-backed lookups scoped to the one run.
 */

/** The columns the projection reads of a run's open activities. */
export type OpenActivity = Pick<
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

export interface OpenTimer {
  id: string;
  fire_at: number;
  created_at: number;
  delay_seconds: number;
}
export interface ReceivedSignal {
  id: string;
  signal_name: string;
  received_at: number;
}
export interface OpenChild {
  id: string;
  child_workflow_type: string;
  created_at: number;
}
export interface OpenSignalWait {
  name: string;
  at: number;
  timeout: number | null;
}
export interface OpenConditionWait {
  key: string | null;
  at: number;
  timeout: number | null;
}

/** A run's open tasks: ready/leased ones by availability, the replay-blocked failed ones, the first unhealthy one. */
export interface OpenTasks {
  open: TaskRow[];
  replayBlocked: TaskRow[];
  unhealthy: TaskRow | null;
  openWorkflowTask: TaskRow | null;
}

/** Everything a non-terminal run may be parked on, read with index-backed lookups scoped to the run. */
export interface OpenWork extends OpenTasks {
  activities: OpenActivity[];
  timers: OpenTimer[];
  signals: ReceivedSignal[];
  children: OpenChild[];
  signalWaits: Map<string, OpenSignalWait>;
  conditionWaits: Map<string, OpenConditionWait>;
}

function byAvailability(a: TaskRow, b: TaskRow): number {
  return (
    (a.available_at ?? a.created_at) - (b.available_at ?? b.created_at) ||
    a.created_at - b.created_at ||
    (a.id < b.id ? -1 : 1)
  );
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

export function readOpenWork(db: Db, runId: string, now: number): OpenWork {
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
