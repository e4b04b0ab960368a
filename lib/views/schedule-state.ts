import type { RecentAction, ScheduleDescription } from "@/lib/dw/schemas-schedules";
import { timestampToEpochMs } from "@/lib/dw/timestamps";

/**
 * A schedule's state, lateness and last fire: what schedule health (Overview, Attention) reads,
 * apart from schedules.ts so those screens do not load the actions' capabilities with it.
 */

/**
 * How late a fire may be before it is called overdue. The real server fires from `schedule:tick`,
 * which its Kubernetes cron job runs every minute (durable-workflow/server
 * k8s/scheduler-cronjob.yaml@11d35b7), so a fire is due within a minute of its time; a second minute
 * covers the tick's own run time.
 */
export const FIRE_GRACE_MS = 120_000;

export type ScheduleState = "active" | "paused" | "unknown";

export function scheduleState(status: string | null | undefined, paused: boolean | null | undefined): ScheduleState {
  if (status === "paused" || paused === true) return "paused";
  if (status === "active" || paused === false) return "active";
  return "unknown";
}

export type Lateness = { late: false } | { late: true; byMs: number };

/**
 * An active schedule whose `next_fire` (jitter included) is more than {@link FIRE_GRACE_MS} in the past
 * has fires the server did not make on time: the scheduler is not ticking, or it is behind.
 */
export function fireLateness(state: ScheduleState, nextFire: string | null | undefined, nowMs: number): Lateness {
  const due = timestampToEpochMs(nextFire);
  if (state !== "active" || due === null) return { late: false };
  const byMs = nowMs - due;
  return byMs > FIRE_GRACE_MS ? { late: true, byMs } : { late: false };
}

/** A run a recent action started: its ids, or the start failure's reason. */
export type ActionRun =
  | {
      kind: "run";
      workflowId: string;
      runId: string | null;
      outcome: string;
      firedAt: string | null;
      lagMs: number | null;
    }
  | { kind: "start_failed"; reason: string | null; firedAt: string | null }
  | { kind: "other"; outcome: string | null; firedAt: string | null };

export function actionRun(action: RecentAction): ActionRun {
  const firedAt = action.fired_at ?? null;
  if (action.workflow_id) {
    return {
      kind: "run",
      workflowId: action.workflow_id,
      runId: action.run_id ?? null,
      outcome: action.outcome ?? "scheduled",
      firedAt,
      lagMs: action.fire_lag_ms ?? null,
    };
  }
  if (action.outcome === "failed") return { kind: "start_failed", reason: action.reason ?? null, firedAt };
  return { kind: "other", outcome: action.outcome ?? null, firedAt };
}

/** The ring of the last ten actions (WorkflowSchedule::recordFire), newest first. */
export function recentActions(detail: ScheduleDescription | null | undefined): ActionRun[] {
  return [...(detail?.info?.recent_actions ?? [])].reverse().map(actionRun);
}

/** The newest recent action: what the last fire did. */
export function lastAction(detail: ScheduleDescription | null | undefined): ActionRun | null {
  return recentActions(detail)[0] ?? null;
}
