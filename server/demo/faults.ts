import type { Db } from "../store/db";
import { refreshRunSummary } from "../engine/summary";

/**
 * Fault injection: the run's open task transport disappears (a lost queue message, a row wiped by
 * a bad migration). The durable state still says the run waits on a timer / activity / workflow
 * task, but nothing will ever deliver it, so the run projects `repair_needed` until an operator
 * (or the repair pass) recreates the task. Returns how many task rows were removed.
 */
export function loseTransport(db: Db, runId: string, now: number = Date.now()): number {
  return db.transaction(() => {
    const removed = db
      .prepare("DELETE FROM workflow_tasks WHERE workflow_run_id = ? AND status = 'ready'")
      .run(runId).changes;
    refreshRunSummary(db, runId, now);
    return removed;
  })();
}

/** Resolves once the run has a ready task of `taskType` (e.g. its timer is scheduled), or false after `timeoutMs`. */
export async function waitForReadyTask(db: Db, runId: string, taskType: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const query = db.prepare(
    "SELECT 1 FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = ? AND status = 'ready' LIMIT 1",
  );
  while (Date.now() < deadline) {
    if (query.get(runId, taskType)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
