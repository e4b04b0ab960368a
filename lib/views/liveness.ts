import type { LivenessState, RepairBlockedReason } from "@/lib/dw/enums";
import { LIVENESS_STATES, REPAIR_BLOCKED_REASONS, isKnown } from "@/lib/dw/enums";
import type { Message, ViewMessageId } from "./message";
import { message } from "./message";

/**
 * Liveness ("is this run stuck?") from `liveness_state`, never from `actions.can_repair`
 * (v2-model §2.10–§2.12). Input is export `summary` or debug `execution`: both carry the fields.
 */

export type Tone = "neutral" | "info" | "success" | "warning" | "danger" | "dark";

export interface TaskProblemBadgeInput {
  code?: string | null;
  label?: string | null;
  description?: string | null;
  tone?: string | null;
  badge_visible?: boolean | null;
}

export interface LivenessInput {
  liveness_state?: string | null;
  liveness_reason?: string | null;
  /** Export summaries carry it; debug does not, so it is derived when absent. */
  repair_blocked_reason?: string | null;
  repair_attention?: boolean | null;
  task_problem?: boolean | null;
  task_problem_badge?: unknown;
  wait_kind?: string | null;
  is_current_run?: boolean | null;
  is_terminal?: boolean | null;
  status?: string | null;
}

export interface RepairBlocked {
  code: RepairBlockedReason;
  label: Message;
  description: Message;
  tone: Tone;
  /** The catalog's `badge_visible`, i.e. whether the run needs an operator's attention. */
  badgeVisible: boolean;
}

export interface TaskProblemBadge {
  code: string;
  label: Message;
  tone: Tone;
}

export interface LivenessView {
  state: LivenessState | null;
  label: Message;
  tone: Tone;
  /** `repair_needed`: the run has lost its durable next step and repair will restore it. */
  stuck: boolean;
  /** Stuck, replay blocked, compatibility blocked or claim failing. */
  needsAttention: boolean;
  /** The server's `liveness_reason`, verbatim (it names ids and times). */
  reason: string | null;
  /** Repair would do something (null blocked reason on an open current run). */
  repairable: boolean;
  repairBlocked: RepairBlocked | null;
  taskProblem: TaskProblemBadge | null;
}

const CATALOG: Readonly<Record<(typeof REPAIR_BLOCKED_REASONS)[number], { tone: Tone; badgeVisible: boolean }>> = {
  unsupported_history: { tone: "dark", badgeVisible: true },
  waiting_for_compatible_worker: { tone: "warning", badgeVisible: true },
  selected_run_not_current: { tone: "neutral", badgeVisible: false },
  run_closed: { tone: "neutral", badgeVisible: false },
  repair_not_needed: { tone: "neutral", badgeVisible: false },
};

export function repairBlockedInfo(code: RepairBlockedReason): RepairBlocked {
  if (!isKnown(REPAIR_BLOCKED_REASONS, code)) {
    return {
      code,
      label: message("views.verbatim", { text: code }),
      description: message("views.verbatim", { text: code }),
      tone: "neutral",
      badgeVisible: false,
    };
  }
  return {
    code,
    label: message(`views.repairBlocked.label.${code}`),
    description: message(`views.repairBlocked.${code}`),
    ...CATALOG[code],
  };
}

const TERMINAL_STATUSES = new Set(["completed", "failed", "cancelled", "terminated"]);

function isClosed(input: LivenessInput): boolean {
  return input.liveness_state === "closed" || input.is_terminal === true || TERMINAL_STATUSES.has(input.status ?? "");
}

/**
 * `RepairBlockedReason::forRun` (v2-model §2.11). For a replay-blocked run the debug payload does not
 * say whether a replay-blocked task exists; `repair_attention` does, since only the blocked
 * `unsupported_history` case raises it.
 */
