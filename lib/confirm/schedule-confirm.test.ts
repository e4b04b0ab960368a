import { describe, expect, it } from "vitest";
import type { ScheduleActionAnswer } from "@/lib/actions/schedule-commands";
import type { ScheduleDescription, ScheduleHistoryEvent } from "@/lib/dw/schemas-schedules";
import { confirmScheduleAction } from "./schedule-confirm";

const answer = (over: Partial<ScheduleActionAnswer>): ScheduleActionAnswer => ({
  result: "accepted",
  httpStatus: 200,
  action: "pause",
  scheduleId: "s",
  outcome: null,
  reason: null,
  message: null,
  workflowId: null,
  runId: null,
  firesAttempted: null,
  firesStarted: null,
  ...over,
});
const detail = (status: string, extra: Partial<ScheduleDescription> = {}): ScheduleDescription => ({
  schedule_id: "s",
  state: { status, paused: status === "paused", note: "n" },
  ...extra,
});
const event = (sequence: number, event_type: string, extra: Partial<ScheduleHistoryEvent> = {}) => ({
  sequence,
  event_type,
  payload: {},
  ...extra,
});

describe("confirming a schedule action from its durable state", () => {
  it("confirms a pause once the schedule reads paused and the audit has the event", () => {
    const pause = answer({ action: "pause", outcome: "paused" });
    expect(confirmScheduleAction(pause, { detail: detail("active"), events: [] }).phase).toBe("awaiting");
    expect(confirmScheduleAction(pause, { detail: detail("paused"), events: [] }).phase).toBe("awaiting");
    expect(confirmScheduleAction(pause, { detail: detail("paused"), events: [event(4, "SchedulePaused")] })).toEqual({
      phase: "confirmed",
      detail: "n",
    });
  });

  it("confirms a resume by the active state and ScheduleResumed", () => {
    const resume = answer({ action: "resume", outcome: "resumed" });
    expect(
      confirmScheduleAction(resume, { detail: detail("active"), events: [event(5, "ScheduleResumed")] }).phase,
    ).toBe("confirmed");
  });

  it("confirms a trigger by the started run's ScheduleTriggered, and a skip by its event", () => {
    const trigger = answer({ action: "trigger", outcome: "triggered", workflowId: "wf-1" });
    const other = event(6, "ScheduleTriggered", { workflow_instance_id: "wf-0" });
    expect(confirmScheduleAction(trigger, { detail: detail("active"), events: [other] }).phase).toBe("awaiting");
    const mine = event(7, "ScheduleTriggered", { workflow_instance_id: "wf-1" });
    expect(confirmScheduleAction(trigger, { detail: detail("active"), events: [other, mine] }).phase).toBe("confirmed");
    const skipped = answer({ action: "trigger", outcome: "skipped", reason: "overlap_policy_skip" });
    expect(
      confirmScheduleAction(skipped, { detail: detail("active"), events: [event(8, "ScheduleTriggerSkipped")] }),
    ).toEqual({ phase: "confirmed", detail: "overlap_policy_skip" });
    expect(
      confirmScheduleAction(answer({ action: "trigger", outcome: "buffer_full" }), { detail: null, events: [] }),
    ).toEqual({
      phase: "unchanged",
    });
  });

  it("confirms a backfill once as many fires as started are in the audit", () => {
    const backfill = answer({ action: "backfill", outcome: "backfill_started", firesAttempted: 3, firesStarted: 2 });
    const one = [event(9, "ScheduleTriggered")];
    expect(confirmScheduleAction(backfill, { detail: detail("active"), events: one }).phase).toBe("awaiting");
    const two = [...one, event(10, "ScheduleTriggered")];
    expect(confirmScheduleAction(backfill, { detail: detail("active"), events: two })).toEqual({
      phase: "confirmed",
      detail: "2",
    });
  });

  it("confirms a delete by describe's 404 and ScheduleDeleted", () => {
    const del = answer({ action: "delete", outcome: "deleted" });
    expect(confirmScheduleAction(del, { detail: detail("active"), events: [event(11, "ScheduleDeleted")] }).phase).toBe(
      "awaiting",
    );
    expect(confirmScheduleAction(del, { detail: null, events: [event(11, "ScheduleDeleted")] }).phase).toBe(
      "confirmed",
    );
  });
});
