import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { projectRunSummary } from "../engine/summary";
import { openDb } from "../store/db";
import type { Db } from "../store/db";
import { seedRuns } from "./seed";

let dir: string;
let db: Db;
const clock = new FakeClock();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "breakwater-seed-"));
  db = openDb(join(dir, "seed.db"), clock);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("bulk seed", () => {
  it("loads runs, instances, summaries and history with a realistic mix", () => {
    const progress: number[] = [];
    const result = seedRuns(db, { runs: 2500, now: clock.now(), batchSize: 1000, onProgress: (n) => progress.push(n) });
    expect(progress).toEqual([1000, 2000, 2500]);
    const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
    expect(count("SELECT COUNT(*) AS n FROM workflow_runs")).toBe(2500);
    expect(count("SELECT COUNT(*) AS n FROM workflow_instances")).toBe(2500);
    expect(count("SELECT COUNT(*) AS n FROM workflow_run_summaries")).toBe(2500);
    expect(count("SELECT COUNT(*) AS n FROM workflow_history_events")).toBe(result.events);
    const statuses = db.prepare("SELECT status, COUNT(*) AS n FROM workflow_runs GROUP BY status").all() as {
      status: string;
      n: number;
    }[];
    expect(statuses.map((s) => s.status).sort()).toEqual(["cancelled", "completed", "failed", "terminated", "waiting"]);
    expect(
      count("SELECT COUNT(*) AS n FROM workflow_run_summaries WHERE liveness_state = 'repair_needed'"),
    ).toBeGreaterThan(0);
    expect(count("SELECT COUNT(DISTINCT workflow_type) AS n FROM workflow_runs")).toBe(6);
  });

  it("writes the summary row the engine's projector would write for each shape", () => {
    seedRuns(db, { runs: 1000, now: clock.now() });
    const sample = db.prepare("SELECT * FROM workflow_run_summaries ORDER BY id").all() as Record<string, unknown>[];
    const byShape = new Map<string, Record<string, unknown>>();
    for (const row of sample)
      byShape.set(`${String(row.status)}:${String(row.closed_reason)}:${String(row.liveness_state)}`, row);
    expect(byShape.size).toBeGreaterThanOrEqual(7);
    for (const row of byShape.values()) {
      const projected = projectRunSummary(db, String(row.id), clock.now());
      expect(projected, String(row.id)).not.toBeNull();
      const keys = [
        "status",
        "status_bucket",
        "closed_reason",
        "liveness_state",
        "wait_kind",
        "open_wait_id",
        "repair_blocked_reason",
        "exception_count",
        "history_event_count",
        "history_size_bytes",
        "sort_key",
        "duration_ms",
      ] as const;
      for (const k of keys)
        expect({ [k]: row[k] }).toEqual({ [k]: (projected as unknown as Record<string, unknown>)[k] });
    }
  });
});
