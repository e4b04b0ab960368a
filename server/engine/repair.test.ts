import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { CpHarness } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { blob, ScriptedWorker, startWorkerHarness, typesOf } from "../http/test-support";
import { refreshStaleSummaries } from "./repair-pass";
import { repairBackoffSeconds } from "./task-health";

const CONTRACTS = fileURLToPath(new URL("../../contracts", import.meta.url));

const LEASE_MS = 300_000;

async function runWithActivity(h: CpHarness, w: ScriptedWorker, workflowId: string): Promise<string> {
  h.engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: "orders.process",
    task_queue: w.queue,
  });
  const t = await w.mustPollWorkflow();
  await w.completeWorkflow(t, [{ type: "schedule_activity", activity_type: "orders.ship", arguments: blob(["x"]) }]);
  return t.run_id;
}

function taskRow(
  h: CpHarness,
  id: string,
): { status: string; repair_count: number; repair_available_at: number | null } {
  return h.db.prepare("SELECT status, repair_count, repair_available_at FROM workflow_tasks WHERE id = ?").get(id) as {
    status: string;
    repair_count: number;
    repair_available_at: number | null;
  };
}

describe("repair", () => {
  let h: CpHarness;
  let w: ScriptedWorker;
  beforeEach(async () => {
    ({ h, worker: w } = await startWorkerHarness({ workerId: "repair-worker", start: startCpHarness }));
  });
  afterEach(async () => {
    await h.close();
  });

  test("lost activity transport: repair_needed → manual repair → repair_dispatched → the run completes", async () => {
    const runId = await runWithActivity(h, w, "lost-1");
    const lost = await w.mustPollActivity();
    let debug = await cp(h.url, "/workflows/lost-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("activity_task_leased");

    h.clock.advance(LEASE_MS + 1_000);
    // Debug reads the stored summary (WorkflowRunDiagnostics.php@11d35b7): until the sweep refreshes
    // it the run still reads leased, while the lease expiry itself is evaluated now.
    debug = await cp(h.url, "/workflows/lost-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("activity_task_leased");
    expect(debug.body.pending_activities?.[0]?.current_attempt?.lease_expired).toBe(true);
    expect(list(debug.body.findings).map((f) => f.code)).toContain("expired_leases");
    expect(refreshStaleSummaries(h.engine, h.clock.now())).toBe(1);
    debug = await cp(h.url, "/workflows/lost-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("repair_needed");
    expect(String(debug.body.execution?.liveness_reason)).toContain(`Activity task ${lost.task_id} lease expired at`);
    // No task_problem / repair_attention flag for an activity lease, so the real status is the open work.
    expect(debug.body.diagnostic_status).toBe("pending_work");
    // Workflow tasks only: the expired activity task is the summary's next task, not a pending workflow task.
    expect(list(debug.body.pending_workflow_tasks)).toEqual([]);
    expect(debug.body.execution?.next_scheduled_event).toMatchObject({
      source: "run_summary",
      task_id: lost.task_id,
      task_type: "activity",
      task_status: "leased",
    });

    const repair = await cp(h.url, "/workflows/lost-1/repair", { body: { request_id: "repair-1" } });
    expect(repair.status).toBe(200);
    expect(repair.body.outcome).toBe("repair_dispatched");
    expect(repair.body.command_status).toBe("accepted");
    expect(repair.body.control_plane?.outcome).toBe("repair_dispatched");
    const event = (
      h.db
        .prepare(
          "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'RepairRequested'",
        )
        .get(runId) as { payload: string }
    ).payload;
    expect(JSON.parse(event)).toMatchObject({
      command_type: "repair",
      outcome: "repair_dispatched",
      liveness_state: "repair_needed",
      wait_kind: "activity",
      task_id: lost.task_id,
      task_type: "activity",
    });
    expect(taskRow(h, lost.task_id)).toMatchObject({ status: "ready", repair_count: 1 });
    const expired = h.db.prepare("SELECT status FROM activity_attempts WHERE id = ?").get(lost.activity_attempt_id) as {
      status: string;
    };
    expect(expired.status).toBe("expired");
    const command = h.db
      .prepare("SELECT command_type, status, outcome, request_id FROM workflow_commands WHERE id = ?")
      .get(repair.body.command_id) as Record<string, unknown>;
    expect(command).toEqual({
      command_type: "repair",
      status: "accepted",
      outcome: "repair_dispatched",
      request_id: "repair-1",
    });

    debug = await cp(h.url, "/workflows/lost-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("activity_task_ready");
    expect(debug.body.execution?.task_problem).toBe(false);

    const late = await w.completeActivity(lost);
    expect(late.body.recorded).toBe(false);
    const again = await w.mustPollActivity();
    expect(again.attempt_number).toBe(2);
    await w.completeActivity(again);
    const t = await w.mustPollWorkflow();
    await w.completeWorkflow(t, [{ type: "complete_workflow", result: blob("ok") }]);
    const done = await cp(h.url, "/workflows/lost-1");
    expect(done.body.status).toBe("completed");
    expect(typesOf(h.db, runId)).toEqual([
      "StartAccepted",
      "WorkflowStarted",
      "ActivityScheduled",
      "ActivityStarted",
      "RepairRequested",
      "ActivityStarted",
      "ActivityCompleted",
      "WorkflowCompleted",
    ]);
  });

  test("repair of a healthy run is repair_not_needed and still recorded", async () => {
    const runId = await runWithActivity(h, w, "healthy-1");
    const r = await cp(h.url, "/workflows/healthy-1/repair", { method: "POST" });
    expect(r.status).toBe(200);
    expect(r.body.outcome).toBe("repair_not_needed");
    const payload = JSON.parse(
      (
        h.db
          .prepare(
            "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'RepairRequested'",
          )
          .get(runId) as { payload: string }
      ).payload,
    ) as Record<string, unknown>;
    expect(payload.outcome).toBe("repair_not_needed");
    expect(payload.liveness_state).toBe("activity_task_ready");
    expect(payload.task_id).toBeNull();
    const timeline = await cp(h.url, `/workflows/healthy-1/runs/${runId}/history/export`);
    const entry = list(timeline.body.timeline).find((e) => String(e.type) === "RepairRequested");
    expect(entry?.summary).toBe("Repair accepted; the run already had a durable resume source.");
    expect(entry?.kind).toBe("command");
  });

  test("missing transport is found by the pass, recreated with no history, and the run completes", async () => {
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "missing-1",
      workflow_type: "orders.process",
      task_queue: "default",
    });
    const runId = String((await cp(h.url, "/workflows/missing-1")).body.run_id);
    const lostTaskId = (
      h.db.prepare("SELECT id FROM workflow_tasks WHERE workflow_run_id = ?").get(runId) as { id: string }
    ).id;
    h.db.prepare("DELETE FROM workflow_tasks WHERE workflow_run_id = ?").run(runId);
    // The stored summary still names the task; debug shows the synthetic row for it (summaryMissingWorkflowTaskRow, @11d35b7).
    let debug = await cp(h.url, "/workflows/missing-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("workflow_task_ready");
    expect(debug.body.pending_workflow_tasks?.[0]).toMatchObject({
      task_id: `missing:workflow:${lostTaskId}`,
      expected_task_id: lostTaskId,
      status: "missing",
      transport_state: "missing",
      task_missing: true,
      synthetic: true,
    });
    expect(refreshStaleSummaries(h.engine, h.clock.now())).toBe(1);
    debug = await cp(h.url, "/workflows/missing-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("repair_needed");
    expect(debug.body.execution?.liveness_reason).toBe("Run is non-terminal but has no durable next-resume source.");
    expect(list(debug.body.pending_workflow_tasks)).toEqual([]);
    const eventsBefore = typesOf(h.db, runId).length;

    const pass = await cp(h.url, "/system/repair/pass", { body: {} });
    expect(pass.status).toBe(200);
    expect(pass.body).toMatchObject({
      selected_missing_task_candidates: 1,
      repaired_missing_tasks: 1,
      dispatched_tasks: 1,
      existing_task_failures: [],
      missing_run_failures: [],
    });
    expect(typesOf(h.db, runId)).toHaveLength(eventsBefore);
    expect(
      (h.db.prepare("SELECT COUNT(*) AS n FROM workflow_commands WHERE command_type = 'repair'").get() as { n: number })
        .n,
    ).toBe(0);
    const task = h.db
      .prepare("SELECT task_type, status, repair_count FROM workflow_tasks WHERE workflow_run_id = ?")
      .get(runId);
    expect(task).toEqual({ task_type: "workflow", status: "ready", repair_count: 1 });

    const t = await w.mustPollWorkflow();
    await w.completeWorkflow(t, [{ type: "complete_workflow", result: blob("ok") }]);
    expect((await cp(h.url, "/workflows/missing-1")).body.status).toBe("completed");
  });

  test("the sweep selects at most scan_limit candidates, fairly across queues; status validates against the contract", async () => {
    const wa = new ScriptedWorker(h.url, "wa", "queue-a");
    const wb = new ScriptedWorker(h.url, "wb", "queue-b");
    await wa.register();
    await wb.register();
    for (let i = 0; i < 30; i += 1) {
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: `fair-a-${i}`,
        workflow_type: "t",
        task_queue: "queue-a",
      });
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: `fair-b-${i}`,
        workflow_type: "t",
        task_queue: "queue-b",
      });
      await h.engine.pollWorkflowTask("default", "wa", "queue-a", 100);
      await h.engine.pollWorkflowTask("default", "wb", "queue-b", 100);
    }
    h.clock.advance(LEASE_MS + 1_000);
    const status = await cp(h.url, "/system/repair");
    expect(status.status).toBe(200);
    const c = status.body.candidates;
    expect(c?.existing_task_candidates).toBe(60);
    expect(c?.selected_existing_task_candidates).toBe(25);
    expect(c?.scan_pressure).toBe(true);
    expect(c?.existing_task_scan_limit_reached).toBe(true);
    expect(
      list(c?.scopes).map((s) => [
        s.queue,
        s.existing_task_candidates,
        s.selected_existing_task_candidates,
        s.scan_limited_by_global_policy,
      ]),
    ).toEqual([
      ["queue-a", 30, 13, true],
      ["queue-b", 30, 12, true],
    ]);
    expect(c?.max_task_candidate_age_ms).toBe(LEASE_MS + 1_000);

    {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats.default(ajv);
      const validate = ajv.compile(
        JSON.parse(readFileSync(`${CONTRACTS}/repair-actionability-objects.schema.json`, "utf8")) as object,
      );
      validate(status.body);
      expect(validate.errors ?? []).toEqual([]);
    }

    const pass = await cp(h.url, "/system/repair/pass", { body: {} });
    expect(pass.body.selected_existing_task_candidates).toBe(25);
    expect(pass.body.repaired_existing_tasks).toBe(25);
    const after = await cp(h.url, "/system/repair");
    expect(after.body.candidates?.existing_task_candidates).toBe(35);
    const perQueue = h.db
      .prepare(
        "SELECT queue, COUNT(*) AS n FROM workflow_tasks WHERE status = 'ready' AND repair_count = 1 GROUP BY queue ORDER BY queue",
      )
      .all() as { queue: string; n: number }[];
    expect(perQueue).toEqual([
      { queue: "queue-a", n: 13 },
      { queue: "queue-b", n: 12 },
    ]);
  });

  test("automatic repair backs off 3 s doubling by repair_count, capped at 60 s", async () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(repairBackoffSeconds)).toEqual([3, 6, 12, 24, 48, 60, 60, 60]);
    h.engine.startWorkflow({ namespace: "default", workflow_id: "claim-1", workflow_type: "t", task_queue: "default" });
    const runId = String((await cp(h.url, "/workflows/claim-1")).body.run_id);
    const taskId = (
      h.db.prepare("SELECT id FROM workflow_tasks WHERE workflow_run_id = ?").get(runId) as { id: string }
    ).id;
    const failClaim = (): void => {
      h.db
        .prepare(
          "UPDATE workflow_tasks SET last_claim_failed_at = ?, last_claim_error = 'backend rejected the claim' WHERE id = ?",
        )
        .run(h.clock.now(), taskId);
    };
    failClaim();
    // A write outside the engine: the stored liveness is unchanged, the task row's own flags are read now.
    const claimDebug = (await cp(h.url, "/workflows/claim-1/debug")).body;
    expect(claimDebug.execution?.liveness_state).toBe("workflow_task_ready");
    expect(claimDebug.pending_workflow_tasks?.[0]).toMatchObject({
      task_id: taskId,
      claim_failed: true,
      last_claim_error: "backend rejected the claim",
    });
    let pass = await cp(h.url, "/system/repair/pass", { body: { run_ids: [runId] } });
    expect(pass.body.repaired_existing_tasks).toBe(1);
    expect(taskRow(h, taskId)).toMatchObject({ repair_count: 1, repair_available_at: h.clock.now() + 3_000 });

    failClaim();
    pass = await cp(h.url, "/system/repair/pass", { body: { run_ids: [runId] } });
    expect(pass.body.selected_existing_task_candidates).toBe(0);
    h.clock.advance(3_000);
    pass = await cp(h.url, "/system/repair/pass", { body: { run_ids: [runId] } });
    expect(pass.body.repaired_existing_tasks).toBe(1);
    expect(taskRow(h, taskId)).toMatchObject({ repair_count: 2, repair_available_at: h.clock.now() + 6_000 });
    expect(typesOf(h.db, runId)).toEqual(["StartAccepted", "WorkflowStarted"]);
  });
});
