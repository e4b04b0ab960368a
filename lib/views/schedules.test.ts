import { describe, expect, it } from "vitest";
import { fixture } from "@/lib/dw/fixtures/fixture-fetch";
import { scheduleDescriptionSchema, scheduleHistorySchema, scheduleListSchema } from "@/lib/dw/schemas-schedules";
import {
  failureShare,
  filterSchedules,
  fireLateness,
  FIRE_GRACE_MS,
  historyRows,
  lastAction,
  NO_SCHEDULE_FILTERS,
  pageOf,
  parseScheduleFilters,
  recentActions,
  scheduleCapability,
  scheduleOfRun,
  scheduleState,
  scheduleTally,
  withScheduleFilters,
  workflowTypesOf,
} from "./schedules";

const list = scheduleListSchema.parse(fixture("schedule-list"));
const detail = scheduleDescriptionSchema.parse(fixture("schedule-detail"));
const history = scheduleHistorySchema.parse(fixture("schedule-history"));

describe("schedule state and lateness", () => {
  it("reads active and paused from status or the flag", () => {
    expect(scheduleState("active", false)).toBe("active");
    expect(scheduleState("paused", true)).toBe("paused");
    expect(scheduleState(undefined, true)).toBe("paused");
    expect(scheduleState(null, null)).toBe("unknown");
  });

  it("calls an active schedule late only past the grace after its next fire", () => {
    const due = "2026-01-15T10:00:00+00:00";
    const dueMs = Date.parse(due);
    expect(fireLateness("active", due, dueMs + FIRE_GRACE_MS)).toEqual({ late: false });
    expect(fireLateness("active", due, dueMs + FIRE_GRACE_MS + 1)).toEqual({ late: true, byMs: FIRE_GRACE_MS + 1 });
    expect(fireLateness("paused", due, dueMs + 3_600_000)).toEqual({ late: false });
    expect(fireLateness("active", null, dueMs)).toEqual({ late: false });
  });
});

describe("the list's filters and pages", () => {
  it("filters by state, workflow type and id text in the server's order", () => {
    const ids = (filters: Parameters<typeof filterSchedules>[1]) =>
      filterSchedules(list.schedules, filters).map((item) => item.schedule_id);
    expect(ids({ status: "all", workflowType: "", text: "" })).toEqual([
      "nightly-report",
      "ledger-sync",
      "invoice-reminders",
    ]);
    expect(ids({ status: "paused", workflowType: "", text: "" })).toEqual(["invoice-reminders"]);
    expect(ids({ status: "active", workflowType: "ledger.sync", text: "" })).toEqual(["ledger-sync"]);
    expect(ids({ status: "all", workflowType: "", text: "NIGHT" })).toEqual(["nightly-report"]);
    expect(workflowTypesOf(list.schedules)).toEqual(["billing.remind", "ledger.sync", "reports.nightly"]);
  });

  it("pages and clamps to the last page", () => {
    expect(pageOf([1, 2, 3, 4, 5], 1, 2)).toEqual({ rows: [3, 4], page: 1, pages: 3 });
    expect(pageOf([1, 2, 3], 9, 2)).toEqual({ rows: [3], page: 1, pages: 2 });
    expect(pageOf([], 0, 2)).toEqual({ rows: [], page: 0, pages: 1 });
  });
});

describe("recent actions", () => {
  it("lists the ring newest first, a start failure without a run", () => {
    const actions = recentActions(detail);
    expect(actions[0]).toMatchObject({ kind: "run", workflowId: "01kc0d7f8g9h0j1k2m3n4p5q6r", outcome: "scheduled" });
    expect(actions[1]).toMatchObject({ kind: "start_failed", reason: expect.stringContaining("not registered") });
    expect(lastAction(detail)).toEqual(actions[0]);
    expect(lastAction(null)).toBeNull();
  });

  it("shares the failed among closed runs, open and unread ones apart", () => {
    const statuses: Record<string, string | null> = {
      "01kc0d7f8g9h0j1k2m3n4p5q6r": "running",
      "01kc0c4d5e6f7g8h9j0k1m2n3p": "failed",
      "01kc0b1m2n3p4q5r6s7t8v9w0x": "completed",
    };
    const share = failureShare(recentActions(detail), (id) => statuses[id] ?? null);
    expect(share).toEqual({ closed: 2, failed: 1, open: 1, unknown: 0, startFailures: 1, share: 0.5 });
    expect(failureShare([], () => null).share).toBeNull();
  });

  it("gives the audit history newest first with the run a trigger started", () => {
    const rows = historyRows(history.events);
    expect(rows[0]?.sequence).toBeGreaterThan(rows.at(-1)?.sequence ?? 0);
    const triggered = rows.find((row) => row.type === "ScheduleTriggered");
    expect(triggered?.workflowId).toBeTruthy();
  });
});

