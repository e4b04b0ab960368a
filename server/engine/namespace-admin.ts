import type { Db } from "../store/db";
import { EngineError } from "./errors";
import { columnsOf, deleteWhereAny, RUN_DETAIL_TABLES } from "./run-cleanup";

/**
 * Namespace lifecycle as durable-workflow/server does it: create / update / external storage
 * (NamespaceController.php@11d35b7) and delete with its runtime state (the newer
 * NamespaceController::destroy + app/Support/NamespaceLifecycleCleanup.php@45db1e9). Validation
 * happens in the route; these write.
 */

export interface ExternalStoragePolicy {
  driver: string;
  enabled: boolean;
  threshold_bytes?: number;
  config?: Record<string, string>;
}

export interface NamespaceRecord {
  name: string;
  description: string | null;
  retention_days: number;
  status: string;
  external_payload_storage: ExternalStoragePolicy | null;
  created_at: number;
  updated_at: number;
}

interface NamespaceRowRaw extends Omit<NamespaceRecord, "external_payload_storage"> {
  external_payload_storage: string | null;
}

export function readNamespace(db: Db, name: string): NamespaceRecord | null {
  const row = db.prepare("SELECT * FROM namespaces WHERE name = ?").get(name) as NamespaceRowRaw | undefined;
  if (!row) return null;
  return {
    ...row,
    external_payload_storage: row.external_payload_storage
      ? (JSON.parse(row.external_payload_storage) as ExternalStoragePolicy)
      : null,
  };
}

/** `DW_HISTORY_RETENTION_DAYS` (config/server.php `history.retention_days`), 30 when unset. */
export function defaultRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DW_HISTORY_RETENTION_DAYS ?? env.WORKFLOW_HISTORY_RETENTION_DAYS;
  const n = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(n) ? n : 30;
}

export function createNamespace(
  db: Db,
  now: number,
  input: { name: string; description: string | null; retention_days: number | null },
): NamespaceRecord {
  const name = input.name.toLowerCase();
  if (readNamespace(db, name))
    throw new EngineError(409, "namespace_already_exists", "Namespace already exists.", { namespace: name });
  db.prepare(
    "INSERT INTO namespaces (name, description, retention_days, status, created_at, updated_at) VALUES (?, ?, ?, 'active', ?, ?)",
  ).run(name, input.description, input.retention_days ?? defaultRetentionDays(), now, now);
  return readNamespace(db, name) as NamespaceRecord;
}

function mustRead(db: Db, name: string): NamespaceRecord {
  const ns = readNamespace(db, name);
  if (!ns) throw new EngineError(404, "namespace_not_found", `Namespace [${name}] not found.`, { namespace: name });
  return ns;
}

/** Only the fields given non-null change (`array_filter($validated, fn ($v) => $v !== null)`). */
export function updateNamespace(
  db: Db,
  now: number,
  name: string,
  input: { description?: string | null; retention_days?: number | null },
): NamespaceRecord {
  const ns = mustRead(db, name);
  const description = input.description ?? ns.description;
  const retention = input.retention_days ?? ns.retention_days;
  // Eloquent touches updated_at only when an attribute actually changed.
  if (description !== ns.description || retention !== ns.retention_days)
    db.prepare("UPDATE namespaces SET description = ?, retention_days = ?, updated_at = ? WHERE name = ?").run(
      description,
      retention,
      now,
      ns.name,
    );
  return mustRead(db, ns.name);
}

export function setExternalStorage(db: Db, now: number, name: string, policy: ExternalStoragePolicy): NamespaceRecord {
  const ns = mustRead(db, name);
  db.prepare("UPDATE namespaces SET external_payload_storage = ?, updated_at = ? WHERE name = ?").run(
    JSON.stringify(policy),
    now,
    ns.name,
  );
  return mustRead(db, ns.name);
}

