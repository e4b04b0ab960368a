import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FakeClock } from "../clock";
import { openDb } from "../store/db";
import type { Db } from "../store/db";
import type { Engine } from ".";
import { createEngine } from ".";
import type { JitterSource, ScheduleSpec } from "./schedule-spec";
import { computeNextFireAt, durationSeconds, isValidCron, occurrencesBetween, phpIso } from "./schedule-spec";
import type { OverlapPolicy, ScheduleRow } from "./schedule-rows";
import { liveSchedule, anySchedule } from "./schedule-rows";
import { createSchedule } from "./schedules";
import { triggerSchedule } from "./schedule-fires";

/**
 * Schedules on the fake clock, after the engine's ScheduleManager and WorkflowSchedule
 * (durable-workflow/workflow src/V2@797aa6f): cron and interval specs in a time zone (a DST change
 * included), jitter bounds, every overlap policy, catch-up after downtime, max_runs. Real SQLite file.
 */

const T0 = Date.parse("2026-01-15T10:00:00.000Z");
let dir: string;
let db: Db;
let clock: FakeClock;
let engine: Engine;
let draws: number[];

function open(jitter?: JitterSource): void {
  db = openDb(join(dir, "s.db"), clock);
  engine = createEngine({ db, clock, scheduleJitter: jitter });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bw-sched-"));
  clock = new FakeClock(T0);
  draws = [];
  open();
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function create(
  id: string,
  spec: ScheduleSpec,
  extra: Partial<Parameters<typeof createSchedule>[1]> = {},
): ScheduleRow {
  return engine.transactionAt((tx) =>
    createSchedule(
      tx,
      {
        namespace: "default",
        schedule_id: id,
        spec,
        action: { workflow_type: "reports.nightly", task_queue: "reports", input: ["eu"] },
        overlap_policy: "skip",
        memo: null,
        search_attributes: null,
        jitter_seconds: 0,
        max_runs: null,
        note: null,
        ...extra,
      },
      null,
      engine.scheduleJitter,
    ),
  );
}

const row = (id: string) => anySchedule(db, "default", id)!;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function runStatus(instanceId: string): string {
  return (
    db
      .prepare(
        "SELECT r.status FROM workflow_runs r JOIN workflow_instances i ON i.current_run_id = r.id WHERE i.id = ?",
      )
      .get(instanceId) as { status: string }
  ).status;
}

function closeRun(instanceId: string): void {
  engine.terminateWorkflow({ namespace: "default", workflow_id: instanceId, reason: "test closes it" });
}

describe("specs", () => {
  test("cron in UTC and in a zone, the earliest of several expressions, strictly after the instant", () => {
    expect(iso(computeNextFireAt({ cron_expressions: ["0 9 * * *"] }, T0))).toBe("2026-01-16T09:00:00.000Z");
    expect(iso(computeNextFireAt({ cron_expressions: ["0 9 * * *"], timezone: "America/New_York" }, T0))).toBe(
      "2026-01-15T14:00:00.000Z",
    );
    expect(iso(computeNextFireAt({ cron_expressions: ["0 12 * * *", "30 10 * * *"] }, T0))).toBe(
      "2026-01-15T10:30:00.000Z",
    );
    // Exactly on an occurrence: the next one (getNextRunDate with allowCurrentDate false).
    expect(iso(computeNextFireAt({ cron_expressions: ["0 10 * * *"] }, T0))).toBe("2026-01-16T10:00:00.000Z");
  });

  test("a daily 02:30 Europe/Berlin across both DST changes of 2026", () => {
    const spec = { cron_expressions: ["30 2 * * *"], timezone: "Europe/Berlin" };
    const spring = occurrencesBetween(spec, Date.parse("2026-03-28T00:00:00Z"), Date.parse("2026-03-31T00:00:00Z"));
    // 02:30 does not exist on 29 March (02:00 → 03:00): that day fires once, at the first instant after the gap.
    expect(spring.map((o) => iso(o.at))).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
    ]);
    const autumn = occurrencesBetween(spec, Date.parse("2026-10-24T00:00:00Z"), Date.parse("2026-10-27T00:00:00Z"));
    // 02:30 happens twice on 25 October; it fires once, at the first (summer-time) instant.
    expect(autumn.map((o) => iso(o.at))).toEqual([
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
    ]);
    expect(phpIso(autumn[2]!.at, "Europe/Berlin")).toBe("2026-10-26T02:30:00+01:00");
    expect(phpIso(autumn[0]!.at, "Europe/Berlin", true)).toBe("2026-10-24T02:30:00.000000+02:00");
  });

  test("intervals count from the epoch with their offset; durations as PHP DateInterval; cron validity", () => {
    expect(iso(computeNextFireAt({ intervals: [{ every: "PT15M" }] }, T0 + 1))).toBe("2026-01-15T10:15:00.000Z");
    expect(iso(computeNextFireAt({ intervals: [{ every: "PT1H", offset: "PT5M" }] }, T0))).toBe(
      "2026-01-15T10:05:00.000Z",
    );
    expect(iso(computeNextFireAt({ cron_expressions: ["0 12 * * *"], intervals: [{ every: "PT30M" }] }, T0))).toBe(
      "2026-01-15T10:30:00.000Z",
    );
    expect([durationSeconds("P1Y"), durationSeconds("P1M"), durationSeconds("P1DT1S"), durationSeconds("PT")]).toEqual([
      365 * 86400,
      30 * 86400,
      86401,
      null,
    ]);
    expect(computeNextFireAt({ intervals: [{ every: "bogus" }] }, T0)).toBeNull();
    expect([
      isValidCron("*/5 * * * *"),
      isValidCron("@daily"),
      isValidCron("0 0 9 * * *"),
      isValidCron("nope"),
    ]).toEqual([true, true, false, false]);
  });
});

