import type { Db } from "../store/db";

/**
 * Row deletion shared by history retention and namespace deletion. Like the real cleanups, each
 * table is touched only when this database has it and the column (Schema::hasTable/hasColumn in
 * durable-workflow/server NamespaceLifecycleCleanup.php@45db1e9), so tables other slices add later
 * under the real names are cleaned without this file knowing them.
 */

const columnCache = new WeakMap<Db, Map<string, Set<string>>>();

/** Column names of `table`, or an empty set when the table does not exist. */
export function columnsOf(db: Db, table: string): Set<string> {
  let byTable = columnCache.get(db);
  if (!byTable) {
    byTable = new Map();
    columnCache.set(db, byTable);
  }
  let cols = byTable.get(table);
  if (!cols) {
    const rows = db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[];
    cols = new Set(rows.map((r) => r.name));
    // A missing table is not cached: a later migration in this process may create it.
    if (cols.size > 0) byTable.set(table, cols);
  }
  return cols;
}

/** Deletes rows of `table` whose value in any of `columns` (those the table has) is `value`. */
export function deleteWhereAny(db: Db, table: string, columns: readonly string[], value: string): number {
  const present = columns.filter((c) => columnsOf(db, table).has(c));
  if (present.length === 0) return 0;
  const where = present.map((c) => `"${c}" = @value`).join(" OR ");
  return db.prepare(`DELETE FROM "${table}" WHERE ${where}`).run({ value }).changes;
}

/**
 * The run-scoped tables `WorkflowRunRetentionCleanup::pruneRun` empties (durable-workflow/workflow@8dc90d6
 * src/V2/Support/WorkflowRunRetentionCleanup.php), in its order, with its report keys and the
 * columns it matches on. `worker_registrations` etc. are not here: they belong to the namespace.
 */
export const RUN_DETAIL_TABLES: readonly { key: string; table: string; columns: readonly string[] }[] = [
  { key: "activity_attempts_deleted", table: "activity_attempts", columns: ["workflow_run_id"] },
  {
    key: "updates_deleted",
    table: "workflow_updates",
    columns: ["workflow_run_id", "requested_workflow_run_id", "resolved_workflow_run_id"],
  },
  {
    key: "signals_deleted",
    table: "workflow_signal_records",
    columns: ["workflow_run_id", "requested_workflow_run_id", "resolved_workflow_run_id"],
  },
  { key: "messages_deleted", table: "workflow_messages", columns: ["workflow_run_id"] },
  { key: "child_calls_deleted", table: "workflow_child_calls", columns: ["parent_workflow_run_id"] },
  { key: "links_deleted", table: "workflow_links", columns: ["parent_workflow_run_id", "child_workflow_run_id"] },
  { key: "activity_executions_deleted", table: "activity_executions", columns: ["workflow_run_id"] },
  {
    key: "commands_deleted",
    table: "workflow_commands",
    columns: ["workflow_run_id", "requested_workflow_run_id", "resolved_workflow_run_id"],
  },
  { key: "failures_deleted", table: "workflow_failures", columns: ["workflow_run_id"] },
  { key: "child_projection_repairs_deleted", table: "workflow_child_projection_repairs", columns: ["workflow_run_id"] },
  { key: "run_waits_deleted", table: "workflow_run_waits", columns: ["workflow_run_id"] },
  { key: "timeline_entries_deleted", table: "workflow_run_timeline_entries", columns: ["workflow_run_id"] },
  { key: "run_timer_entries_deleted", table: "workflow_run_timer_entries", columns: ["workflow_run_id"] },
  { key: "run_lineage_entries_deleted", table: "workflow_run_lineage_entries", columns: ["workflow_run_id"] },
  { key: "timers_deleted", table: "workflow_run_timers", columns: ["workflow_run_id"] },
  { key: "memos_deleted", table: "workflow_memos", columns: ["workflow_run_id"] },
  { key: "search_attributes_deleted", table: "workflow_search_attributes", columns: ["workflow_run_id"] },
  { key: "history_events_deleted", table: "workflow_history_events", columns: ["workflow_run_id"] },
  { key: "tasks_deleted", table: "workflow_tasks", columns: ["workflow_run_id"] },
];

/**
 * Deletes a closed run's detail rows and its summary, keeping the run row itself (`run_deleted`
 * stays 0 in the engine's report too). The caller holds the transaction.
 */
export function pruneRunRows(db: Db, runId: string): Record<string, number> {
  const report: Record<string, number> = { run_deleted: 0 };
  for (const { key, table, columns } of RUN_DETAIL_TABLES) report[key] = deleteWhereAny(db, table, columns, runId);
  report.run_summary_deleted = db.prepare("DELETE FROM workflow_run_summaries WHERE id = ?").run(runId).changes;
  return Object.fromEntries(Object.entries(report).sort(([a], [b]) => a.localeCompare(b)));
}