/** Tables emptied by namespace, in NamespaceLifecycleCleanup's order; the twin's names where they differ. */
const BY_NAMESPACE: readonly { key: string; table: string }[] = [
  { key: "workflow_schedule_history_events", table: "workflow_schedule_history_events" },
  { key: "workflow_schedules", table: "workflow_schedules" },
  { key: "workflow_service_operations", table: "workflow_service_operations" },
  { key: "workflow_services", table: "workflow_services" },
  { key: "workflow_service_endpoints", table: "workflow_service_endpoints" },
  { key: "workflow_worker_compatibility_heartbeats", table: "workflow_worker_compatibility_heartbeats" },
  { key: "workflow_worker_sessions", table: "workflow_worker_sessions" },
  { key: "workflow_worker_build_id_rollouts", table: "workflow_worker_build_id_rollouts" },
  { key: "workflow_worker_registrations", table: "worker_registrations" },
  { key: "search_attribute_definitions", table: "search_attribute_definitions" },
  { key: "workflow_durable_stream_items", table: "workflow_durable_stream_items" },
  { key: "workflow_durable_streams", table: "workflow_durable_streams" },
];

/** Deletes rows of `table` whose value in any of `columns` (those it has) is among `sql`'s ids. */
function deleteWhereAnyIn(db: Db, table: string, columns: readonly string[], sql: string, param: string): number {
  const present = columns.filter((c) => columnsOf(db, table).has(c));
  if (present.length === 0) return 0;
  const where = present.map((c) => `"${c}" IN (${sql})`).join(" OR ");
  return db.prepare(`DELETE FROM "${table}" WHERE ${where}`).run({ p: param }).changes;
}

const NS_RUNS = "SELECT id FROM workflow_runs WHERE namespace = @p";
const NS_INSTANCES =
  "SELECT id FROM workflow_instances WHERE namespace = @p UNION SELECT workflow_instance_id FROM workflow_runs WHERE namespace = @p";

/**
 * Deletes the namespace and every runtime record it owns, in one transaction; answers
 * `{name, status: "deleted", deleted}` with the counts above zero, keyed by table as the real
 * cleanup reports them. There is no refusal for a namespace that still has runs, open or closed:
 * the real server cleans them up with it.
 */
export function deleteNamespace(
  db: Db,
  name: string,
): { name: string; status: "deleted"; deleted: Record<string, number> } {
  const normalized = name.toLowerCase();
  return db.transaction(() => {
    mustRead(db, normalized);
    const deleted: Record<string, number> = {};
    const add = (key: string, n: number) => {
      if (n > 0) deleted[key] = (deleted[key] ?? 0) + n;
    };
    // Run-scoped rows first, while the run and instance rows that name them still exist.
    for (const { table, columns } of RUN_DETAIL_TABLES) {
      add(table, deleteWhereAnyIn(db, table, columns, NS_RUNS, normalized));
      add(
        table,
        deleteWhereAnyIn(db, table, ["workflow_instance_id", "parent_workflow_instance_id"], NS_INSTANCES, normalized),
      );
      add(table, deleteWhereAny(db, table, ["namespace"], normalized));
    }
    for (const { key, table } of BY_NAMESPACE) add(key, deleteWhereAny(db, table, ["namespace"], normalized));
    add("workflow_run_summaries", deleteWhereAny(db, "workflow_run_summaries", ["namespace"], normalized));
    add("workflow_runs", deleteWhereAny(db, "workflow_runs", ["namespace"], normalized));
    add("workflow_instances", deleteWhereAny(db, "workflow_instances", ["namespace"], normalized));
    // The summary counters' delete triggers leave zeroed rows behind; a recreated namespace starts clean.
    db.prepare("DELETE FROM workflow_run_summary_counts WHERE namespace = ?").run(normalized);
    db.prepare("DELETE FROM namespaces WHERE name = ?").run(normalized);
    return { name: normalized, status: "deleted" as const, deleted };
  })();
}