describe("firing on the fake clock", () => {
  test("an interval schedule fires when due, once per tick, and records the run with the schedule's identity", () => {
    create("every-minute", { intervals: [{ every: "PT1M" }] });
    expect(engine.scheduleTick()).toEqual([]);
    clock.advance(60_000);
    const [fired] = engine.scheduleTick();
    expect(fired).toMatchObject({ schedule_id: "every-minute", outcome: "triggered" });
    const s = row("every-minute");
    expect([s.fires_count, iso(s.last_fired_at), iso(s.next_fire_at)]).toEqual([
      1,
      "2026-01-15T10:01:00.000Z",
      "2026-01-15T10:02:00.000Z",
    ]);
    const event = db
      .prepare(
        "SELECT e.payload FROM workflow_history_events e JOIN workflow_instances i ON i.current_run_id = e.workflow_run_id WHERE i.id = ? AND e.event_type = 'ScheduleTriggered'",
      )
      .get(fired!.instance_id) as { payload: string };
    expect(JSON.parse(event.payload)).toMatchObject({
      schedule_id: "every-minute",
      schedule_ulid: s.id,
      trigger_number: 1,
    });
    const hist = db
      .prepare("SELECT event_type, workflow_instance_id FROM workflow_schedule_history_events ORDER BY sequence")
      .all();
    expect(hist).toEqual([
      { event_type: "ScheduleCreated", workflow_instance_id: null },
      { event_type: "ScheduleTriggered", workflow_instance_id: fired!.instance_id },
    ]);
  });

  test("after downtime the missed fires collapse into one, and the next fire is computed from now", () => {
    create("quarter", { cron_expressions: ["*/15 * * * *"] });
    clock.advance(3 * 3600_000 + 7 * 60_000); // 13:07, twelve fires missed
    const fired = engine.scheduleTick();
    expect(fired).toHaveLength(1);
    expect(engine.scheduleTick()).toEqual([]);
    expect([row("quarter").fires_count, iso(row("quarter").next_fire_at)]).toEqual([1, "2026-01-15T13:15:00.000Z"]);
  });

  test("a start that throws rolls back only its own fire: the rest of the batch fires, the failure is recorded", () => {
    for (let i = 0; i < 30; i++) create(`ok${i}`, { intervals: [{ every: "PT1M" }] });
    // No namespaces row for "ghost": the start refuses, as it would for a namespace deleted under a schedule.
    const ghost = engine.transactionAt((tx) =>
      createSchedule(
        tx,
        {
          ...row("ok0"),
          namespace: "ghost",
          schedule_id: "ghost",
          spec: { intervals: [{ every: "PT1M" }] },
          action: { workflow_type: "x" },
          overlap_policy: "skip",
          memo: null,
          search_attributes: null,
          jitter_seconds: 0,
          max_runs: null,
          note: null,
        },
        null,
        engine.scheduleJitter,
      ),
    );
    clock.advance(60_000);
    const results = engine.scheduleTick();
    expect(results.filter((r) => r.outcome === "triggered")).toHaveLength(30);
    expect(results.filter((r) => r.error)).toEqual([expect.objectContaining({ schedule_id: "ghost" })]);
    const g = db.prepare("SELECT * FROM workflow_schedules WHERE id = ?").get(ghost.id) as ScheduleRow;
    expect([g.fires_count, g.failures_count, JSON.parse(g.recent_actions!)[0].outcome]).toEqual([0, 1, "failed"]);
    expect(iso(g.next_fire_at)).toBe("2026-01-15T10:02:00.000Z");
  });

  test("a fire survives a restart on the same file; a paused schedule does not fire", () => {
    create("durable", { intervals: [{ every: "PT1M" }] });
    create("paused", { intervals: [{ every: "PT1M" }] });
    engine.transactionAt((tx) =>
      tx.db.prepare("UPDATE workflow_schedules SET status = 'paused' WHERE schedule_id = 'paused'").run(),
    );
    db.close();
    clock.advance(10 * 60_000);
    open();
    const fired = engine.scheduleTick();
    expect(fired.map((f) => f.schedule_id)).toEqual(["durable"]);
    expect(runStatus(fired[0]!.instance_id!)).toBe("pending");
  });

  test("jitter lands in [0, jitter_seconds] after the canonical time", () => {
    db.close();
    open((max) => {
      const d = Math.floor(Math.random() * (max + 1));
      draws.push(d);
      return d;
    });
    for (let i = 0; i < 40; i++) create(`j${i}`, { cron_expressions: ["0 * * * *"] }, { jitter_seconds: 90 });
    const canonical = Date.parse("2026-01-15T11:00:00Z");
    for (let i = 0; i < 40; i++) {
      const next = row(`j${i}`).next_fire_at!;
      expect(next - canonical).toBeGreaterThanOrEqual(0);
      expect(next - canonical).toBeLessThanOrEqual(90_000);
      expect((next - canonical) / 1000).toBe(draws[i]);
    }
  });

  test("max_runs: the last allowed fire tombstones the schedule with max_runs_exhausted", () => {
    create("twice", { intervals: [{ every: "PT1M" }] }, { max_runs: 2, overlap_policy: "allow_all" });
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      engine.scheduleTick();
    }
    const s = row("twice");
    expect([s.status, s.fires_count, s.remaining_actions, s.next_fire_at]).toEqual(["deleted", 2, 0, null]);
    expect(liveSchedule(db, "default", "twice")).toBeUndefined();
    const last = db
      .prepare("SELECT payload FROM workflow_schedule_history_events WHERE event_type = 'ScheduleDeleted'")
      .get() as { payload: string };
    expect(JSON.parse(last.payload).reason).toBe("max_runs_exhausted");
  });
});

