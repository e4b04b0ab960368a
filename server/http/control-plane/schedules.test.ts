import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FakeClock } from "../../clock";
import { createEngine } from "../../engine";
import type { Engine } from "../../engine";
import { openDb } from "../../store/db";
import type { Db } from "../../store/db";
import { buildApp } from "../app";
import { tokenAuth } from "../test-support";
import type { JsonTree } from "./test-support";
import { cp, list } from "./test-support";

/**
 * `/api/schedules` as durable-workflow/server@11d35b7 serves it (ScheduleController, routes/api.php:
 * operator role, version header, namespace): shapes against lib/dw/fixtures/schedule-*.json,
 * refusals, and a restart on the same SQLite file. Real HTTP, fake clock, no sleeps.
 */

const OP = "op-token";
const AUTH = tokenAuth({ DW_OPERATOR_TOKEN: OP, DW_WORKER_TOKEN: "wk-token" });
let dir: string;
let clock: FakeClock;
let db: Db;
let engine: Engine;
let app: FastifyInstance;
let url: string;

async function boot(): Promise<void> {
  db = openDb(join(dir, "server.db"), clock);
  engine = createEngine({ db, clock, scheduleJitter: () => 0 });
  app = buildApp({ db, clock, engine, auth: AUTH, pollTimeoutMs: 100 });
  url = await app.listen({ host: "127.0.0.1", port: 0 });
}

async function shutdown(): Promise<void> {
  await app.close();
  db.close();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "bw-sched-http-"));
  clock = new FakeClock(Date.parse("2026-01-15T10:00:00.000Z"));
  await boot();
});
afterEach(async () => {
  await shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, req: Parameters<typeof cp>[2] = {}) => cp(url, path, { token: OP, ...req });

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
}

const keys = (o: unknown) => Object.keys(o as object).sort();