export function deriveRepairBlockedReason(input: LivenessInput): RepairBlockedReason | null {
  if (input.repair_blocked_reason !== undefined && input.repair_blocked_reason !== null)
    return input.repair_blocked_reason;
  if (input.is_current_run === false) return "selected_run_not_current";
  if (isClosed(input)) return "run_closed";
  const state = input.liveness_state ?? "";
  if (state === "repair_needed") return null;
  if (state === "workflow_replay_blocked") return input.repair_attention ? "unsupported_history" : null;
  if (state.includes("waiting_for_compatible_worker")) return "waiting_for_compatible_worker";
  return "repair_not_needed";
}

function toneFor(state: string): Tone {
  if (state === "closed") return "neutral";
  if (state === "repair_needed") return "danger";
  if (state === "workflow_replay_blocked") return "dark";
  if (state.endsWith("_claim_failed") || state.endsWith("_waiting_for_compatible_worker")) return "warning";
  if (state.endsWith("_ready") || state.endsWith("_leased")) return "success";
  if (isKnown(LIVENESS_STATES, state)) return "info";
  return "neutral";
}

const ACTIVE_PROBLEM_WAITS = new Set(["workflow-task", "update", "signal", "child", "condition"]);

function isBadgeInput(value: unknown): value is TaskProblemBadgeInput {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const TASK_PROBLEM_TONES: Readonly<Record<string, Tone>> = {
  replay_blocked: "dark",
  active: "warning",
  history: "neutral",
};

/** The task-problem badge (`WorkflowTaskProblem`, v2-model §2.12), from the server's badge or derived. */
export function taskProblemBadge(input: LivenessInput): TaskProblemBadge | null {
  const badge = isBadgeInput(input.task_problem_badge) ? input.task_problem_badge : null;
  if (badge?.code) {
    if (badge.badge_visible === false) return null;
    const known = badge.code in TASK_PROBLEM_TONES;
    return {
      code: badge.code,
      label: known
        ? message(`views.taskProblem.${badge.code}` as ViewMessageId)
        : message("views.verbatim", { text: badge.label ?? badge.code }),
      tone: TASK_PROBLEM_TONES[badge.code] ?? "neutral",
    };
  }
  if (!input.task_problem) return null;
  const state = input.liveness_state ?? "";
  const code =
    state === "workflow_replay_blocked"
      ? "replay_blocked"
      : (state === "repair_needed" && (input.wait_kind == null || ACTIVE_PROBLEM_WAITS.has(input.wait_kind))) ||
          state.includes("task_claim_failed") ||
          state.includes("waiting_for_compatible_worker")
        ? "active"
        : "history";
  return { code, label: message(`views.taskProblem.${code}`), tone: TASK_PROBLEM_TONES[code] ?? "neutral" };
}

export function livenessLabel(input: LivenessInput | null | undefined): LivenessView {
  const state = input?.liveness_state ?? null;
  if (!input || state === null) {
    return {
      state: null,
      label: message("views.liveness.unavailable"),
      tone: "neutral",
      stuck: false,
      needsAttention: false,
      reason: input?.liveness_reason ?? null,
      repairable: false,
      repairBlocked: null,
      taskProblem: input ? taskProblemBadge(input) : null,
    };
  }
  const blockedCode = deriveRepairBlockedReason(input);
  const stuck = state === "repair_needed";
  return {
    state,
    label: isKnown(LIVENESS_STATES, state)
      ? message(`views.liveness.${state}`)
      : message("views.verbatim", { text: state }),
    tone: toneFor(state),
    stuck,
    needsAttention:
      stuck ||
      state === "workflow_replay_blocked" ||
      state.endsWith("_claim_failed") ||
      state.endsWith("_waiting_for_compatible_worker"),
    reason: input.liveness_reason ?? null,
    repairable: blockedCode === null,
    repairBlocked: blockedCode === null ? null : repairBlockedInfo(blockedCode),
    taskProblem: taskProblemBadge(input),
  };
}
