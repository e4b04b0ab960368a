import { CORE_TABLES_SQL } from "./core-tables";
import { SEARCH_ATTRIBUTE_TABLES_SQL } from "./search-attribute-tables";

/**
 * Durable schema of the embedded server, modelled on the Durable Workflow v2 tables
 * (see ../shared/research/v2-model.md §0.1). Deviations, all deliberate:
 *  - every *_at column is INTEGER epoch milliseconds (the HTTP layer renders ISO-8601);
 *  - JSON columns are TEXT holding JSON; booleans are INTEGER 0/1;
 *  - payload columns (arguments, output, result, payload) hold the codec blob as text, with the
 *    codec in the sibling *_codec column, exactly as the real server stores them.
 * Migrations are append-only: add a new entry, never edit a shipped one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: "core_tables",
    sql: CORE_TABLES_SQL,
  },
  {
    // Control plane: indexes the summary projection and the read paths need, and aggregate
    // counters kept by triggers so operator_metrics never scans a million summaries per request.
    version: 2,
    name: "control_plane_indexes_and_counters",
    sql: `
CREATE INDEX activity_executions_run_status ON activity_executions (workflow_run_id, status);
CREATE INDEX workflow_history_events_waits ON workflow_history_events (workflow_run_id, sequence)
  WHERE event_type IN ('SignalWaitOpened', 'SignalApplied', 'ConditionWaitOpened', 'ConditionWaitSatisfied', 'ConditionWaitTimedOut');
CREATE INDEX workflow_tasks_created ON workflow_tasks (created_at);
CREATE INDEX workflow_tasks_leased_at ON workflow_tasks (leased_at);
CREATE INDEX workflow_run_summaries_instance ON workflow_run_summaries (namespace, workflow_instance_id, run_number);
CREATE INDEX workflow_run_summaries_repair_needed ON workflow_run_summaries (namespace, updated_at) WHERE liveness_state = 'repair_needed';
CREATE INDEX workflow_run_summaries_waiting ON workflow_run_summaries (namespace, wait_started_at) WHERE status_bucket = 'running' AND wait_started_at IS NOT NULL;
CREATE INDEX workflow_run_summaries_pending ON workflow_run_summaries (namespace, sort_timestamp) WHERE status = 'pending';

CREATE TABLE workflow_run_summary_counts (
  namespace TEXT NOT NULL,
  dim TEXT NOT NULL,
  val TEXT NOT NULL,
  n INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (namespace, dim, val)
) WITHOUT ROWID;

CREATE TRIGGER workflow_run_summary_counts_insert AFTER INSERT ON workflow_run_summaries BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'total', '', 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'status', NEW.status, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'current', '', (NEW.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'archived', '', (NEW.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'liveness', COALESCE(NEW.liveness_state, ''), 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'waiting', '', (NEW.status_bucket = 'running' AND NEW.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'pressure', NEW.history_budget_pressure, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_size_bytes', '', NEW.history_size_bytes) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_fan_out', '', NEW.history_fan_out) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;

CREATE TRIGGER workflow_run_summary_counts_update AFTER UPDATE ON workflow_run_summaries BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'total', '', -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'status', OLD.status, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'current', '', -(OLD.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'archived', '', -(OLD.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'liveness', COALESCE(OLD.liveness_state, ''), -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'waiting', '', -(OLD.status_bucket = 'running' AND OLD.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'pressure', OLD.history_budget_pressure, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'events', '', -OLD.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'total', '', 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'status', NEW.status, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'current', '', (NEW.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'archived', '', (NEW.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'liveness', COALESCE(NEW.liveness_state, ''), 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'waiting', '', (NEW.status_bucket = 'running' AND NEW.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'pressure', NEW.history_budget_pressure, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_size_bytes', '', NEW.history_size_bytes) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_fan_out', '', NEW.history_fan_out) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;

CREATE TRIGGER workflow_run_summary_counts_delete AFTER DELETE ON workflow_run_summaries BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'total', '', -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'status', OLD.status, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'current', '', -(OLD.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'archived', '', -(OLD.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'liveness', COALESCE(OLD.liveness_state, ''), -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'waiting', '', -(OLD.status_bucket = 'running' AND OLD.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'pressure', OLD.history_budget_pressure, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'events', '', -OLD.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_attempt_counts_insert AFTER INSERT ON activity_attempts WHEN NEW.status = 'failed' BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n)
    VALUES (COALESCE((SELECT namespace FROM workflow_runs WHERE id = NEW.workflow_run_id), 'default'), 'failed_attempts', '', 1)
    ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER activity_attempt_counts_update AFTER UPDATE OF status ON activity_attempts WHEN (OLD.status = 'failed') != (NEW.status = 'failed') BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n)
    VALUES (COALESCE((SELECT namespace FROM workflow_runs WHERE id = NEW.workflow_run_id), 'default'), 'failed_attempts', '', CASE WHEN NEW.status = 'failed' THEN 1 ELSE -1 END)
    ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_attempt_counts_delete AFTER DELETE ON activity_attempts WHEN OLD.status = 'failed' BEGIN
  UPDATE workflow_run_summary_counts SET n = n - 1
    WHERE namespace = COALESCE((SELECT namespace FROM workflow_runs WHERE id = OLD.workflow_run_id), 'default') AND dim = 'failed_attempts' AND val = '';
END;

INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'total', '', COUNT(*) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'status', status, COUNT(*) FROM workflow_run_summaries GROUP BY namespace, status;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'current', '', SUM(is_current_run = 1) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'archived', '', SUM(archived_at IS NOT NULL) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'liveness', COALESCE(liveness_state, ''), COUNT(*) FROM workflow_run_summaries GROUP BY namespace, COALESCE(liveness_state, '');
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'waiting', '', SUM(status_bucket = 'running' AND wait_started_at IS NOT NULL) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'pressure', history_budget_pressure, COUNT(*) FROM workflow_run_summaries GROUP BY namespace, history_budget_pressure;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'events', '', SUM(history_event_count) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'max_events', '', MAX(history_event_count) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'max_size_bytes', '', MAX(history_size_bytes) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) SELECT namespace, 'max_fan_out', '', MAX(history_fan_out) FROM workflow_run_summaries GROUP BY namespace;
INSERT INTO workflow_run_summary_counts (namespace, dim, val, n)
  SELECT COALESCE(r.namespace, 'default'), 'failed_attempts', '', COUNT(*) FROM activity_attempts a LEFT JOIN workflow_runs r ON r.id = a.workflow_run_id
  WHERE a.status = 'failed' GROUP BY COALESCE(r.namespace, 'default');
`,
  },
  {
    // Engine sweeps: partial indexes so timeouts, timers and the deadline watchdog read only open,
    // deadline-carrying rows instead of scanning every run or activity once a second.
    version: 3,
    name: "engine_sweep_indexes",
    sql: `
CREATE INDEX workflow_runs_open_execution_deadline ON workflow_runs (execution_deadline_at)
  WHERE status IN ('pending','running','waiting') AND execution_deadline_at IS NOT NULL;
CREATE INDEX workflow_runs_open_run_deadline ON workflow_runs (run_deadline_at)
  WHERE status IN ('pending','running','waiting') AND run_deadline_at IS NOT NULL;
CREATE INDEX activity_executions_open_schedule_to_close ON activity_executions (schedule_to_close_deadline_at)
  WHERE status IN ('pending','running') AND schedule_to_close_deadline_at IS NOT NULL;
CREATE INDEX activity_executions_pending_schedule_deadline ON activity_executions (schedule_deadline_at)
  WHERE status = 'pending' AND schedule_deadline_at IS NOT NULL;
CREATE INDEX activity_executions_running_close_deadline ON activity_executions (close_deadline_at)
  WHERE status = 'running' AND close_deadline_at IS NOT NULL;
CREATE INDEX activity_executions_running_heartbeat_deadline ON activity_executions (heartbeat_deadline_at)
  WHERE status = 'running' AND heartbeat_deadline_at IS NOT NULL;
CREATE INDEX workflow_tasks_ready_timers ON workflow_tasks (available_at) WHERE task_type = 'timer' AND status = 'ready';
`,
  },
  {
    // Control plane: the repair sweep's rotating check of open runs whose summary names a next task
    // that is no longer open reads this partial index instead of scanning every summary.
    version: 4,
    name: "summaries_open_next_task",
    sql: `
CREATE INDEX workflow_run_summaries_open_next_task ON workflow_run_summaries (id, next_task_id)
  WHERE status_bucket = 'running' AND next_task_id IS NOT NULL;
`,
  },
  {
    // Control plane: trigram full-text index behind the workflow list's `query` substring search,
    // so a rare substring over a million runs is an index lookup instead of a scan. Kept by
    // triggers; the update trigger fires only when the indexed text changes.
    version: 5,
    name: "workflow_run_search",
    sql: `
CREATE VIRTUAL TABLE workflow_run_search USING fts5(
  workflow_instance_id, business_key, content = 'workflow_run_summaries', content_rowid = 'rowid', tokenize = 'trigram'
);
INSERT INTO workflow_run_search (rowid, workflow_instance_id, business_key)
  SELECT rowid, workflow_instance_id, business_key FROM workflow_run_summaries;
CREATE TRIGGER workflow_run_search_insert AFTER INSERT ON workflow_run_summaries BEGIN
  INSERT INTO workflow_run_search (rowid, workflow_instance_id, business_key) VALUES (NEW.rowid, NEW.workflow_instance_id, NEW.business_key);
END;
CREATE TRIGGER workflow_run_search_update AFTER UPDATE OF workflow_instance_id, business_key ON workflow_run_summaries
  WHEN OLD.workflow_instance_id IS NOT NEW.workflow_instance_id OR OLD.business_key IS NOT NEW.business_key BEGIN
  INSERT INTO workflow_run_search (workflow_run_search, rowid, workflow_instance_id, business_key)
    VALUES ('delete', OLD.rowid, OLD.workflow_instance_id, OLD.business_key);
  INSERT INTO workflow_run_search (rowid, workflow_instance_id, business_key) VALUES (NEW.rowid, NEW.workflow_instance_id, NEW.business_key);
END;
CREATE TRIGGER workflow_run_search_delete AFTER DELETE ON workflow_run_summaries BEGIN
  INSERT INTO workflow_run_search (workflow_run_search, rowid, workflow_instance_id, business_key)
    VALUES ('delete', OLD.rowid, OLD.workflow_instance_id, OLD.business_key);
END;
`,
  },
  {
    // Engine hot path: the summary counters' update trigger ran 19 upserts on every summary write,
    // although a transition changes one or two counted values at most. One trigger per counter,
    // each firing only when its value (or the namespace) changes, keeps the same totals: a
    // counter whose value is unchanged would have been decremented and re-incremented on the
    // same row, and a max counter already holds every value it saw.
    version: 6,
    name: "summary_counts_update_on_change",
    sql: `
DROP TRIGGER workflow_run_summary_counts_update;
CREATE TRIGGER workflow_run_summary_counts_update_total AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR 0 BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'total', '', -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'total', '', 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_status AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.status IS NOT NEW.status BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'status', OLD.status, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'status', NEW.status, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_current AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR (OLD.is_current_run = 1) IS NOT (NEW.is_current_run = 1) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'current', '', -(OLD.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'current', '', (NEW.is_current_run = 1)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_archived AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR (OLD.archived_at IS NOT NULL) IS NOT (NEW.archived_at IS NOT NULL) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'archived', '', -(OLD.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'archived', '', (NEW.archived_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_liveness AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR COALESCE(OLD.liveness_state, '') IS NOT COALESCE(NEW.liveness_state, '') BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'liveness', COALESCE(OLD.liveness_state, ''), -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'liveness', COALESCE(NEW.liveness_state, ''), 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_waiting AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR (OLD.status_bucket = 'running' AND OLD.wait_started_at IS NOT NULL) IS NOT (NEW.status_bucket = 'running' AND NEW.wait_started_at IS NOT NULL) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'waiting', '', -(OLD.status_bucket = 'running' AND OLD.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'waiting', '', (NEW.status_bucket = 'running' AND NEW.wait_started_at IS NOT NULL)) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_pressure AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.history_budget_pressure IS NOT NEW.history_budget_pressure BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'pressure', OLD.history_budget_pressure, -1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'pressure', NEW.history_budget_pressure, 1) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_events AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.history_event_count IS NOT NEW.history_event_count BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'events', '', -OLD.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_max_events AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.history_event_count IS NOT NEW.history_event_count BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
CREATE TRIGGER workflow_run_summary_counts_update_max_size_bytes AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.history_size_bytes IS NOT NEW.history_size_bytes BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_size_bytes', '', NEW.history_size_bytes) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
CREATE TRIGGER workflow_run_summary_counts_update_max_fan_out AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace OR OLD.history_fan_out IS NOT NEW.history_fan_out BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_fan_out', '', NEW.history_fan_out) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
`,
  },
  {
    // Repair's missing-task candidates (repair.ts missingCandidates, read by every operator-metrics
    // call) sorted up to 10,000 rows through a temp B-tree after a table lookup per row. This
    // partial index holds exactly those rows, already in `since, id` order, and covers the
    // selected columns, so the query is one ordered index scan with no table access.
    version: 7,
    name: "summary_repair_missing_candidates",
    sql: `
CREATE INDEX workflow_run_summaries_repair_missing ON workflow_run_summaries
  (COALESCE(wait_started_at, started_at, created_at), id, connection, queue, compatibility)
  WHERE liveness_state = 'repair_needed' AND next_task_id IS NULL AND status IN ('pending', 'running', 'waiting');
`,
  },
  {
    // Control plane: the workflow list's `query` search walks the list in order for common terms
    // and terms under 3 characters. Through workflow_run_summaries_list every entry visited cost a
    // table lookup at a random rowid (~3 µs over a million runs); this index carries the two
    // searched columns, so LIKE is checked on the entry and only matching rows are read.
    version: 8,
    name: "summary_list_search",
    sql: `
CREATE INDEX workflow_run_summaries_search ON workflow_run_summaries (namespace, sort_key, workflow_instance_id, business_key);
`,
  },
  {
    // Engine hot path: history grows in almost every transition, so these three counters fired on
    // nearly every summary write — two upserts for the event total (−old, +new) and one each for
    // the two maxima, which stop changing once the longest run is counted. Same totals with one
    // delta upsert, and the maxima written only when the new value exceeds the one stored
    // (a failed lookup reads as −1, so the first value is always written).
    version: 9,
    name: "summary_counts_fewer_history_upserts",
    sql: `
DROP TRIGGER workflow_run_summary_counts_update_events;
CREATE TRIGGER workflow_run_summary_counts_update_events_moved AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NOT NEW.namespace BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (OLD.namespace, 'events', '', -OLD.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER workflow_run_summary_counts_update_events_delta AFTER UPDATE ON workflow_run_summaries
  WHEN OLD.namespace IS NEW.namespace AND OLD.history_event_count IS NOT NEW.history_event_count BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'events', '', NEW.history_event_count - OLD.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = n + excluded.n;
END;
DROP TRIGGER workflow_run_summary_counts_update_max_events;
CREATE TRIGGER workflow_run_summary_counts_update_max_events AFTER UPDATE ON workflow_run_summaries
  WHEN (OLD.namespace IS NOT NEW.namespace OR OLD.history_event_count IS NOT NEW.history_event_count)
    AND NEW.history_event_count > COALESCE((SELECT n FROM workflow_run_summary_counts WHERE namespace = NEW.namespace AND dim = 'max_events' AND val = ''), -1) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_events', '', NEW.history_event_count) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
DROP TRIGGER workflow_run_summary_counts_update_max_size_bytes;
CREATE TRIGGER workflow_run_summary_counts_update_max_size_bytes AFTER UPDATE ON workflow_run_summaries
  WHEN (OLD.namespace IS NOT NEW.namespace OR OLD.history_size_bytes IS NOT NEW.history_size_bytes)
    AND NEW.history_size_bytes > COALESCE((SELECT n FROM workflow_run_summary_counts WHERE namespace = NEW.namespace AND dim = 'max_size_bytes' AND val = ''), -1) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_size_bytes', '', NEW.history_size_bytes) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
DROP TRIGGER workflow_run_summary_counts_update_max_fan_out;
CREATE TRIGGER workflow_run_summary_counts_update_max_fan_out AFTER UPDATE ON workflow_run_summaries
  WHEN (OLD.namespace IS NOT NEW.namespace OR OLD.history_fan_out IS NOT NEW.history_fan_out)
    AND NEW.history_fan_out > COALESCE((SELECT n FROM workflow_run_summary_counts WHERE namespace = NEW.namespace AND dim = 'max_fan_out' AND val = ''), -1) BEGIN
  INSERT INTO workflow_run_summary_counts (namespace, dim, val, n) VALUES (NEW.namespace, 'max_fan_out', '', NEW.history_fan_out) ON CONFLICT (namespace, dim, val) DO UPDATE SET n = MAX(n, excluded.n);
END;
`,
  },
  {
    // Worker registration: the per-type command contracts an external worker declares
    // (sdk-python@b15778e `workflow_command_contracts`), copied into WorkflowStarted by a
    // control-plane start so signal admission has a durable contract (server@205c046).
    version: 10,
    name: "worker_command_contracts",
    sql: `
ALTER TABLE worker_registrations ADD COLUMN workflow_command_contracts TEXT;
`,
  },
  {
    // Cooperative cancellation: the run's one accepted request, its cleanup deadline and the call
    // it was delivered at, as the engine keeps them on the run (workflow@0ef75d3
    // CooperativeCancellationDelivery.php `cancellation_request_command_id`, `cancellation_deadline_at`,
    // `cancellation_delivery_sequence`); the index is the sweep's way to the expired ones.
    version: 11,
    name: "cooperative_cancellation",
    sql: `
ALTER TABLE workflow_runs ADD COLUMN cancellation_request_command_id TEXT;
ALTER TABLE workflow_runs ADD COLUMN cancellation_requested_at INTEGER;
ALTER TABLE workflow_runs ADD COLUMN cancellation_deadline_at INTEGER;
ALTER TABLE workflow_runs ADD COLUMN cancellation_delivery_sequence INTEGER;
ALTER TABLE workflow_runs ADD COLUMN cancellation_delivered_at INTEGER;
CREATE INDEX workflow_runs_open_cancellation_deadline ON workflow_runs (cancellation_deadline_at)
  WHERE status IN ('pending','running','waiting') AND cancellation_deadline_at IS NOT NULL;
`,
  },
  {
    // Schedules and their audit stream, after the engine's tables (durable-workflow/workflow
    // src/migrations/2026_04_14_000157_create_workflow_schedules_table.php and
    // 2026_04_16_000180_create_workflow_schedule_history_events_table.php @797aa6f, the package
    // commit server@11d35b7 locks): one row per (namespace, schedule_id), spec/action as JSON,
    // lifecycle in typed columns; history sequence unique per schedule.
    version: 12,
    name: "schedules",
    sql: `
CREATE TABLE workflow_schedules (
  id TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  spec TEXT NOT NULL,
  action TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active',
  overlap_policy TEXT NOT NULL DEFAULT 'skip',
  note TEXT,
  memo TEXT,
  search_attributes TEXT,
  jitter_seconds INTEGER NOT NULL DEFAULT 0,
  max_runs INTEGER,
  remaining_actions INTEGER,
  fires_count INTEGER NOT NULL DEFAULT 0,
  failures_count INTEGER NOT NULL DEFAULT 0,
  recent_actions TEXT,
  buffered_actions TEXT,
  last_fired_at INTEGER,
  next_fire_at INTEGER,
  latest_workflow_instance_id TEXT,
  paused_at INTEGER,
  deleted_at INTEGER,
  last_skip_reason TEXT,
  last_skipped_at INTEGER,
  skipped_trigger_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX workflow_schedules_namespace_schedule ON workflow_schedules (namespace, schedule_id);
CREATE INDEX workflow_schedules_ns_created ON workflow_schedules (namespace, created_at);
CREATE INDEX workflow_schedules_due ON workflow_schedules (status, next_fire_at);
CREATE TABLE workflow_schedule_history_events (
  id TEXT PRIMARY KEY,
  workflow_schedule_id TEXT NOT NULL,
  schedule_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  workflow_instance_id TEXT,
  workflow_run_id TEXT,
  recorded_at INTEGER NOT NULL,
  UNIQUE (workflow_schedule_id, sequence)
);
CREATE INDEX workflow_schedule_history_run ON workflow_schedule_history_events (workflow_run_id);
`,
  },
  {
    // Search attributes: the real server's registry table and the engine's typed projection the
    // list's visibility queries read, kept by triggers from workflow_runs (search-attribute-tables.ts).
    version: 13,
    name: "search_attributes",
    sql: SEARCH_ATTRIBUTE_TABLES_SQL,
  },
  {
    // Namespaces: the external payload storage policy as the real server keeps it on the namespace
    // (server@11d35b7 database/migrations/2026_04_22_000100_add_external_payload_storage_to_workflow_namespaces.php,
    // JSON), and the retention scan's way to a namespace's closed runs oldest-closed first
    // (HistoryRetentionEnforcer::expiredRunIds) without reading every summary.
    version: 14,
    name: "namespace_storage_and_retention",
    sql: `
ALTER TABLE namespaces ADD COLUMN external_payload_storage TEXT;
CREATE INDEX workflow_run_summaries_retention ON workflow_run_summaries (namespace, closed_at)
  WHERE status_bucket IN ('completed', 'failed') AND closed_at IS NOT NULL AND archived_at IS NULL;
`,
  },
  {
    // Worker status: what the SDKs send at registration and on every heartbeat and the real server keeps
    // on the registration (durable-workflow/server WorkerManagementController.php after @c6de4c3 `workerSummary`):
    // free task slots per family, the process metrics as reported (JSON), the advertised cadence, the
    // declared capabilities, the session concurrency and the definition fingerprints.
    version: 15,
    name: "worker_status",
    sql: `
ALTER TABLE worker_registrations ADD COLUMN available_workflow_slots INTEGER;
ALTER TABLE worker_registrations ADD COLUMN available_activity_slots INTEGER;
ALTER TABLE worker_registrations ADD COLUMN available_session_slots INTEGER;
ALTER TABLE worker_registrations ADD COLUMN max_concurrent_worker_sessions INTEGER;
ALTER TABLE worker_registrations ADD COLUMN process_metrics TEXT;
ALTER TABLE worker_registrations ADD COLUMN heartbeat_interval_seconds INTEGER;
ALTER TABLE worker_registrations ADD COLUMN capabilities TEXT;
ALTER TABLE worker_registrations ADD COLUMN workflow_definition_fingerprints TEXT;
`,
  },
  {
    // Worker versioning: the operator's rollout intent per (namespace, task queue, build id) as the real
    // server keeps it (server@11d35b7 database/migrations/2026_04_22_000200_create_workflow_worker_build_id_rollouts_table.php:
    // build_id '' is the unversioned cohort so the unique index holds; promoted_at and rolled_back_at as
    // the newer DeploymentLifecycleService writes them). Times in epoch ms. A registration or heartbeat of
    // a draining cohort's worker stays `draining` (WorkerController::workerRegistrationStatus@11d35b7:
    // "the drain intent cannot be clobbered by ordinary polling traffic"), kept here by two triggers
    // so every path that writes `status = 'active'` obeys it.
    version: 16,
    name: "build_id_rollouts",
    sql: `
CREATE TABLE workflow_worker_build_id_rollouts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  task_queue TEXT NOT NULL,
  build_id TEXT NOT NULL DEFAULT '',
  drain_intent TEXT NOT NULL DEFAULT 'active',
  drained_at INTEGER,
  promoted_at INTEGER,
  rolled_back_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (namespace, task_queue, build_id)
);
CREATE TRIGGER worker_registrations_draining_cohort_insert AFTER INSERT ON worker_registrations
WHEN NEW.status = 'active' AND EXISTS (SELECT 1 FROM workflow_worker_build_id_rollouts r WHERE r.namespace = NEW.namespace
  AND r.task_queue = NEW.task_queue AND r.build_id = COALESCE(TRIM(NEW.build_id), '') AND r.drain_intent = 'draining')
BEGIN
  UPDATE worker_registrations SET status = 'draining' WHERE namespace = NEW.namespace AND worker_id = NEW.worker_id;
END;
CREATE TRIGGER worker_registrations_draining_cohort_update AFTER UPDATE ON worker_registrations
WHEN NEW.status = 'active' AND EXISTS (SELECT 1 FROM workflow_worker_build_id_rollouts r WHERE r.namespace = NEW.namespace
  AND r.task_queue = NEW.task_queue AND r.build_id = COALESCE(TRIM(NEW.build_id), '') AND r.drain_intent = 'draining')
BEGIN
  UPDATE worker_registrations SET status = 'draining' WHERE namespace = NEW.namespace AND worker_id = NEW.worker_id;
END;
`,
  },
];