/** A value at a dotted path of a JSON answer (undefined when absent). */
function get(tree: unknown, path: string): unknown {
  let node: unknown = tree;
  for (const part of path.split("."))
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

const NIGHTLY = {
  schedule_id: "nightly-report",
  spec: { cron_expressions: ["0 2 * * 1-5"], timezone: "Europe/Berlin" },
  action: { workflow_type: "reports.nightly", task_queue: "reports", input: ["eu-west"] },
  memo: { owner: "eu-desk" },
  search_attributes: { Team: "reports" },
  note: "Daily report for the EU desk",
};

describe("schedule routes", () => {
  test("create, describe and list in the fixtures' shapes; the next fire is 02:00 Berlin", async () => {
    const created = await call("/schedules", { body: NIGHTLY });
    expect([created.status, created.body]).toEqual([201, fixture("schedule-created")]);
    const detail = await call("/schedules/nightly-report");
    expect(detail.status).toBe(200);
    const real = fixture("schedule-detail");
    expect(keys(detail.body)).toEqual(keys(real));
    expect(keys(detail.body.info)).toEqual(keys(real.info));
    expect(keys(detail.body.state)).toEqual(keys(real.state));
    expect(get(detail.body, "info.next_fire")).toBe("2026-01-16T01:00:00+00:00");
    expect(detail.body.created_at).toBe("2026-01-15T10:00:00+00:00");
    expect(detail.body.memo).toEqual({ owner: "eu-desk" });
    const listed = await call("/schedules");
    const realList = fixture("schedule-list") as { schedules: Record<string, unknown>[] };
    expect(keys(listed.body)).toEqual(keys(realList));
    expect(keys(list(listed.body.schedules)[0])).toEqual(keys(realList.schedules[0]));
    expect(listed.body.next_page_token).toBeNull();
  });

  test("refusals: 409 duplicate, 404 unknown, 422 with Laravel's keys and words, 403 for a worker token", async () => {
    await call("/schedules", { body: NIGHTLY });
    const dup = await call("/schedules", { body: NIGHTLY });
    expect([dup.status, dup.body]).toEqual([409, fixture("schedule-error-409")]);
    const missing = await call("/schedules/nope");
    expect([missing.status, missing.body.reason, missing.body.message]).toEqual([
      404,
      "schedule_not_found",
      "Schedule [nope] not found in namespace [default].",
    ]);
    const bad = await call("/schedules", {
      body: { spec: { cron_expressions: ["0 * * * *"] }, action: { task_queue: "q" }, overlap_policy: "sometimes" },
    });
    expect([bad.status, bad.body]).toEqual([422, fixture("schedule-error-422")]);
    const jitter = await call("/schedules", { body: { ...NIGHTLY, schedule_id: "j", jitter_seconds: 4000 } });
    expect(jitter.body.errors).toEqual({ jitter_seconds: ["The jitter seconds field must not be greater than 3600."] });
    const range = await call("/schedules/nightly-report/backfill", {
      body: { start_time: "2026-01-10T00:00:00Z", end_time: "2026-01-09T00:00:00Z" },
    });
    expect([range.status, range.body]).toEqual([422, fixture("schedule-error-422-time-range")]);
    const worker = await cp(url, "/schedules", { token: "wk-token" });
    expect([worker.status, worker.body.reason]).toEqual([403, "forbidden"]);
    const after = await call("/schedules/nightly-report/history?after_sequence=-1");
    expect([after.status, after.body.reason]).toEqual([422, "invalid_after_sequence"]);
  });

  test("pause with a note, resume, trigger, update, delete — each in the history with its command context", async () => {
    await call("/schedules", { body: { ...NIGHTLY, overlap_policy: "skip" } });
    const paused = await call("/schedules/nightly-report/pause", { body: { note: "warehouse reload" } });
    expect(paused.body).toEqual(fixture("schedule-paused"));
    const detail = await call("/schedules/nightly-report");
    expect([get(detail.body, "state.status"), get(detail.body, "state.note")]).toEqual(["paused", "warehouse reload"]);
    const whilePaused = await call("/schedules/nightly-report/trigger", { body: {} });
    expect(whilePaused.body).toEqual({
      schedule_id: "nightly-report",
      outcome: "skipped",
      reason: "status_not_triggerable",
    });
    expect((await call("/schedules/nightly-report/resume", { body: {} })).body).toEqual(fixture("schedule-resumed"));
    const fired = await call("/schedules/nightly-report/trigger", { body: {} });
    expect(keys(fired.body)).toEqual(keys(fixture("schedule-trigger-triggered")));
    const skipped = await call("/schedules/nightly-report/trigger", { body: {} });
    expect(skipped.body).toEqual(fixture("schedule-trigger-skipped"));
    const updated = await call("/schedules/nightly-report", {
      method: "PUT",
      body: { max_runs: 5, action: { task_queue: "q2" } },
    });
    expect(updated.body).toEqual(fixture("schedule-updated"));
    const after = await call("/schedules/nightly-report");
    expect([
      after.body.max_runs,
      after.body.remaining_actions,
      get(after.body, "action.workflow_type"),
      get(after.body, "action.task_queue"),
    ]).toEqual([5, 4, "reports.nightly", "q2"]);
    expect((await call("/schedules/nightly-report", { method: "DELETE" })).body).toEqual(fixture("schedule-deleted"));
    expect((await call("/schedules/nightly-report")).status).toBe(404);
    expect(list((await call("/schedules")).body.schedules)).toHaveLength(0);
    const history = await call("/schedules/nightly-report/history?limit=3");
    expect(keys(history.body)).toEqual(keys(fixture("schedule-history")));
    expect([history.body.has_more, history.body.next_cursor]).toEqual([true, 3]);
    const all = await call("/schedules/nightly-report/history");
    const events = list(all.body.events);
    expect(events.map((e) => e.event_type)).toEqual([
      "ScheduleCreated",
      "SchedulePaused",
      "ScheduleTriggerSkipped",
      "ScheduleResumed",
      "ScheduleTriggered",
      "ScheduleTriggerSkipped",
      "ScheduleUpdated",
      "ScheduleDeleted",
    ]);
    const ctx = get(events[1], "payload.command_context");
    expect([
      get(ctx, "source"),
      get(ctx, "context.server.command"),
      get(ctx, "context.request.path"),
      get(ctx, "context.auth.role"),
    ]).toEqual(["control_plane", "schedule.pause", "/api/schedules/nightly-report/pause", "operator"]);
    expect(get(events[4], "workflow_run_id")).toBe(fired.body.run_id);
    expect(get(events[6], "payload.changed_fields")).toEqual(["spec", "action", "max_runs", "remaining_actions"]);
  });

  test("backfill over [start, end) starts one run per occurrence with its fire time in the schedule's zone", async () => {
    await call("/schedules", { body: { ...NIGHTLY, overlap_policy: "allow_all" } });
    const r = await call("/schedules/nightly-report/backfill", {
      body: { start_time: "2026-01-07T01:00:00Z", end_time: "2026-01-09T01:00:00Z" },
    });
    expect(r.status).toBe(200);
    expect(keys(r.body)).toEqual(keys(fixture("schedule-backfill")));
    // 7 and 8 January at 02:00 Berlin; 9 January 01:00 UTC is the end, excluded.
    expect(list(r.body.results).map((x) => [x.fire_time, x.outcome])).toEqual([
      ["2026-01-07T02:00:00+01:00", "started"],
      ["2026-01-08T02:00:00+01:00", "started"],
    ]);
    const events = list((await call("/schedules/nightly-report/history")).body.events);
    const triggered = events.filter((e) => get(e, "event_type") === "ScheduleTriggered");
    expect(triggered.map((e) => get(e, "payload.occurrence_time"))).toEqual([
      "2026-01-07T02:00:00.000000+01:00",
      "2026-01-08T02:00:00.000000+01:00",
    ]);
  });

  test("what the real server leaves to an uncaught exception is a 500 here too, and writes nothing", async () => {
    const badCron = await call("/schedules", { body: { ...NIGHTLY, spec: { cron_expressions: ["0 0 9 * * *"] } } });
    expect([badCron.status, badCron.body.reason, badCron.body.message]).toEqual([
      500,
      "server_error",
      "Invalid cron expression: [0 0 9 * * *].",
    ]);
    const noSpec = await call("/schedules", { body: { ...NIGHTLY, spec: { timezone: "UTC" } } });
    expect([noSpec.status, noSpec.body.message]).toEqual([
      500,
      "Schedule spec must include at least one cron_expression or interval.",
    ]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM workflow_schedules").get()).toEqual({ n: 0 });
    await call("/schedules", { body: NIGHTLY });
    const notPaused = await call("/schedules/nightly-report/resume", { body: {} });
    expect([notPaused.status, notPaused.body.message]).toEqual([500, "Schedule [nightly-report] is not paused."]);
    await call("/schedules/nightly-report", { method: "DELETE" });
    const reuse = await call("/schedules", { body: NIGHTLY });
    expect([reuse.status, reuse.body.reason]).toEqual([500, "server_error"]);
  });

  test("cluster/info advertises schedules, jitter and max_runs as HealthController@11d35b7 does", async () => {
    const info = await call("/cluster/info");
    expect([
      get(info.body, "capabilities.schedules"),
      get(info.body, "capabilities.schedule_jitter"),
      get(info.body, "capabilities.schedule_max_runs"),
    ]).toEqual([true, true, true]);
  });

  test("a schedule created before a restart fires after it, once, from the same file", async () => {
    await call("/schedules", {
      body: { schedule_id: "minutely", spec: { intervals: [{ every: "PT1M" }] }, action: { workflow_type: "ping" } },
    });
    await shutdown();
    clock.advance(5 * 60_000 + 10_000);
    await boot();
    expect(engine.scheduleTick()).toHaveLength(1);
    const d = await call("/schedules/minutely");
    expect([get(d.body, "info.fires_count"), get(d.body, "info.last_fire"), get(d.body, "info.next_fire")]).toEqual([
      1,
      "2026-01-15T10:05:10+00:00",
      "2026-01-15T10:06:00+00:00",
    ]);
    const runId = get(list(get(d.body, "info.recent_actions") as JsonTree)[0], "run_id") as string;
    const run = db.prepare("SELECT status FROM workflow_runs WHERE id = ?").get(runId) as { status: string };
    expect(run.status).toBe("pending");
  });
});
