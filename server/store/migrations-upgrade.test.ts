import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FakeClock } from "../clock";
import { seedRuns } from "../demo/seed";
import { writeFiveKnownRuns } from "../test-support/known-runs";
import type { CpHarness } from "../http/control-plane/test-support";
import { startCpHarness } from "../http/control-plane/test-support";
import type { Db } from "./db";
import { migrate, openDb } from "./db";
import { migrations } from "./migrations";

/**
 * Every database an earlier release left behind must upgrade to exactly what a fresh one is. For each
 * version k below the latest: a file migrated to k receives the base rows of a live database (engine
 * scenarios over HTTP plus seeded runs) with k's triggers firing as they would have then, is opened
 * with `openDb` (which applies k+1 … latest), and must then equal the live database in schema, in
 * every base and derived table (trigger-kept counters included), and in what the search index finds.
 */

const LATEST = migrations[migrations.length - 1]!.version;
/** The FTS5 index and its shadow tables: compared by what a search returns, not byte by byte. */
const isSearchTable = (name: string): boolean => name.startsWith("workflow_run_search");

let h: CpHarness;
let dir: string;
let baseTables: string[];

async function writeScenarios(): Promise<void> {
  await writeFiveKnownRuns(h, { businessKeys: true });
  seedRuns(h.db, { runs: 300, now: h.clock.now(), batchSize: 100 });
}

/** Tables the first migration creates: everything else is derived by later migrations. */
function tablesOfFirstMigration(): string[] {
  const scratch = new Database(":memory:");
  migrate(scratch, new FakeClock(), migrations[0]!.version);
  const names = (
    scratch
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  scratch.close();
  return names;
}

function schemaOf(db: Db): { type: string; name: string; tbl_name: string; sql: string | null }[] {
  return db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
}

function columnsOf(db: Db, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map(
    (c) => `"${c.name}"`,
  );
}

/** Rows in a stable order; `columns` limits a base table to what the older release could write. */
function rowsOf(db: Db, table: string, columns: string[] = ["*"]): unknown[] {
  if (table === "schema_migrations")
    return db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all();
  // A counter that went back to zero and one never written mean the same thing.
  if (table === "workflow_run_summary_counts")
    return db.prepare("SELECT * FROM workflow_run_summary_counts WHERE n != 0 ORDER BY namespace, dim, val").all();
  // The search-attribute projection has no rowid; its key orders it.
  if (table === "workflow_search_attributes")
    return db.prepare("SELECT * FROM workflow_search_attributes ORDER BY workflow_run_id, key").all();
  return db.prepare(`SELECT ${columns.join(", ")} FROM "${table}" ORDER BY rowid`).all();
}

function searchHits(db: Db, term: string): number[] {
  return (
    db
      .prepare("SELECT rowid FROM workflow_run_search WHERE workflow_run_search MATCH ? ORDER BY rowid")
      .all(`"${term}"`) as { rowid: number }[]
  ).map((r) => r.rowid);
}

/**
 * A file as release k left it, then filled with the live database's base rows through k's triggers:
 * only the columns k had (a later ADD COLUMN starts from its default, as it would on a real upgrade).
 * Returns the file and each base table's columns at k.
 */
function databaseWrittenAt(k: number, liveFile: string): { file: string; columnsAtK: Map<string, string[]> } {
  const file = join(dir, `at-${k}.db`);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  migrate(db, new FakeClock(), k);
  db.exec(`ATTACH DATABASE '${liveFile.replaceAll("'", "''")}' AS live`);
  const columnsAtK = new Map(baseTables.map((t) => [t, columnsOf(db, t)] as const));
  db.transaction(() => {
    db.exec("DELETE FROM namespaces");
    for (const [t, cols] of columnsAtK)
      db.exec(`INSERT INTO main."${t}" (${cols.join(", ")}) SELECT ${cols.join(", ")} FROM live."${t}" ORDER BY rowid`);
  })();
  db.exec("DETACH DATABASE live");
  db.close();
  return { file, columnsAtK };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bw-upgrade-"));
  h = await startCpHarness();
  await writeScenarios();
  baseTables = tablesOfFirstMigration();
}, 60_000);

afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a database written by an earlier release upgrades to what a fresh one is", () => {
  test("the scenarios wrote rows into every base table the upgrade has to carry", () => {
    const empty = baseTables.filter((t) => rowsOf(h.db, t).length === 0);
    // worker_registrations, commands, links… must all be exercised, or the comparison proves little.
    expect(
      empty.filter(
        (t) =>
          !["workflow_child_calls", "workflow_links", "workflow_signal_records", "workflow_run_timers"].includes(t),
      ),
    ).toEqual([]);
  });

  const versions = migrations.map((m) => m.version).filter((v) => v < LATEST);
  test.each(versions)("from version %i", (k) => {
    const liveFile = h.db.name;
    const { file, columnsAtK } = databaseWrittenAt(k, liveFile);
    const upgraded = openDb(file, new FakeClock());
    try {
      expect(schemaOf(upgraded)).toEqual(schemaOf(h.db));
      const tables = schemaOf(h.db)
        .filter((o) => o.type === "table" && !isSearchTable(o.name))
        .map((o) => o.name);
      for (const t of tables) {
        const cols = columnsAtK.get(t);
        expect({ table: t, rows: rowsOf(upgraded, t, cols) }).toEqual({ table: t, rows: rowsOf(h.db, t, cols) });
      }
      for (const term of ["completed", "failed-1", "bk-", "Order", "zzz-no-such"])
        expect({ term, hits: searchHits(upgraded, term) }).toEqual({ term, hits: searchHits(h.db, term) });
      expect(upgraded.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(upgraded.pragma("foreign_key_check")).toEqual([]);
      upgraded.exec("INSERT INTO workflow_run_search (workflow_run_search) VALUES ('integrity-check')");
    } finally {
      upgraded.close();
    }
  });
});
