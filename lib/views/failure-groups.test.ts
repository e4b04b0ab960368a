import { describe, expect, it } from "vitest";
import type { AttentionRunInput } from "./failure-groups";
import { failureGroups } from "./failure-groups";

const now = Date.parse("2026-11-30T16:00:00Z");
const minutesAgo = (minutes: number) => new Date(now - minutes * 60_000).toISOString().replace("Z", "000Z");

let counter = 0;
function run(execution: AttentionRunInput["execution"], extra: Partial<AttentionRunInput> = {}): AttentionRunInput {
  counter += 1;
  return {
    workflow_id: `wf-${counter}`,
    run_id: `run-${counter}`,
    execution: { status: "waiting", is_terminal: false, ...execution },
    ...extra,
  };
}

const retrying = (type: string, minutes: number, failures: AttentionRunInput["recent_failures"] = []) =>
  run(
    {
      workflow_type: "orders.checkout",
      liveness_state: "activity_task_ready",
      wait_kind: "activity",
      last_progress_at: minutesAgo(minutes),
    },
    {
      pending_activities: [
        { activity_execution_id: `act-${type}-${minutes}`, activity_type: type, status: "pending", attempt_count: 2 },
      ],
      recent_failures: failures,
    },
  );

describe("failureGroups", () => {
  it("groups by cause × workflow type × activity × category × non_retryable, most severe cause first", () => {
    const runs = [
      run(
        {
          workflow_type: "orders.checkout",
          liveness_state: "repair_needed",
          wait_kind: "activity",
          last_progress_at: minutesAgo(30),
        },
        {
          pending_activities: [
            { activity_execution_id: "a1", activity_type: "ChargeCard", status: "running", attempt_count: 1 },
          ],
        },
      ),
      run(
        {
          workflow_type: "orders.checkout",
          liveness_state: "repair_needed",
          wait_kind: "activity",
          last_progress_at: minutesAgo(90),
        },
        {
          pending_activities: [
            { activity_execution_id: "a2", activity_type: "ChargeCard", status: "running", attempt_count: 1 },
          ],
        },
      ),
      retrying("ChargeCard", 5),
      retrying("ChargeCard", 12),
      retrying("ReserveInventory", 3),
      run(
        {
          workflow_type: "billing.invoice",
          liveness_state: "workflow_replay_blocked",
          last_progress_at: minutesAgo(240),
        },
        {
          recent_failures: [
            {
              failure_id: "f1",
              failure_category: "task_failure",
              non_retryable: false,
              handled: false,
              created_at: minutesAgo(240),
            },
          ],
        },
      ),
      run({
        workflow_type: "billing.invoice",
        liveness_state: "workflow_task_waiting_for_compatible_worker",
        last_progress_at: minutesAgo(10),
      }),
      run({
        workflow_type: "billing.invoice",
        liveness_state: "activity_task_claim_failed",
        last_progress_at: minutesAgo(8),
      }),
    ];
    const groups = failureGroups(runs, { now });
    expect(
      groups.map((group) => [group.cause, group.workflowType, group.activityType, group.failureCategory, group.count]),
    ).toEqual([
      ["repair_needed", "orders.checkout", "ChargeCard", null, 2],
      ["replay_blocked", "billing.invoice", null, "task_failure", 1],
      ["compatibility_blocked", "billing.invoice", null, null, 1],
      ["claim_failed", "billing.invoice", null, null, 1],
      ["activity_retrying", "orders.checkout", "ChargeCard", null, 2],
      ["activity_retrying", "orders.checkout", "ReserveInventory", null, 1],
    ]);
    const stuck = groups[0]!;
    expect(stuck).toMatchObject({
      oldestSince: minutesAgo(90),
      oldestAgeMs: 90 * 60_000,
      newestAt: minutesAgo(30),
      nonRetryable: null,
    });
    expect(stuck.samples).toEqual([
      { workflowId: runs[1]!.workflow_id, runId: runs[1]!.run_id },
      { workflowId: runs[0]!.workflow_id, runId: runs[0]!.run_id },
    ]);
    expect(groups[1]!.nonRetryable).toBe(false);
  });

  it("splits by failure_category and non_retryable of the activity's failure", () => {
    const groups = failureGroups(
      [
        retrying("ChargeCard", 5, [
          {
            failure_id: "f1",
            source_id: "act-ChargeCard-5",
            failure_category: "activity",
            non_retryable: true,
            created_at: minutesAgo(5),
          },
        ]),
        retrying("ChargeCard", 6, [
          {
            failure_id: "f2",
            source_id: "act-ChargeCard-6",
            failure_category: "activity",
            non_retryable: false,
            created_at: minutesAgo(6),
          },
        ]),
        retrying("ChargeCard", 7, [
          {
            failure_id: "f3",
            source_id: "someone-else",
            failure_category: "timeout",
            non_retryable: false,
            created_at: minutesAgo(7),
          },
        ]),
      ],
      { now },
    );
    // Equal counts: the group that has waited longest comes first.
    expect(groups.map((group) => [group.failureCategory, group.nonRetryable, group.count])).toEqual([
      [null, null, 1],
      ["activity", false, 1],
      ["activity", true, 1],
    ]);
  });

  it("counts runs, not activities, and keeps only the sample size", () => {
    const many = Array.from({ length: 5 }, (_, index) => retrying("ChargeCard", 10 + index));
    const twoActivities = run(
      {
        workflow_type: "orders.checkout",
        liveness_state: "activity_task_ready",
        wait_kind: "activity",
        last_progress_at: minutesAgo(1),
      },
      {
        pending_activities: [
          { activity_execution_id: "x1", activity_type: "ChargeCard", status: "pending", attempt_count: 1 },
          { activity_execution_id: "x2", activity_type: "ChargeCard", status: "pending", attempt_count: 3 },
        ],
      },
    );
    const group = failureGroups([...many, twoActivities], { now, sampleSize: 2 })[0]!;
    expect(group.count).toBe(6);
    expect(group.samples.map((sample) => sample.workflowId)).toEqual([many[4]!.workflow_id, many[3]!.workflow_id]);
    expect(group.oldestAgeMs).toBe(14 * 60_000);
  });

  it("flags long waits past the threshold and ignores healthy, closed and fresh runs", () => {
    const groups = failureGroups(
      [
        run({
          workflow_type: "approvals.expense",
          liveness_state: "waiting_for_signal",
          wait_kind: "signal",
          last_progress_at: minutesAgo(180),
        }),
        run({
          workflow_type: "approvals.expense",
          liveness_state: "waiting_for_signal",
          wait_kind: "signal",
          last_progress_at: minutesAgo(20),
        }),
        run({
          workflow_type: "approvals.expense",
          liveness_state: "activity_task_leased",
          wait_kind: null,
          last_progress_at: minutesAgo(500),
        }),
        run({
          workflow_type: "orders.checkout",
          status: "failed",
          is_terminal: true,
          liveness_state: "closed",
          last_progress_at: minutesAgo(5),
        }),
        run({ workflow_type: "orders.checkout", status: "completed", liveness_state: "repair_needed" }),
      ],
      { now },
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({
      cause: "long_wait",
      workflowType: "approvals.expense",
      count: 1,
      oldestAgeMs: 180 * 60_000,
    });
    expect(
      failureGroups(
        [run({ liveness_state: "waiting_for_signal", wait_kind: "signal", last_progress_at: minutesAgo(20) })],
        { now, longWaitMs: 10 * 60_000 },
      ),
    ).toHaveLength(1);
  });
});
