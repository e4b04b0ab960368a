import { describe, expect, it } from "vitest";
import { bulkOutcome } from "@/lib/confirm/bulk";
import { startAgainPlan } from "@/lib/confirm/bulk-start-again";

describe("startAgainPlan", () => {
  const now = Date.parse("2026-12-02T17:00:00Z");

  it("gives each workflow one new id, keeps only its newest run, and never chains -again- suffixes", () => {
    const plan = startAgainPlan(
      [
        { workflowId: "order-1", runId: "r2" },
        { workflowId: "order-2-again-abc", runId: "r9" },
        { workflowId: "order-1", runId: "r1" },
      ],
      now,
    );
    expect(plan.counts).toEqual({ start: 2, skip_same_workflow: 1 });
    expect(plan.runs.map((run) => [run.runId, run.bucket])).toEqual([
      ["r2", "start"],
      ["r9", "start"],
      ["r1", "skip_same_workflow"],
    ]);
    const ids = plan.runs.map((run) => run.newWorkflowId);
    expect(ids[0]).toMatch(/^order-1-again-[a-z0-9]+$/);
    expect(ids[1]).toMatch(/^order-2-again-[a-z0-9]+$/);
    expect(ids[2]).toBeNull();
  });

  it("is tallied over the new runs by the bulk outcome", () => {
    const outcome = bulkOutcome(
      [
        { kind: "accepted", outcome: "started_new" },
        { kind: "accepted", outcome: "started_new" },
        { kind: "rejected", reason: "duplicate" },
      ],
      [
        { status: "completed", isTerminal: true, livenessState: "closed", failureCategory: null },
        { status: "failed", isTerminal: true, livenessState: "closed", failureCategory: "application" },
        null,
      ],
    );
    expect(outcome).toMatchObject({ accepted: 2, rejected: 1, completed: 1, failedAgain: 1, settled: true });
    expect(outcome.failedByCategory).toEqual({ application: 1 });
  });
});