describe("schedule actions offered", () => {
  const operator = { readOnly: false, role: "operator" as const, personRole: "operator" as const };

  it("refuses every action in read-only mode and to a viewer, with the reason", () => {
    expect(scheduleCapability("pause", "active", { ...operator, readOnly: true })).toMatchObject({
      enabled: false,
      reason: "read_only",
    });
    expect(scheduleCapability("delete", "active", { ...operator, personRole: "viewer" })).toMatchObject({
      enabled: false,
      reason: "person_role",
    });
    expect(scheduleCapability("trigger", "active", { ...operator, role: "worker" })).toMatchObject({
      enabled: false,
      reason: "role",
    });
  });

  it("offers pause and trigger on an active schedule, resume on a paused one", () => {
    expect(scheduleCapability("pause", "active", operator).enabled).toBe(true);
    expect(scheduleCapability("resume", "active", operator)).toMatchObject({
      enabled: false,
      stateReason: "schedule_active",
    });
    expect(scheduleCapability("trigger", "paused", operator)).toMatchObject({
      enabled: false,
      stateReason: "schedule_paused",
    });
    expect(scheduleCapability("resume", "paused", operator).enabled).toBe(true);
    expect(scheduleCapability("backfill", "paused", operator).enabled).toBe(true);
    expect(scheduleCapability("delete", "paused", { ...operator, personRole: null, role: null }).enabled).toBe(true);
  });
});

describe("the schedule that started a run", () => {
  it("is read from the run's ScheduleTriggered event", () => {
    const events = [
      { event_type: "WorkflowStarted", payload: {} },
      { event_type: "ScheduleTriggered", payload: { schedule_id: "nightly", trigger_number: 4 } },
    ];
    expect(scheduleOfRun(events)).toEqual({ scheduleId: "nightly", triggerNumber: 4 });
  });

  it("is nothing for a run without one", () => {
    expect(scheduleOfRun([{ event_type: "WorkflowStarted", payload: {} }])).toBeNull();
    expect(scheduleOfRun([{ event_type: "ScheduleTriggered", payload: [] }])).toBeNull();
  });
});

describe("the list's tally", () => {
  it("counts active, paused and late schedules from the list alone", () => {
    // The fixture's next fires are on 2026-01-15/16; an hour after the last one, both active ones are late.
    expect(scheduleTally(list.schedules, Date.parse("2026-01-16T02:00:00Z"))).toEqual({
      active: 2,
      paused: 1,
      late: 2,
    });
    expect(scheduleTally(list.schedules, Date.parse("2026-01-15T10:00:00Z"))).toEqual({
      active: 2,
      paused: 1,
      late: 0,
    });
  });
});

describe("schedule filters in the URL", () => {
  it("reads state, type and id, and unknown states as all", () => {
    expect(parseScheduleFilters(new URLSearchParams("state=paused&type=Billing&id=nightly"))).toEqual({
      status: "paused",
      workflowType: "Billing",
      text: "nightly",
    });
    expect(parseScheduleFilters(new URLSearchParams("state=exploded"))).toEqual(NO_SCHEDULE_FILTERS);
  });

  it("writes a change, keeping the other keys and leaving defaults out", () => {
    const params = new URLSearchParams("show=late&density=normal&state=paused");
    const next = withScheduleFilters(params, { status: "all", workflowType: "Billing", text: "" });
    expect(next.toString()).toBe("show=late&density=normal&type=Billing");
    expect(parseScheduleFilters(next)).toEqual({ status: "all", workflowType: "Billing", text: "" });
  });
});
