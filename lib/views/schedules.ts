import type { PersonRole } from "@/lib/server/auth/roles";
import type { ScheduleHistoryEvent, ScheduleListItem } from "@/lib/dw/schemas-schedules";
import type { Capability, Role } from "./capabilities";
import { personCapability } from "./capabilities";
import { message } from "./message";
import type { ActionRun, ScheduleState } from "./schedule-state";
import { fireLateness, scheduleState } from "./schedule-state";

/**
 * What the Schedules screens say of a schedule, from the real server's answers (schemas-schedules.ts):
 * its state and note, whether its fires are late, the last fire and what it started, the share of
 * its recent runs that failed, and which actions it offers.
 */

export type { ActionRun, Lateness, ScheduleState } from "./schedule-state";
export { actionRun, FIRE_GRACE_MS, fireLateness, lastAction, recentActions, scheduleState } from "./schedule-state";

export interface ScheduleFilters {
  status: "all" | "active" | "paused";
  workflowType: string;
  /** A part of the schedule id, any case. */
  text: string;
}

export const NO_SCHEDULE_FILTERS: ScheduleFilters = { status: "all", workflowType: "", text: "" };

/**
 * The list's filters applied to the server's answer in its own order (newest first). The real
 * server's list takes no filters at 11d35b7 (every schedule in one answer), so they are applied here.
 */
export function filterSchedules(items: readonly ScheduleListItem[], filters: ScheduleFilters): ScheduleListItem[] {
  const text = filters.text.trim().toLowerCase();
  const type = filters.workflowType.trim();
  return items.filter((item) => {
    const state = scheduleState(item.status, item.paused);
    if (filters.status !== "all" && state !== filters.status) return false;
    if (type !== "" && (item.workflow_type ?? item.action?.workflow_type ?? "") !== type) return false;
    return text === "" || item.schedule_id.toLowerCase().includes(text);
  });
}

/** The workflow types the answer holds, for the filter's choices, sorted. */
export function workflowTypesOf(items: readonly ScheduleListItem[]): string[] {
  const types = new Set<string>();
  for (const item of items) {
    const type = item.workflow_type ?? item.action?.workflow_type;
    if (type) types.add(type);
  }
  return [...types].sort();
}

/** One page of `size` rows (0-based `page`), clamped to the last page. */
export function pageOf<T>(rows: readonly T[], page: number, size: number): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const shown = Math.min(Math.max(0, page), pages - 1);
  return { rows: rows.slice(shown * size, (shown + 1) * size), page: shown, pages };
}

const FAILED_STATUSES = new Set(["failed", "terminated"]);
const CLOSED_STATUSES = new Set(["completed", "failed", "cancelled", "terminated"]);

export interface FailureShare {
  /** Closed runs among the recent actions' runs whose status is known. */
  closed: number;
  failed: number;
  /** Runs still open, and runs whose status could not be read. */
  open: number;
  unknown: number;
  /** Fires whose start itself failed (no run). */
  startFailures: number;
  /** failed / closed, null with no closed run. */
  share: number | null;
}

/**
 * The share of the recent runs that failed: of the runs the last ten actions started whose status is
 * read (`statusOf` by workflow id; null if not read), the closed ones that ended failed or terminated.
 */
export function failureShare(
  actions: readonly ActionRun[],
  statusOf: (workflowId: string) => string | null,
): FailureShare {
  const tally = { closed: 0, failed: 0, open: 0, unknown: 0, startFailures: 0 };
  const seen = new Set<string>();
  for (const action of actions) {
    if (action.kind === "start_failed") tally.startFailures += 1;
    if (action.kind !== "run" || seen.has(action.workflowId)) continue;
    seen.add(action.workflowId);
    const status = statusOf(action.workflowId);
    if (status === null) tally.unknown += 1;
    else if (!CLOSED_STATUSES.has(status)) tally.open += 1;
    else {
      tally.closed += 1;
      if (FAILED_STATUSES.has(status)) tally.failed += 1;
    }
  }
  return { ...tally, share: tally.closed === 0 ? null : tally.failed / tally.closed };
}

/** The audit events newest first, each with the run it names (a trigger's) when it names one. */
export function historyRows(events: readonly ScheduleHistoryEvent[]) {
  return [...events]
    .sort((a, b) => b.sequence - a.sequence)
    .map((event) => ({
      sequence: event.sequence,
      type: event.event_type ?? "",
      recordedAt: event.recorded_at ?? null,
      workflowId: event.workflow_instance_id ?? stringField(event.payload, "workflow_instance_id"),
      runId: event.workflow_run_id ?? stringField(event.payload, "workflow_run_id"),
      reason: stringField(event.payload, "reason"),
      outcome: stringField(event.payload, "outcome"),
    }));
}

