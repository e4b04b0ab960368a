import type { Db } from "../store/db";
import { isoMicros } from "../clock";
import type { RunRow, TaskRow } from "./rows";
import { parsePayload } from "./rows";
import type { OpenActivity, OpenChild, OpenTimer, OpenWork, ReceivedSignal } from "./open-work";
import { readOpenWork } from "./open-work";
import { claimFailed, dispatchFailed, leaseExpired, taskKind, taskUnhealthy } from "./task-health";

/**
 * A run's wait (the earliest durable obligation it is parked on) and its liveness (what will move
 * it, in the projector's documented evaluation order), derived from its open work.
 */

export interface Wait {
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

export type Liveness = [state: string, reason: string];

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
export interface RunState {
  wait: Wait | null;
  nextTask: TaskRow | null;
  liveness: Liveness;
  /** A transport problem now; the summary's badge also keeps an earlier one. */
  taskProblem: boolean;
  replayBlockedTask: boolean;
  fanOut: number;
}

export function closedRunState(run: Pick<RunRow, "closed_reason" | "status">): RunState {
  return {
    wait: null,
    nextTask: null,
    liveness: ["closed", `Run closed as ${run.closed_reason ?? run.status}.`],
    taskProblem: false,
    replayBlockedTask: false,
    fanOut: 0,
  };
}

export function openRunState(db: Db, runId: string, now: number): RunState {
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
