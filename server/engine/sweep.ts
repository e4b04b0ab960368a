import { isoMicros } from "../clock";
import { timerEventKeys } from "./lifecycle";
import type { RunRow, TaskRow, TimerRow } from "./rows";
import { isTerminal } from "./rows";
import { releaseHeldSignals } from "./signal-delivery";
import type { Tx } from "./tx";
import { parseJson } from "./tx";
import { expiredDeadline } from "./workflow-tasks";

/**
 * Expired workflow-task leases: ready again with repair_count + 1 (the late worker's completion is
 * then refused), and the signals held during the lease go into history for the next claim.
 */
export function expireWorkflowLeases(tx: Tx): number {
  const runs = new Set<string>();
  const expired = tx.expireLeases("workflow", (task) => runs.add(task.workflow_run_id));
  for (const runId of runs) releaseHeldSignals(tx, runId);
  return expired;
}

/** Due timer tasks fire: TimerFired, the timer row `fired`, and a workflow resume task. */
export function fireTimers(tx: Tx): number {
  const tasks = tx.db
    .prepare(
      "SELECT * FROM workflow_tasks INDEXED BY workflow_tasks_ready_timers WHERE task_type = 'timer' AND status = 'ready' AND available_at IS NOT NULL AND available_at <= ? ORDER BY available_at LIMIT 500",
    )
    .all(tx.now) as TaskRow[];
  let fired = 0;
  for (const task of tasks) {
    tx.db
      .prepare("UPDATE workflow_tasks SET status = 'completed', leased_at = ?, updated_at = ? WHERE id = ?")
      .run(tx.now, tx.now, task.id);
    const timerId = (parseJson<Record<string, unknown>>(task.payload) ?? {}).timer_id;
    const timer =
      typeof timerId === "string"
        ? (tx.db.prepare("SELECT * FROM workflow_run_timers WHERE id = ?").get(timerId) as TimerRow | undefined)
        : undefined;
    const run = tx.run(task.workflow_run_id);
    if (!timer || timer.status !== "pending" || !run || isTerminal(run.status)) continue;
    tx.db
      .prepare("UPDATE workflow_run_timers SET status = 'fired', fired_at = ?, updated_at = ? WHERE id = ?")
      .run(tx.now, tx.now, timer.id);
    tx.appendEvent(
      run.id,
      "TimerFired",
      { ...timerEventKeys(tx, timer), fired_at: isoMicros(tx.now) },
      { taskId: task.id },
    );
    tx.ensureWorkflowTask(run, {
      resume_source_kind: "timer",
      resume_source_id: timer.id,
      timer_id: timer.id,
      workflow_sequence: timer.sequence,
      workflow_event_type: "TimerFired",
    });
    fired += 1;
  }
  return fired;
}

/**
 * The watchdog half of workflow deadlines: an open run past its execution or run deadline with no
 * open workflow task gets a `{reason: 'deadline_expired'}` task; claiming it enforces the timeout.
 */
export function createDeadlineTasks(tx: Tx): number {
  const byId = new Map<string, RunRow>();
  for (const sql of [
    "SELECT * FROM workflow_runs INDEXED BY workflow_runs_open_execution_deadline WHERE status IN ('pending','running','waiting') AND execution_deadline_at IS NOT NULL AND execution_deadline_at <= ? LIMIT 500",
    "SELECT * FROM workflow_runs INDEXED BY workflow_runs_open_run_deadline WHERE status IN ('pending','running','waiting') AND run_deadline_at IS NOT NULL AND run_deadline_at <= ? LIMIT 500",
  ]) {
    for (const row of tx.db.prepare(sql).all(tx.now) as RunRow[]) byId.set(row.id, row);
  }
  const hasOpenWorkflowTask = tx.db.prepare(
    "SELECT 1 FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status IN ('ready','leased') LIMIT 1",
  );
  const runs = [...byId.values()].filter((r) => !hasOpenWorkflowTask.get(r.id));
  for (const run of runs) {
    tx.createTask(run, "workflow", {
      reason: "deadline_expired",
      resume_source_kind: "workflow_run",
      resume_source_id: run.id,
      timeout_kind: expiredDeadline(run, tx.now),
    });
  }
  return runs.length;
}

/** Every (namespace, queue, kind) with a claimable task, so held long-polls re-check after time moved. */
export function dueQueues(tx: Tx): number {
  const rows = tx.db
    .prepare(
      "SELECT DISTINCT namespace, queue, task_type FROM workflow_tasks WHERE status = 'ready' AND task_type IN ('workflow','activity') AND available_at <= ?",
    )
    .all(tx.now) as { namespace: string; queue: string | null; task_type: "workflow" | "activity" }[];
  for (const r of rows) {
    const queue = r.queue ?? "default";
    tx.readyKeys.set(`${r.namespace}\u0000${queue}\u0000${r.task_type}`, {
      namespace: r.namespace,
      queue,
      kind: r.task_type,
    });
  }
  return rows.length;
}