function stringField(payload: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = payload[key];
  return typeof value === "string" ? value : null;
}

// ---------------------------------------------------------------- actions

export type ScheduleAction = "pause" | "resume" | "trigger" | "backfill" | "delete";
export const SCHEDULE_ACTIONS: readonly ScheduleAction[] = ["pause", "resume", "trigger", "backfill", "delete"];

export interface ScheduleActionContext {
  readOnly: boolean;
  /** The console token's server role; null when not known (the server decides). */
  role: Role | null;
  personRole: PersonRole | null;
}

const ENABLED: Capability = { enabled: true, reason: null, message: null };
const ROLE_RANK: Readonly<Record<Role, number>> = { worker: 0, operator: 1, admin: 2 };

/**
 * Whether an action is offered: every schedule route needs an operator (routes/api.php@11d35b7); pause
 * only an active schedule, resume only a paused one (ScheduleManager::resume refuses others), trigger
 * only an active one (ScheduleStatus::allowsTrigger; a paused one answers `skipped`).
 */
export function scheduleCapability(
  action: ScheduleAction,
  state: ScheduleState,
  context: ScheduleActionContext,
): Capability & { stateReason: "schedule_paused" | "schedule_active" | null } {
  if (context.readOnly)
    return { enabled: false, reason: "read_only", message: message("views.capability.read_only"), stateReason: null };
  const byPerson = personCapability(context.personRole, "operator");
  if (!byPerson.enabled) return { ...byPerson, stateReason: null };
  if (context.role !== null && ROLE_RANK[context.role] < ROLE_RANK.operator) {
    const values = { role: context.role, requiredRole: "operator" };
    return { enabled: false, reason: "role", message: message("views.capability.role", values), stateReason: null };
  }
  const needs: Partial<Record<ScheduleAction, ScheduleState>> = {
    pause: "active",
    resume: "paused",
    trigger: "active",
  };
  const needed = needs[action];
  if (needed !== undefined && state !== needed) {
    return {
      enabled: false,
      reason: null,
      message: null,
      stateReason: state === "paused" ? "schedule_paused" : "schedule_active",
    };
  }
  return { ...ENABLED, stateReason: null };
}

/**
 * The schedule that started a run, from the `ScheduleTriggered` event in the run's own history
 * (`schedule_id`, `trigger_number`: ScheduleManager::recordScheduleTriggered@8dc90d64); null when the
 * events hold none (a run started otherwise, or the event is not among those read).
 */
export function scheduleOfRun(
  events: readonly { event_type: string; payload?: unknown }[],
): { scheduleId: string; triggerNumber: number | null } | null {
  const event = events.find((e) => e.event_type === "ScheduleTriggered");
  const payload = event?.payload;
  if (typeof payload !== "object" || payload === null) return null;
  const { schedule_id: id, trigger_number: number } = payload as Record<string, unknown>;
  if (typeof id !== "string" || id === "") return null;
  return { scheduleId: id, triggerNumber: typeof number === "number" ? number : null };
}

/** What the list's header counts, from the list answer alone (no extra reads): active, paused, late. */
export function scheduleTally(items: readonly ScheduleListItem[], nowMs: number) {
  let activeCount = 0;
  let pausedCount = 0;
  let late = 0;
  for (const item of items) {
    const state = scheduleState(item.status, item.paused);
    if (state === "active") activeCount += 1;
    if (state === "paused") pausedCount += 1;
    if (fireLateness(state, item.next_fire, nowMs).late) late += 1;
  }
  return { active: activeCount, paused: pausedCount, late };
}

/**
 * The list's filters from its URL (`state`, `type`, `id`), so a copied link or a saved view
 * (lib/saved-views/saved-views.ts) reopens the same list; anything else reads as no filter.
 */
export function parseScheduleFilters(params: URLSearchParams): ScheduleFilters {
  const state = params.get("state");
  return {
    status: state === "active" || state === "paused" ? state : "all",
    workflowType: params.get("type") ?? "",
    text: params.get("id") ?? "",
  };
}

/** The URL after a filter change: other keys (`show`, `density`, `hide`) kept, defaults left out. */
export function withScheduleFilters(params: URLSearchParams, filters: ScheduleFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string) => (value ? next.set(key, value) : next.delete(key));
  set("state", filters.status === "all" ? "" : filters.status);
  set("type", filters.workflowType);
  set("id", filters.text);
  return next;
}
