import Database from "better-sqlite3";
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
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
  if (file !== ":memory:") createOwnerOnly(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db, clock);
  return db;
}

/**
 * Run inputs and outputs are as private as the tokens beside them (decision 0043). A directory the
 * server makes is 0700 (one the user already had keeps its mode). The file is made 0600 before SQLite
 * opens it, and an older too-open one is narrowed: SQLite gives `-wal` and `-shm` the database
 * file's mode when it creates them, whatever the umask.
 */
function createOwnerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, constants.O_CREAT | constants.O_WRONLY, 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(path)) continue;
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
  }
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
