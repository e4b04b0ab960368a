import { describe, expect, it } from "vitest";
import { messageText } from "./message-catalog";
import { LIVENESS_STATES } from "@/lib/dw/enums";
import { deriveRepairBlockedReason, livenessLabel, taskProblemBadge } from "./liveness";
import retryPending from "./fixtures/retry-pending.json";

describe("livenessLabel", () => {
  it.each([
    ["repair_needed", "Stuck: repair needed", "danger", true, true, true],
    ["workflow_replay_blocked", "Replay blocked", "dark", false, true, true],
    [
      "activity_task_waiting_for_compatible_worker",
      "Activity task waiting for a compatible worker",
      "warning",
      false,
      true,
      false,
    ],
    ["workflow_task_claim_failed", "Workflow task claim failed", "warning", false, true, false],
    ["activity_running_without_task", "Activity running without a task", "info", false, false, false],
    ["waiting_for_signal", "Waiting for a signal", "info", false, false, false],
    ["timer_scheduled", "Timer scheduled", "info", false, false, false],
    ["activity_task_leased", "Activity task running", "success", false, false, false],
    ["workflow_task_ready", "Workflow task ready", "success", false, false, false],
  ])("%s → %s", (state, text, tone, stuck, needsAttention, repairable) => {
    const view = livenessLabel({ liveness_state: state, liveness_reason: "server text", is_current_run: true });
    expect(view).toMatchObject({ state, tone, stuck, needsAttention, repairable, reason: "server text" });
    expect(messageText(view.label)).toBe(text);
    expect(view.label.id).toBe(`views.liveness.${state}`);
  });

  it("labels every known state from the catalog", () => {
    for (const state of LIVENESS_STATES)
      expect(livenessLabel({ liveness_state: state }).label.id).toBe(`views.liveness.${state}`);
  });

  it("renders unknown states verbatim and a missing state as unknown", () => {
    const paused = livenessLabel({ liveness_state: "activity_task_paused" });
    expect(paused).toMatchObject({ tone: "neutral", stuck: false });
    expect(messageText(paused.label)).toBe("activity_task_paused");
    const unknown = livenessLabel(null);
    expect(unknown).toMatchObject({ state: null, stuck: false, repairable: false });
    expect(messageText(unknown.label)).toBe("Liveness unknown");
  });

  it("closed runs are neither stuck nor repairable", () => {
    const view = livenessLabel({ liveness_state: "closed", liveness_reason: "Run closed as failed." });
    expect(view).toMatchObject({
      stuck: false,
      repairable: false,
      tone: "neutral",
      repairBlocked: { code: "run_closed", badgeVisible: false },
    });
    expect(messageText(view.repairBlocked?.label)).toBe("Run Closed");
  });

  it("reads an export summary as-is", () => {
    const view = livenessLabel(retryPending.summary);
    expect(view).toMatchObject({
      state: "activity_task_ready",
      stuck: false,
      repairable: false,
      repairBlocked: { code: "repair_not_needed" },
    });
  });
});

describe("deriveRepairBlockedReason (RepairBlockedReason::forRun)", () => {
  it.each([
    [{ liveness_state: "repair_needed", is_current_run: false }, "selected_run_not_current"],
    [{ liveness_state: "closed" }, "run_closed"],
    [{ liveness_state: "repair_needed", is_terminal: true }, "run_closed"],
    [{ liveness_state: "repair_needed" }, null],
    [{ liveness_state: "workflow_replay_blocked", repair_attention: false }, null],
    [{ liveness_state: "workflow_replay_blocked", repair_attention: true }, "unsupported_history"],
    [{ liveness_state: "timer_task_waiting_for_compatible_worker" }, "waiting_for_compatible_worker"],
    [{ liveness_state: "activity_task_claim_failed" }, "repair_not_needed"],
    [{ liveness_state: "waiting_for_signal" }, "repair_not_needed"],
    [{ liveness_state: "repair_needed", repair_blocked_reason: "run_closed" }, "run_closed"],
  ])("%o → %s", (input, expected) => {
    expect(deriveRepairBlockedReason(input)).toBe(expected);
  });

  it("carries the catalog's tone and attention flag", () => {
    const blocked = livenessLabel({ liveness_state: "workflow_replay_blocked", repair_attention: true }).repairBlocked;
    expect(blocked).toMatchObject({ code: "unsupported_history", tone: "dark", badgeVisible: true });
    expect(messageText(blocked?.label)).toBe("Replay Blocked");
    expect(
      livenessLabel({ liveness_state: "activity_task_waiting_for_compatible_worker" }).repairBlocked,
    ).toMatchObject({ tone: "warning", badgeVisible: true });
  });
});

describe("taskProblemBadge (WorkflowTaskProblem)", () => {
  it.each([
    [{ task_problem: true, liveness_state: "workflow_replay_blocked" }, "replay_blocked", "dark"],
    [{ task_problem: true, liveness_state: "repair_needed", wait_kind: "workflow-task" }, "active", "warning"],
    [{ task_problem: true, liveness_state: "repair_needed", wait_kind: null }, "active", "warning"],
    [{ task_problem: true, liveness_state: "activity_task_claim_failed" }, "active", "warning"],
    [{ task_problem: true, liveness_state: "repair_needed", wait_kind: "activity" }, "history", "neutral"],
    [{ task_problem: true, liveness_state: "waiting_for_signal" }, "history", "neutral"],
  ])("%o → %s", (input, code, tone) => {
    expect(taskProblemBadge(input)).toMatchObject({ code, tone });
  });

  it("is absent without a task problem, and the server's badge wins when present", () => {
    expect(taskProblemBadge({ task_problem: false, liveness_state: "repair_needed" })).toBeNull();
    const history = taskProblemBadge({
      task_problem: true,
      liveness_state: "repair_needed",
      task_problem_badge: { code: "history", label: "Task History", tone: "secondary", badge_visible: true },
    });
    expect(history).toMatchObject({ code: "history" });
    expect(messageText(history?.label)).toBe("Task History");
    const churn = taskProblemBadge({
      task_problem_badge: { code: "lease_churn", label: "Lease Churn", badge_visible: true },
    });
    expect(churn).toMatchObject({ code: "lease_churn", tone: "neutral" });
    expect(messageText(churn?.label)).toBe("Lease Churn");
    expect(
      taskProblemBadge({ task_problem: true, task_problem_badge: { code: "active", badge_visible: false } }),
    ).toBeNull();
  });
});
