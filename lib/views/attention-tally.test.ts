import { describe, expect, it } from "vitest";
import { attentionTally, needsOperatorCount } from "@/lib/views/attention-tally";
import { failureGroups } from "@/lib/views/failure-groups";
import type { AttentionRunInput } from "@/lib/views/failure-groups";
import operatorMetrics from "@/contracts/fixtures/2026-08/operator-metrics.json";

const NOW = Date.parse("2026-04-13T12:00:00Z");

function run(id: string, liveness: string, extra: Partial<AttentionRunInput["execution"]> = {}): AttentionRunInput {
  return {
    workflow_id: id,
    run_id: `${id}-run`,
    execution: { status: "waiting", workflow_type: "Order", liveness_state: liveness, ...extra },
  };
}

describe("needsOperatorCount", () => {
  it("adds the server's stuck, compatibility-blocked and claim-failing runs", () => {
    expect(needsOperatorCount({ repair_needed: 2, compatibility_blocked: 1, claim_failed: 1 })).toBe(4);
    expect(needsOperatorCount({ repair_needed: 3 })).toBe(3);
    const runs = (operatorMetrics as { operator_metrics: { runs: Parameters<typeof needsOperatorCount>[0] } })
      .operator_metrics.runs;
    expect(needsOperatorCount(runs)).toBe(
      runs.repair_needed + (runs.compatibility_blocked ?? 0) + (runs.claim_failed ?? 0),
    );
  });
});

describe("attentionTally", () => {
  it("counts the scanned runs of the server's causes, and what the scan did not find", () => {
    const groups = failureGroups(
      [
        run("a", "repair_needed"),
        run("b", "repair_needed", { workflow_type: "Refund" }),
        run("c", "workflow_task_waiting_for_compatible_worker"),
        run("d", "workflow_replay_blocked"),
        {
          ...run("e", "waiting_for_activity"),
          pending_activities: [{ activity_execution_id: "x", status: "pending", attempt_count: 2 }],
        },
      ],
      { now: NOW },
    );
    // Replay-blocked and retrying runs are listed on the page but are not in the server's count.
    expect(attentionTally(groups, 4)).toEqual({ counted: 4, found: 3, unlisted: 1 });
    expect(attentionTally(groups, 3).unlisted).toBe(0);
  });

  it("never says nothing needs an operator while the server counts some: none found, all unlisted", () => {
    expect(attentionTally([], 4)).toEqual({ counted: 4, found: 0, unlisted: 4 });
    expect(attentionTally([], 0)).toEqual({ counted: 0, found: 0, unlisted: 0 });
  });

  it("without the server's count (no metrics for this token), only the scan speaks", () => {
    expect(attentionTally([{ cause: "repair_needed", count: 2 }], null)).toEqual({
      counted: null,
      found: 2,
      unlisted: 0,
    });
  });
});
