/**
 * Search attributes (migration 13). `search_attribute_definitions` is the real server's registry
 * table (durable-workflow/server database/migrations/0001_01_01_000005_create_search_attribute_definitions_table.php
 * @11d35b7: namespace, name, type, unique per namespace). `workflow_search_attributes` is the typed
 * projection the engine keeps for visibility queries (workflow docs/search-attributes-architecture.md
 * @8dc90d64: one row per run and key, a typed value column each, indexed by key and value).
 *
 * Here the projection is kept by triggers from `workflow_runs.search_attributes` (the JSON map the
 * engine already writes at start, upsert and continue-as-new), so no engine path can forget it. A
 * string fills `value_string`, and `value_keyword` when at most 255 bytes (the engine's keyword
 * limit); a string that reads as an ISO-8601 date also fills `value_datetime` (epoch ms), so a
 * definition registered after the values were written still compares them by its type.
 */
const PROJECT = (run: string) => `INSERT INTO workflow_search_attributes
  (workflow_run_id, namespace, key, value_keyword, value_string, value_int, value_float, value_bool, value_datetime, value_keyword_list)
  SELECT ${run}.id, ${run}.namespace, j.key,
    CASE WHEN j.type = 'text' AND length(CAST(j.value AS BLOB)) <= 255 THEN j.value END,
    CASE WHEN j.type = 'text' THEN j.value END,
    CASE WHEN j.type = 'integer' THEN j.value END,
    CASE WHEN j.type IN ('integer', 'real') THEN j.value END,
    CASE WHEN j.type IN ('true', 'false') THEN j.value END,
    CASE WHEN j.type = 'text' AND j.value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
      THEN CAST(round((julianday(j.value) - 2440587.5) * 86400000) AS INTEGER) END,
    CASE WHEN j.type = 'array' THEN j.value END
  FROM json_each(${run}.search_attributes) j WHERE j.type <> 'null'`;

export const SEARCH_ATTRIBUTE_TABLES_SQL = `
CREATE TABLE search_attribute_definitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (namespace, name)
);
CREATE TABLE workflow_search_attributes (
  workflow_run_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value_keyword TEXT,
  value_string TEXT,
  value_int INTEGER,
  value_float REAL,
  value_bool INTEGER,
  value_datetime INTEGER,
  value_keyword_list TEXT,
  PRIMARY KEY (workflow_run_id, key)
) WITHOUT ROWID;
CREATE INDEX workflow_search_attributes_keyword ON workflow_search_attributes (namespace, key, value_keyword);
CREATE INDEX workflow_search_attributes_int ON workflow_search_attributes (namespace, key, value_int);
CREATE INDEX workflow_search_attributes_float ON workflow_search_attributes (namespace, key, value_float);
CREATE INDEX workflow_search_attributes_bool ON workflow_search_attributes (namespace, key, value_bool);
CREATE INDEX workflow_search_attributes_datetime ON workflow_search_attributes (namespace, key, value_datetime);
CREATE TRIGGER workflow_runs_search_attributes_insert AFTER INSERT ON workflow_runs
  WHEN NEW.search_attributes IS NOT NULL BEGIN
  ${PROJECT("NEW")};
END;
CREATE TRIGGER workflow_runs_search_attributes_update AFTER UPDATE OF search_attributes ON workflow_runs
  WHEN OLD.search_attributes IS NOT NEW.search_attributes BEGIN
  DELETE FROM workflow_search_attributes WHERE workflow_run_id = NEW.id;
  ${PROJECT("NEW")};
END;
CREATE TRIGGER workflow_runs_search_attributes_delete AFTER DELETE ON workflow_runs BEGIN
  DELETE FROM workflow_search_attributes WHERE workflow_run_id = OLD.id;
END;
${PROJECT("r")
  .replace("FROM json_each(r.search_attributes) j", "FROM workflow_runs r, json_each(r.search_attributes) j")
  .replace("WHERE j.type", "WHERE r.search_attributes IS NOT NULL AND j.type")};
`;
