import { describe, expect, it } from "vitest";
import type { PlanRunInput } from "./bulk";
import { bulkOutcome, classifyForRepair, mapBounded, repairPlan } from "./bulk";

function run(
  id: string,
  execution: NonNullable<PlanRunInput["debug"]>["execution"],
  recent_failures: NonNullable<PlanRunInput["debug"]>["recent_failures"] = [],
): PlanRunInput {
  return { workflowId: `wf-${id}`, runId: `run-${id}`, debug: { execution, recent_failures } };
}

describe("classifyForRepair", () => {
  it("sorts runs into repair and skip buckets", () => {
    expect(classifyForRepair(run("a", { status: "waiting", liveness_state: "repair_needed" }))).toBe("repair");
    expect(classifyForRepair(run("b", { status: "completed", is_terminal: true, liveness_state: "closed" }))).toBe(
      "skip_closed",
    );
    expect(classifyForRepair(run("c", { status: "waiting", liveness_state: "timer_scheduled" }))).toBe("skip_healthy");
    expect(
      classifyForRepair(run("d", { status: "running", liveness_state: "activity_task_waiting_for_compatible_worker" })),
    ).toBe("skip_blocked");
    expect(classifyForRepair({ workflowId: "x", runId: "y", debug: null })).toBe("skip_unreadable");
  });

  it("skips a stuck run whose newest unhandled failure is non-retryable", () => {
    const failures = [
      { non_retryable: false, handled: false, created_at: "2026-01-01T00:00:00Z" },
      { non_retryable: true, handled: false, created_at: "2026-01-01T00:01:00Z" },
    ];
    expect(classifyForRepair(run("e", { status: "running", liveness_state: "repair_needed" }, failures))).toBe(
      "skip_non_retryable",
    );
    expect(
      classifyForRepair(
        run("f", { status: "running", liveness_state: "repair_needed" }, [{ non_retryable: true, handled: true }]),
      ),
    ).toBe("repair");
  });
});

describe("repairPlan", () => {
  it("counts every bucket and keeps samples per bucket", () => {
    const runs = [1, 2, 3, 4, 5].map((n) => run(String(n), { status: "waiting", liveness_state: "repair_needed" }));
    runs.push(run("6", { status: "failed", is_terminal: true }));
    const plan = repairPlan(runs, 3);
    expect(plan.counts.repair).toBe(5);
    expect(plan.counts.skip_closed).toBe(1);
    expect(plan.samples.repair.map((r) => r.runId)).toEqual(["run-1", "run-2", "run-3"]);
    expect(plan.runs).toHaveLength(6);
  });
});

describe("bulkOutcome", () => {
  it("tallies answers and what the repaired runs did afterwards", () => {
    const outcome = bulkOutcome(
      [
        { kind: "accepted", outcome: "repair_dispatched" },
        { kind: "accepted", outcome: "repair_dispatched" },
        { kind: "accepted", outcome: "repair_not_needed" },
        { kind: "accepted", outcome: "repair_dispatched" },
        { kind: "rejected", reason: "run_not_active" },
        { kind: "error", reason: "server_unavailable" },
      ],
      [
        { status: "completed", isTerminal: true, livenessState: "closed", failureCategory: null },
        { status: "failed", isTerminal: true, livenessState: "closed", failureCategory: "activity" },
        { status: "waiting", isTerminal: false, livenessState: "timer_scheduled", failureCategory: null },
        { status: "waiting", isTerminal: false, livenessState: "repair_needed", failureCategory: null },
        null,
        null,
      ],
    );
    expect(outcome).toMatchObject({
      sent: 6,
      accepted: 4,
      dispatched: 3,
      notNeeded: 1,
      rejected: 1,
      errors: 1,
      completed: 1,
      failedAgain: 1,
      failedByCategory: { activity: 1 },
      stillOpen: 1,
      stillStuck: 1,
      settled: false,
    });
  });

  it("is settled when every accepted run has closed", () => {
    const outcome = bulkOutcome(
      [{ kind: "accepted", outcome: "repair_dispatched" }],
      [{ status: "failed", isTerminal: true, livenessState: "closed", failureCategory: null }],
    );
    expect(outcome.settled).toBe(true);
    expect(outcome.failedByCategory).toEqual({ unknown: 1 });
  });
});

describe("mapBounded", () => {
  it("never has more than `limit` in flight and keeps input order", async () => {
    let inFlight = 0;
    let peak = 0;
    const progress: number[] = [];
    const results = await mapBounded(
      [5, 1, 4, 2, 3],
      2,
      async (n) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, n));
        inFlight -= 1;
        return n * 10;
      },
      (done) => progress.push(done),
    );
    expect(peak).toBe(2);
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(progress).toEqual([1, 2, 3, 4, 5]);
  });

  it("starts nothing new after abort", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await mapBounded(
      [1, 2, 3, 4],
      1,
      async (n) => {
        seen.push(n);
        if (n === 2) controller.abort();
        return n;
      },
      undefined,
      controller.signal,
    );
    expect(seen).toEqual([1, 2]);
  });
});
