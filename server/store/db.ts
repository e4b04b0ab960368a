import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Clock } from "../clock";
import { migrations } from "./migrations";

export type Db = Database.Database;

/**
 * Opens (creating when missing) the embedded server's SQLite file in WAL mode and applies pending
 * migrations. `synchronous = FULL` so that an acknowledged transaction survives a process kill
 * and a power cut alike: the server promises never to lose an acknowledged write.
 */
export function openDb(file: string, clock: Clock): Db {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db, clock);
  return db;
}

/**
 * Applies the migrations not yet recorded, in order, each in its own transaction. `upTo` stops after
 * that version: the upgrade test builds databases as every earlier release left them.
 */
export function migrate(db: Db, clock: Clock, upTo: number = Number.POSITIVE_INFINITY): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version),
  );
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    if (m.version > upTo) break;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        clock.now(),
      );
    })();
  }
  const now = clock.now();
  db.prepare(
    "INSERT OR IGNORE INTO namespaces (name, description, created_at, updated_at) VALUES ('default', 'Default namespace', ?, ?)",
  ).run(now, now);
}
