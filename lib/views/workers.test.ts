import { describe, expect, it } from "vitest";
import type { Worker } from "@/lib/dw/schemas-fleet";
import workerFixture from "@/lib/dw/fixtures/worker.json";
import {
  DEFAULT_WORKER_COLUMNS,
  formatBytes,
  mergeRoster,
  parseWorkerColumns,
  serializeWorkerColumns,
  slotUse,
  toggleWorkerColumn,
  workerFreshness,
  workerProcess,
  workerSlots,
} from "./workers";

const NOW = Date.parse("2026-04-13T12:10:00Z");

function worker(overrides: Partial<Worker> = {}): Worker {
  return { ...(workerFixture as Worker), ...overrides };
}

describe("the column choice", () => {
  it("reads a stored choice in display order, keeps the worker column, and falls back to the default", () => {
    expect(parseWorkerColumns(null)).toEqual([...DEFAULT_WORKER_COLUMNS]);
    expect(parseWorkerColumns("build,queue")).toEqual(["worker", "queue", "build"]);
    expect(parseWorkerColumns("nonsense,,")).toEqual([...DEFAULT_WORKER_COLUMNS]);
    expect(parseWorkerColumns("")).toEqual(["worker"]);
    expect(serializeWorkerColumns(["slots", "worker", "queue"])).toBe("worker,queue,slots");
  });

  it("toggles a column, but never the worker column", () => {
    expect(toggleWorkerColumn(["worker", "queue"], "queue")).toEqual(["worker"]);
    expect(toggleWorkerColumn(["worker"], "capabilities")).toEqual(["worker", "capabilities"]);
    expect(toggleWorkerColumn(["worker", "queue"], "worker")).toEqual(["worker", "queue"]);
  });
});

describe("the roster", () => {
  it("merges the live list and the stale one, each worker once, with the server's window", () => {
    const live = { workers: [worker({ worker_id: "a" })], stale_after_seconds: 60 };
    const stale = { workers: [worker({ worker_id: "b", status: "stale" }), worker({ worker_id: "a" })] };
    const roster = mergeRoster(live, stale);
    expect(roster.workers.map((w) => w.worker_id)).toEqual(["a", "b"]);
    expect(roster.staleAfterSeconds).toBe(60);
    expect(mergeRoster(undefined, undefined)).toEqual({ workers: [], staleAfterSeconds: null });
  });
});

describe("freshness by the server's rule", () => {
  it("is stale when the server says so, with the heartbeat's age", () => {
    expect(workerFreshness(worker({ status: "stale" }), 60, NOW)).toEqual({
      state: "stale",
      ageSeconds: 600,
      basis: "server",
    });
  });

  it("is stale once the heartbeat is older than the server's window, live within it", () => {
    const at = new Date(NOW - 61_000).toISOString();
    expect(workerFreshness(worker({ last_heartbeat_at: at }), 60, NOW)).toMatchObject({
      state: "stale",
      basis: "window",
      ageSeconds: 61,
    });
    expect(workerFreshness(worker({ last_heartbeat_at: at }), 300, NOW)).toMatchObject({
      state: "live",
      ageSeconds: 61,
    });
  });

  it("takes an older server's status as the verdict, and says unknown without a heartbeat time", () => {
    expect(workerFreshness(worker(), null, NOW)).toMatchObject({ state: "live", ageSeconds: 600 });
    expect(workerFreshness(worker({ last_heartbeat_at: undefined }), 60, NOW)).toEqual({
      state: "unknown",
      ageSeconds: null,
      basis: "none",
    });
    // A heartbeat from a clock ahead of the browser's is no negative age.
    const ahead = new Date(NOW + 5_000).toISOString();
    expect(workerFreshness(worker({ last_heartbeat_at: ahead }), 60, NOW).ageSeconds).toBe(0);
  });
});

describe("slots and process", () => {
  it("reads free slots and capacity per family, sessions only when declared", () => {
    const slots = workerSlots(
      worker({
        task_slots: {
          workflow_available: 1,
          activity_available: 8,
          session_available: null,
          workflow_capacity: 4,
          activity_capacity: 8,
          session_capacity: null,
        },
      }),
    );
    expect(slots).toEqual([
      { family: "workflow", available: 1, capacity: 4 },
      { family: "activity", available: 8, capacity: 8 },
    ]);
    expect(slots.map(slotUse)).toEqual([0.75, 0]);
    // An older server: capacity from the declaration, free slots unknown.
    expect(workerSlots(worker())).toEqual([
      { family: "workflow", available: null, capacity: 100 },
      { family: "activity", available: null, capacity: 100 },
    ]);
    expect(slotUse({ family: "workflow", available: null, capacity: 4 })).toBeNull();
    expect(workerSlots(worker({ max_concurrent_worker_sessions: 2 }))[2]).toEqual({
      family: "session",
      available: null,
      capacity: 2,
    });
  });

  it("shows only the process facts the worker reported", () => {
    expect(workerProcess(worker())).toBeNull();
    expect(workerProcess(worker({ process_metrics: {} }))).toBeNull();
    expect(workerProcess(worker({ process_metrics: { process_id: 4242, memory_bytes: 52_428_800 } }))).toEqual({
      host: null,
      pid: "4242",
      cpuPercent: null,
      memoryBytes: 52_428_800,
      uptimeSeconds: null,
    });
  });

  it("formats bytes in binary units in the locale's digits", () => {
    expect(formatBytes(512, "en")).toBe("512 B");
    expect(formatBytes(52_428_800, "en")).toBe("50.0 MiB");
    expect(formatBytes(1_572_864, "de")).toBe("1,5 MiB");
  });
});
