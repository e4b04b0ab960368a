import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, startWorkerHarness, typesOf } from "../http/test-support";

let h: Harness;
let worker: Worker;

beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

async function parkedOnActivity(): Promise<string> {
  const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "lease.wf", task_queue: "default" });
  const task = await worker.mustPollWorkflow();
  await worker.completeWorkflow(task, [{ type: "schedule_activity", activity_type: "work", arguments: blob([1]) }]);
  return start.run_id as string;
}

function taskRow(id: string): { status: string; repair_count: number; attempt_count: number } {
  return h.db.prepare("SELECT status, repair_count, attempt_count FROM workflow_tasks WHERE id = ?").get(id) as {
    status: string;
    repair_count: number;
    attempt_count: number;
  };
}

function attemptStatus(id: string): string {
  return (h.db.prepare("SELECT status FROM activity_attempts WHERE id = ?").get(id) as { status: string }).status;
}

describe("activity leases and redelivery", () => {
  it.each(["complete", "fail"] as const)(
    "expiry → redelivery as attempt 2 → a late %s from attempt 1 is stale and writes no history",
    async (lateReport) => {
      const runId = await parkedOnActivity();
      const first = await worker.mustPollActivity();
      h.advance(299);
      expect(taskRow(first.task_id).status).toBe("leased");
      h.advance(1);
      expect(attemptStatus(first.activity_attempt_id)).toBe("expired");
      expect(taskRow(first.task_id)).toMatchObject({ status: "ready", repair_count: 1 });

      // Reported before the redelivery is claimed: already stale.
      const early =
        lateReport === "complete"
          ? await worker.completeActivity(first)
          : await worker.failActivity(first, { message: "late" });
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ outcome: "ignored", recorded: false, reason: "stale_attempt" });

      const second = await worker.mustPollActivity();
      expect(second.task_id).toBe(first.task_id);
      expect(second.attempt_number).toBe(2);
      expect(second.activity_attempt_id).not.toBe(first.activity_attempt_id);
      const before = typesOf(h.db, runId);
      const late =
        lateReport === "complete"
          ? await worker.completeActivity(first)
          : await worker.failActivity(first, { message: "late", non_retryable: true });
      expect(late.body).toMatchObject({ recorded: false, reason: "stale_attempt" });
      expect(typesOf(h.db, runId)).toEqual(before);
      expect(attemptStatus(second.activity_attempt_id)).toBe("running");

      expect((await worker.completeActivity(second)).body).toMatchObject({ recorded: true });
      const types = typesOf(h.db, runId);
      expect(types.filter((t) => t === "ActivityStarted")).toHaveLength(2);
      expect(types.filter((t) => t === "ActivityCompleted" || t === "ActivityFailed")).toEqual(["ActivityCompleted"]);
    },
  );

  it("heartbeats renew the lease", async () => {
    await parkedOnActivity();
    const task = await worker.mustPollActivity();
    h.advance(200);
    expect((await worker.heartbeatActivity(task)).body).toMatchObject({ can_continue: true, heartbeat_recorded: true });
    h.advance(250);
    expect(attemptStatus(task.activity_attempt_id)).toBe("running");
    h.advance(50);
    expect(attemptStatus(task.activity_attempt_id)).toBe("expired");
    // A closed attempt's heartbeat is 200 can_continue false in the engine's words (`attempt_closed`),
    // which the SDK raises as ActivityLeaseAuthorityLost.
    const hb = await worker.heartbeatActivity(task);
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({
      can_continue: false,
      cancel_requested: false,
      reason: "attempt_closed",
      heartbeat_recorded: false,
    });
  });
});

describe("workflow task leases", () => {
  it("an expired workflow task is redelivered with repair_count + 1 and the old lease cannot complete it", async () => {
    const start = h.engine.startWorkflow({ namespace: "default", workflow_type: "lease.wf", task_queue: "default" });
    const first = await worker.mustPollWorkflow();
    h.advance(300);
    expect(taskRow(first.task_id)).toMatchObject({ status: "ready", repair_count: 1 });
    const refused = await worker.completeWorkflow(first, [{ type: "complete_workflow", result: blob(1) }]);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: "task_not_leased", recorded: false });
    const second = await worker.mustPollWorkflow();
    expect(second.workflow_task_attempt).toBe(2);
    const stale = await worker.completeWorkflow(first, [{ type: "complete_workflow", result: blob(1) }]);
    expect(stale.body).toMatchObject({ reason: "workflow_task_attempt_mismatch" });
    expect(typesOf(h.db, start.run_id as string)).toEqual(["StartAccepted", "WorkflowStarted"]);
    expect(
      (await worker.completeWorkflow(second, [{ type: "complete_workflow", result: blob(2) }])).body,
    ).toMatchObject({ outcome: "completed", recorded: true, run_status: "completed" });
  });

  it("a failed workflow task is retried by a new task after a backoff", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_type: "lease.wf", task_queue: "default" });
    const first = await worker.mustPollWorkflow();
    const failed = await worker.post(`/workflow-tasks/${first.task_id}/fail`, {
      lease_owner: first.lease_owner,
      workflow_task_attempt: 1,
      failure: { message: "replay diverged", type: "NonDeterminism" },
    });
    expect(failed.body).toMatchObject({ outcome: "failed", recorded: true });
    expect(await worker.pollWorkflow()).toBeNull();
    h.advance(2);
    const retry = await worker.mustPollWorkflow();
    expect(retry.task_id).toBe(failed.body.next_task_id);
    expect(retry.workflow_task_attempt).toBe(2);
  });
});