describe("overlap policies while the last run is open", () => {
  const trigger = (id: string, policy: OverlapPolicy | null = null) =>
    engine.transactionAt((tx) => triggerSchedule(tx, row(id).id, policy, null, engine.scheduleJitter));

  test("skip skips with overlap_policy_skip; allow_all starts another", () => {
    create("s", { intervals: [{ every: "PT1H" }] });
    const first = trigger("s");
    expect(first.outcome).toBe("triggered");
    expect(trigger("s")).toMatchObject({ outcome: "skipped", reason: "overlap_policy_skip" });
    expect(row("s").skipped_trigger_count).toBe(1);
    const again = trigger("s", "allow_all");
    expect(again.outcome).toBe("triggered");
    expect(runStatus(first.instanceId!)).toBe("pending");
  });

  test("buffer_one holds one and refuses the next; buffer_all holds many; a tick drains one once the run closes", () => {
    create("b1", { intervals: [{ every: "PT1H" }] }, { overlap_policy: "buffer_one" });
    const first = trigger("b1");
    expect(trigger("b1").outcome).toBe("buffered");
    expect(trigger("b1")).toMatchObject({ outcome: "buffer_full", reason: "buffer_full" });
    create("ba", { intervals: [{ every: "PT1H" }] }, { overlap_policy: "buffer_all" });
    trigger("ba");
    trigger("ba");
    trigger("ba");
    expect(JSON.parse(row("ba").buffered_actions!)).toHaveLength(2);
    expect(engine.scheduleTick()).toEqual([]);
    closeRun(first.instanceId!);
    const drained = engine.scheduleTick();
    expect(drained).toHaveLength(1);
    expect(row("b1").buffered_actions).toBeNull();
    expect(JSON.parse(row("b1").recent_actions!).at(-1).outcome).toBe("drained");
  });

  test("cancel_other and terminate_other close the open run and start a new one", () => {
    create("c", { intervals: [{ every: "PT1H" }] }, { overlap_policy: "cancel_other" });
    const first = trigger("c");
    const second = trigger("c");
    expect(second.outcome).toBe("triggered");
    expect(runStatus(first.instanceId!)).toBe("cancelled");
    create("t", { intervals: [{ every: "PT1H" }] }, { overlap_policy: "terminate_other" });
    const a = trigger("t");
    trigger("t");
    expect(runStatus(a.instanceId!)).toBe("terminated");
  });

  test("a paused schedule's trigger is skipped with status_not_triggerable", () => {
    create("p", { intervals: [{ every: "PT1H" }] });
    engine.transactionAt((tx) => tx.db.prepare("UPDATE workflow_schedules SET status = 'paused'").run());
    expect(trigger("p")).toMatchObject({ outcome: "skipped", reason: "status_not_triggerable" });
  });
});
