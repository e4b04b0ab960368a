import { describe, expect, it } from "vitest";
import { statusTabCounts } from "@/lib/views/run-row-counts";

// operator_metrics.runs as contracts/fixtures/2026-08/operator-metrics.json has it.
const RUNS = { total: 120, running: 7, completed: 100, failed: 9, cancelled: 2, terminated: 2 };

describe("statusTabCounts", () => {
  it("gives every tab the server's own total when no filter narrows the list", () => {
    expect(statusTabCounts({ metrics: RUNS, filtered: false, current: "all", page: null })).toEqual({
      all: { exact: 120 },
      running: { exact: 7 },
      completed: { exact: 100 },
      // The failed bucket is failed + cancelled + terminated.
      failed: { exact: 13 },
    });
  });

  it("under a filter, counts only the tab on screen, from its first page: exact when it is the whole list, else at least", () => {
    const whole = statusTabCounts({
      metrics: RUNS,
      filtered: true,
      current: "failed",
      page: { shown: 4, more: false, first: true },
    });
    expect(whole).toEqual({ all: null, running: null, completed: null, failed: { exact: 4 } });
    const partial = statusTabCounts({
      metrics: null,
      filtered: false,
      current: "running",
      page: { shown: 50, more: true, first: true },
    });
    expect(partial.running).toEqual({ atLeast: 50 });
    expect(partial.all).toBeNull();
    // A later page says nothing about the rows before it.
    const later = statusTabCounts({
      metrics: null,
      filtered: true,
      current: "running",
      page: { shown: 3, more: false, first: false },
    });
    expect(later.running).toBeNull();
  });

  it("guesses nothing when the metrics cannot be read and nothing is on screen", () => {
    expect(statusTabCounts({ metrics: null, filtered: false, current: "all", page: null })).toEqual({
      all: null,
      running: null,
      completed: null,
      failed: null,
    });
  });
});
