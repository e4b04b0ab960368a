import type { Db } from "../store/db";
import { defaultRetentionDays, readNamespace } from "./namespace-admin";
import { pruneRunRows } from "./run-cleanup";

/**
 * History retention as durable-workflow/server@11d35b7 app/Support/HistoryRetentionEnforcer.php
 * does it: a namespace's closed runs (status bucket completed or failed — cancelled and
 * terminated are in `failed`) closed before now minus its retention days, not archived, oldest
 * closed first, at most 100 per scan; a pass prunes each run's detail rows and its summary
 * (workflow@8dc90d6 WorkflowRunRetentionCleanup::pruneRun), skipping with the engine's reasons.
 */

const DAY_MS = 86_400_000;
export const RETENTION_SCAN_MAX = 100;

export function retentionDays(db: Db, namespace: string): number {
  return readNamespace(db, namespace)?.retention_days ?? defaultRetentionDays();
}

export function retentionCutoff(db: Db, namespace: string, now: number): number {
  return now - retentionDays(db, namespace) * DAY_MS;
}

export function expiredRunIds(db: Db, namespace: string, now: number, limit: number): string[] {
  const bounded = Math.max(1, Math.min(RETENTION_SCAN_MAX, limit));
  return (
    db
      .prepare(
        `SELECT id FROM workflow_run_summaries
         WHERE namespace = ? AND status_bucket IN ('completed', 'failed') AND closed_at IS NOT NULL AND archived_at IS NULL
           AND closed_at < ?
         ORDER BY closed_at LIMIT ?`,
      )
      .all(namespace, retentionCutoff(db, namespace, now), bounded) as { id: string }[]
  ).map((r) => r.id);
}

const TERMINAL = new Set(["completed", "failed", "cancelled", "terminated"]);

type PruneResult = { pruned: true; deleted: Record<string, number> } | { pruned: false; reason: string };

function pruneRun(db: Db, namespace: string, runId: string): PruneResult {
  const summary = db
    .prepare("SELECT status, archived_at FROM workflow_run_summaries WHERE id = ? AND namespace = ?")
    .get(runId, namespace) as { status: string; archived_at: number | null } | undefined;
  if (!summary) return { pruned: false, reason: "run_not_found" };
  if (!TERMINAL.has(summary.status)) return { pruned: false, reason: "run_not_terminal" };
  if (summary.archived_at !== null) return { pruned: false, reason: "run_archived" };
  // The twin stores no payload externally, so there is never an external payload to delete first.
  return { pruned: true, deleted: db.transaction(() => pruneRunRows(db, runId))() };
}

/** `POST /api/system/retention/pass` (HistoryRetentionEnforcer::runPass). */
export function runRetentionPass(db: Db, namespace: string, now: number, limit: number, runIds: string[]) {
  const ids = runIds.length === 0 ? expiredRunIds(db, namespace, now, limit) : runIds;
  const results: Record<string, unknown>[] = [];
  let pruned = 0;
  let skipped = 0;
  let failed = 0;
  for (const runId of ids) {
    try {
      const r = pruneRun(db, namespace, runId);
      if (r.pruned) {
        pruned++;
        results.push({
          run_id: runId,
          outcome: "pruned",
          history_events_deleted: r.deleted.history_events_deleted ?? 0,
          tasks_deleted: r.deleted.tasks_deleted ?? 0,
          external_payloads_deleted: 0,
          deleted: r.deleted,
        });
      } else {
        skipped++;
        results.push({ run_id: runId, outcome: "skipped", reason: r.reason });
      }
    } catch (error) {
      failed++;
      results.push({ run_id: runId, outcome: "error", reason: (error as Error).message });
    }
  }
  return { processed: ids.length, pruned, skipped, failed, results };
}
