import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { FakeClock } from "../clock";
import { openDb } from "../store/db";
import type { Db } from "../store/db";
import type { Engine } from ".";
import { createEngine } from ".";
import { startScheduleEvaluator } from "./schedule-evaluator";
import { createSchedule } from "./schedules";

/** The evaluator's passes on fake timers: armed just after each whole second, every due schedule fired in batches. */

let dir: string;
let db: Db;
let clock: FakeClock;
let engine: Engine;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bw-sched-eval-"));
  clock = new FakeClock(Date.parse("2026-01-15T10:00:30.000Z"));
  db = openDb(join(dir, "e.db"), clock);
  engine = createEngine({ db, clock, scheduleJitter: () => 0 });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate"] });
});
afterEach(() => {
  vi.useRealTimers();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("schedule evaluator", () => {
  test("one pass fires all 250 due schedules in batches of 100, at the first tick after the second", async () => {
    engine.transactionAt((tx) => {
      for (let i = 0; i < 250; i++)
        createSchedule(
          tx,
          {
            namespace: "default",
            schedule_id: `m${i}`,
            spec: { cron_expressions: ["* * * * *"] },
            action: { workflow_type: "ping" },
            overlap_policy: "allow_all",
            memo: null,
            search_attributes: null,
            jitter_seconds: 0,
            max_runs: null,
            note: null,
          },
          null,
          engine.scheduleJitter,
        );
    });
    let wall = Date.parse("2026-01-15T10:00:59.400Z");
    const evaluator = startScheduleEvaluator(engine, { intervalMs: 1000, wallClock: () => wall });
    clock.set(Date.parse("2026-01-15T10:01:00.005Z"));
    wall = clock.now();
    await vi.advanceTimersByTimeAsync(599); // armed for 10:00:59.400 + 605 ms, not yet
    expect(db.prepare("SELECT SUM(fires_count) AS n FROM workflow_schedules").get()).toEqual({ n: 0 });
    await vi.advanceTimersByTimeAsync(10);
    const fired = db.prepare("SELECT COUNT(*) AS n FROM workflow_schedules WHERE fires_count = 1").get();
    expect(fired).toEqual({ n: 250 });
    evaluator.stop();
  });
});
