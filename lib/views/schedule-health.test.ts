import { describe, expect, it } from "vitest";
import type { ScheduleDescription, ScheduleListItem } from "@/lib/dw/schemas-schedules";
import type { LastRun } from "./schedule-health";
import {
  HEALTH_CHECK_LIMIT,
  healthCandidates,
  healthFilterIds,
  lastRunOf,
  parseHealthFilter,
  scheduleHealth,
} from "./schedule-health";

const NOW = Date.parse("2026-12-08T03:00:00Z");
const iso = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

function item(id: string, over: Partial<ScheduleListItem> = {}): ScheduleListItem {
  return { schedule_id: id, status: "active", paused: false, next_fire: iso(30_000), last_fire: iso(-30_000), ...over };
}

function detail(actions: NonNullable<ScheduleDescription["info"]>["recent_actions"]): ScheduleDescription {
  return { schedule_id: "s", info: { recent_actions: actions } };
}

const ok = <T>(data: T) => ({ state: "ok" as const, data });

describe("a schedule's last run", () => {
  const fired = item("a");
  const started = detail([
    { workflow_id: "old", outcome: "scheduled" },
    { workflow_id: "new", run_id: "r2", outcome: "scheduled" },
  ]);

  it("is the newest action's run, failed when it failed or was terminated", () => {
    expect(lastRunOf(fired, ok(started), ok({ status: "failed" }))).toEqual({
      kind: "failed",
      workflowId: "new",
      status: "failed",
    });
    expect(lastRunOf(fired, ok(started), ok({ status: "terminated" })).kind).toBe("failed");
    expect(lastRunOf(fired, ok(started), ok({ status: "completed" }))).toEqual({ kind: "ok", status: "completed" });
    expect(lastRunOf(fired, ok(started), ok({ status: "running" }))).toEqual({ kind: "ok", status: "running" });
  });

  it("counts a fire that could not start a run as failed", () => {
    expect(lastRunOf(fired, ok(detail([{ outcome: "failed", reason: "no such type" }])), null).kind).toBe("failed");
  });

  it("is unknown, never healthy, while a read is pending or failed or says no status", () => {
    expect(lastRunOf(fired, { state: "pending" }, null)).toEqual({ kind: "unknown", why: "pending" });
    expect(lastRunOf(fired, { state: "error" }, null)).toEqual({ kind: "unknown", why: "unreadable" });
    expect(lastRunOf(fired, ok(started), { state: "pending" })).toEqual({ kind: "unknown", why: "pending" });
    expect(lastRunOf(fired, ok(started), { state: "error" })).toEqual({ kind: "unknown", why: "unreadable" });
    expect(lastRunOf(fired, ok(started), ok({}))).toEqual({ kind: "unknown", why: "unreadable" });
    // A buffered or skipped fire started nothing: the run before it was not read.
    expect(lastRunOf(fired, ok(detail([{ outcome: "buffered" }])), null).kind).toBe("unknown");
    // The list says it fired but the description holds no action.
    expect(lastRunOf(fired, ok(detail([])), null).kind).toBe("unknown");
  });

  it("is 'never fired' for a schedule with no fire and no action", () => {
    expect(lastRunOf(item("b", { last_fire: null }), ok(detail([])), null)).toEqual({ kind: "never_fired" });
  });
});

describe("which schedules are read", () => {
  it("takes those that fired, most recent first, up to the limit", () => {
    const items = [
      item("never", { last_fire: null }),
      item("older", { last_fire: iso(-600_000) }),
      item("newest", { last_fire: iso(-1_000) }),
    ];
    expect(healthCandidates(items).map((i) => i.schedule_id)).toEqual(["newest", "older"]);
    expect(healthCandidates(items, 1).map((i) => i.schedule_id)).toEqual(["newest"]);
    const many = Array.from({ length: HEALTH_CHECK_LIMIT + 5 }, (_, n) => item(`s${n}`));
    expect(healthCandidates(many)).toHaveLength(HEALTH_CHECK_LIMIT);
  });
});

describe("the namespace's schedule health", () => {
  const items = [
    item("late", { next_fire: iso(-180_000) }),
    item("on-time", { next_fire: iso(-60_000) }),
    item("paused-past", { status: "paused", paused: true, next_fire: iso(-3_600_000) }),
    item("failing"),
    item("never", { last_fire: null }),
    item("unread"),
  ];
  const runs = new Map<string, LastRun>([
    ["late", { kind: "ok", status: "completed" }],
    ["on-time", { kind: "ok", status: "running" }],
    ["paused-past", { kind: "failed", workflowId: "w", status: "failed" }],
    ["failing", { kind: "failed", workflowId: "w2", status: "terminated" }],
  ]);

  it("counts late active schedules (a paused one is never late) and failed last runs", () => {
    const health = scheduleHealth(ok(items), runs, NOW);
    expect(health).toEqual({
      state: "ok",
      late: ["late"],
      failed: ["paused-past", "failing"],
      unknown: ["unread"],
      notChecked: 1,
      total: 6,
    });
  });

  it("says pending or unreadable when the list is, never zero", () => {
    expect(scheduleHealth({ state: "pending" }, runs, NOW)).toEqual({ state: "pending" });
    expect(scheduleHealth({ state: "error" }, runs, NOW)).toEqual({ state: "unreadable" });
    expect(healthFilterIds({ state: "unreadable" }, "late")).toBeNull();
  });

  it("filters the list to exactly the counted schedules", () => {
    const health = scheduleHealth(ok(items), runs, NOW);
    expect([...healthFilterIds(health, "late")!]).toEqual(["late"]);
    expect([...healthFilterIds(health, "failed")!]).toEqual(["paused-past", "failing"]);
  });

  it("reads the URL's filter, refusing anything else", () => {
    expect(parseHealthFilter("late")).toBe("late");
    expect(parseHealthFilter("failed")).toBe("failed");
    expect(parseHealthFilter("all")).toBeNull();
    expect(parseHealthFilter(null)).toBeNull();
  });
});
