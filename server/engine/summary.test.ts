import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { CpHarness } from "../http/control-plane/test-support";
import { cp, startCpHarness } from "../http/control-plane/test-support";
import type { ScriptedWorker } from "../http/test-support";
import { blob, startWorkerHarness } from "../http/test-support";
import { refreshStaleSummaries } from "./repair-pass";
import type { RunSummary } from "./summary";
import { projectRunSummary } from "./summary";

function stored(h: CpHarness, runId: string): RunSummary {
  return h.db.prepare("SELECT * FROM workflow_run_summaries WHERE id = ?").get(runId) as RunSummary;
}

function liveness(h: CpHarness, runId: string): [string, string | null] {
  const s = stored(h, runId);
  return [s.liveness_state, s.wait_kind];
}

describe("run summary projection", () => {
  let h: CpHarness;
  let w: ScriptedWorker;
  beforeEach(async () => {
    ({ h, worker: w } = await startWorkerHarness({ workerId: "summary-worker", start: startCpHarness }));
  });
  afterEach(async () => {
    await h.close();
  });

  test("every transition re-projects liveness and wait in the documented order", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_id: "live-1", workflow_type: "t", task_queue: "default" });
    const runId = String((await cp(h.url, "/workflows/live-1")).body.run_id);
    expect(liveness(h, runId)).toEqual(["workflow_task_ready", "workflow-task"]);
    const t1 = await w.mustPollWorkflow();
    expect(liveness(h, runId)).toEqual(["workflow_task_leased", "workflow-task"]);
    expect(stored(h, runId).next_task_id).toBe(t1.task_id);

    await w.completeWorkflow(t1, [
      { type: "schedule_activity", activity_type: "a", retry_policy: { max_attempts: 2, backoff_seconds: [10] } },
    ]);
    expect(liveness(h, runId)).toEqual(["activity_task_ready", "activity"]);
    const a1 = await w.mustPollActivity();
    expect(liveness(h, runId)).toEqual(["activity_task_leased", "activity"]);
    await w.failActivity(a1, { message: "flaky" });
    const retrying = stored(h, runId);
    expect([retrying.liveness_state, retrying.wait_kind, retrying.next_task_type]).toEqual([
      "activity_task_ready",
      "activity",
      "activity",
    ]);
    expect(retrying.next_task_at).toBe(h.clock.now() + 10_000);
    h.clock.advance(10_000);
    const a2 = await w.mustPollActivity();
    await w.completeActivity(a2);
    expect(liveness(h, runId)).toEqual(["workflow_task_ready", "workflow-task"]);

    const t2 = await w.mustPollWorkflow();
    await w.completeWorkflow(t2, [{ type: "start_timer", delay_seconds: 60 }]);
    expect(liveness(h, runId)).toEqual(["timer_scheduled", "timer"]);
    expect(stored(h, runId).wait_deadline_at).toBe(h.clock.now() + 60_000);
    h.clock.advance(60_000);
    h.engine.sweep();
    const t3 = await w.mustPollWorkflow();
    await w.completeWorkflow(t3, [{ type: "open_signal_wait", signal_name: "approved" }]);
    expect(liveness(h, runId)).toEqual(["waiting_for_signal", "signal"]);
    expect(stored(h, runId).wait_reason).toBe("Waiting for signal approved");
    expect(stored(h, runId).repair_blocked_reason).toBe("repair_not_needed");

    await cp(h.url, "/workflows/live-1/signal/approved", { body: {} });
    expect(liveness(h, runId)).toEqual(["workflow_task_ready", "signal"]);
    const t4 = await w.mustPollWorkflow();
    await w.completeWorkflow(t4, [{ type: "complete_workflow", result: blob(1) }]);
    const closed = stored(h, runId);
    expect([closed.liveness_state, closed.liveness_reason, closed.wait_kind, closed.repair_blocked_reason]).toEqual([
      "closed",
      "Run closed as completed.",
      null,
      "run_closed",
    ]);
    expect(closed.status_bucket).toBe("completed");
    expect(closed.duration_ms).toBe(70_000);
  });

  test("a signal wait with a timeout ends when its timer fires", async () => {
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sigtimeout-1",
      workflow_type: "t",
      task_queue: "default",
    });
    const t1 = await w.mustPollWorkflow();
    await w.completeWorkflow(t1, [{ type: "open_signal_wait", signal_name: "approve", timeout_seconds: 30 }]);
    expect(liveness(h, t1.run_id)).toEqual(["timer_scheduled", "timer"]);
    h.clock.advance(30_000);
    h.engine.sweep();
    const t2 = await w.mustPollWorkflow();
    expect(liveness(h, t1.run_id)).toEqual(["workflow_task_leased", "workflow-task"]);
    await w.completeWorkflow(t2, [{ type: "schedule_activity", activity_type: "escalate" }]);
    expect(liveness(h, t1.run_id)).toEqual(["activity_task_ready", "activity"]);
    const a = await w.mustPollActivity();
    await w.completeActivity(a);
    const t3 = await w.mustPollWorkflow();
    h.db.prepare("DELETE FROM workflow_tasks WHERE id = ?").run(t3.task_id);
    // The timed-out signal wait is no durable wait any more: losing the workflow task leaves the run owed one.
    const s = projectRunSummary(h.db, t1.run_id, h.clock.now());
    expect([s?.liveness_state, s?.liveness_reason]).toEqual([
      "repair_needed",
      "Run is non-terminal but has no durable next-resume source.",
    ]);
  });

  test("a lease expiring with no transition: debug reads the stored summary, the sweep refreshes it", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_id: "lease-1", workflow_type: "t", task_queue: "default" });
    const t = await w.mustPollWorkflow();
    h.clock.advance(300_001);
    expect(stored(h, t.run_id).liveness_state).toBe("workflow_task_leased");
    expect(projectRunSummary(h.db, t.run_id, h.clock.now())?.liveness_state).toBe("repair_needed");
    // Stored, as WorkflowRunDiagnostics.php@11d35b7 reads it; the task row's lease state is evaluated now.
    let debug = await cp(h.url, "/workflows/lease-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("workflow_task_leased");
    expect(debug.body.pending_workflow_tasks?.[0]).toMatchObject({
      transport_state: "lease_expired",
      lease_expired: true,
      summary: "Workflow task lease expired; waiting for recovery.",
    });

    expect(refreshStaleSummaries(h.engine, h.clock.now())).toBe(1);
    debug = await cp(h.url, "/workflows/lease-1/debug");
    expect(debug.body.execution?.liveness_state).toBe("repair_needed");
    expect(debug.body.execution?.task_problem).toBe(true);
    expect(debug.body.execution?.task_problem_badge?.code).toBe("active");
    expect(debug.body.diagnostic_status).toBe("needs_attention");
    const s = stored(h, t.run_id);
    expect(s.liveness_state).toBe("repair_needed");
    expect(s.repair_blocked_reason).toBeNull();
    expect(s.task_problem).toBe(1);
    const metrics = await cp(h.url, "/system/operator-metrics");
    expect(metrics.body.operator_metrics?.runs?.repair_needed).toBe(1);
    expect(metrics.body.operator_metrics?.tasks?.lease_expired).toBe(1);
    expect(refreshStaleSummaries(h.engine, h.clock.now())).toBe(0);

    const repair = await cp(h.url, "/workflows/lease-1/repair", { body: {} });
    expect(repair.body.outcome).toBe("repair_dispatched");
    const after = stored(h, t.run_id);
    expect(after.liveness_state).toBe("workflow_task_ready");
    // Once repaired, the badge stays as history of the problem.
    expect(after.task_problem).toBe(1);
  });

  test("history counts and sizes accumulate incrementally and budget pressure follows thresholds", async () => {
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "budget-1",
      workflow_type: "t",
      task_queue: "default",
    });
    const runId = String((await cp(h.url, "/workflows/budget-1")).body.run_id);
    for (let i = 0; i < 5; i += 1) await cp(h.url, "/workflows/budget-1/signal/s", { body: { input: [i] } });
    const s = stored(h, runId);
    const full = h.db
      .prepare(
        "SELECT COUNT(*) AS n, SUM(LENGTH(COALESCE(payload, '')) + LENGTH(event_type)) AS b FROM workflow_history_events WHERE workflow_run_id = ?",
      )
      .get(runId) as { n: number; b: number };
    expect(s.history_event_count).toBe(full.n);
    expect(s.history_size_bytes).toBe(full.b);
    expect(s.history_budget_pressure).toBe("ok");
    const counts = new Map(
      (
        h.db
          .prepare("SELECT dim || ':' || val AS k, n FROM workflow_run_summary_counts WHERE namespace = 'default'")
          .all() as { k: string; n: number }[]
      ).map((r) => [r.k, r.n]),
    );
    expect(counts.get("events:")).toBe(full.n);
    expect(counts.get("total:")).toBe(1);
    expect(counts.get("liveness:workflow_task_ready")).toBe(1);
  });
  test("trigger-kept counters equal a recount of the summaries after a mixed workload", async () => {
    for (let i = 0; i < 4; i += 1)
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: `mix-${i}`,
        workflow_type: i % 2 === 0 ? "even" : "odd",
        task_queue: "default",
      });
    for (let i = 0; i < 3; i += 1) {
      const t = await w.mustPollWorkflow();
      await w.completeWorkflow(t, [
        { type: "schedule_activity", activity_type: "a", retry_policy: { max_attempts: 2, backoff_seconds: [0] } },
      ]);
    }
    const a1 = await w.mustPollActivity();
    await w.failActivity(a1, { message: "boom", type: "Boom" });
    const a2 = await w.mustPollActivity();
    await w.completeActivity(a2);
    const resumed = await w.mustPollWorkflow();
    await w.completeWorkflow(resumed, [{ type: "complete_workflow", result: blob("done") }]);
    h.engine.cancelWorkflow({ namespace: "default", workflow_id: "mix-3", reason: "stop" });
    h.engine.signalWorkflow({ namespace: "default", workflow_id: "mix-1", signal_name: "poke" });

    const counts = new Map(
      (
        h.db
          .prepare(
            "SELECT dim || ':' || val AS k, n FROM workflow_run_summary_counts WHERE namespace = 'default' AND n <> 0",
          )
          .all() as { k: string; n: number }[]
      ).map((r) => [r.k, r.n]),
    );
    const recount = new Map<string, number>();
    const add = (k: string, n: number): void => {
      if (n !== 0) recount.set(k, (recount.get(k) ?? 0) + n);
    };
    const rows = h.db.prepare("SELECT * FROM workflow_run_summaries WHERE namespace = 'default'").all() as RunSummary[];
    for (const r of rows) {
      add("total:", 1);
      add(`status:${r.status}`, 1);
      add("current:", r.is_current_run === 1 ? 1 : 0);
      add("archived:", r.archived_at !== null ? 1 : 0);
      add(`liveness:${r.liveness_state}`, 1);
      add("waiting:", r.status_bucket === "running" && r.wait_started_at !== null ? 1 : 0);
      add(`pressure:${r.history_budget_pressure}`, 1);
      add("events:", r.history_event_count);
    }
    // Event counts and sizes only grow, so their maxima are the current ones; fan-out shrinks as work
    // closes, and its counter keeps the highest value ever seen.
    recount.set("max_events:", Math.max(...rows.map((r) => r.history_event_count)));
    recount.set("max_size_bytes:", Math.max(...rows.map((r) => r.history_size_bytes)));
    expect(counts.get("max_fan_out:") ?? 0).toBeGreaterThanOrEqual(Math.max(...rows.map((r) => r.history_fan_out)));
    counts.delete("max_fan_out:");
    const failedAttempts = (
      h.db.prepare("SELECT COUNT(*) AS n FROM activity_attempts WHERE status = 'failed'").get() as { n: number }
    ).n;
    add("failed_attempts:", failedAttempts);
    expect(failedAttempts).toBe(1);
    expect(Object.fromEntries([...counts].sort())).toEqual(
      Object.fromEntries([...recount].filter(([, n]) => n !== 0).sort()),
    );
  });
});
