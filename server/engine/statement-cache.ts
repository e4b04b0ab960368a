import type Database from "better-sqlite3";
import type { Db } from "../store/db";

type Statement = ReturnType<Db["prepare"]>;

/** Above this many distinct SQL texts the cache starts over; engine SQL is static, so it is never reached in practice. */
const MAX_STATEMENTS = 1000;

/** Tables whose writes are counted (see `writeCount`): the rows a transition re-reads most. */
export type CountedTable = "workflow_runs" | "workflow_tasks" | "activity_executions" | "activity_attempts";
const COUNTED = new Set<string>(["workflow_runs", "workflow_tasks", "activity_executions", "activity_attempts"]);

type WriteCounts = Record<CountedTable, number>;
const writeCounts = new WeakMap<Db, WriteCounts>();

/** The table a statement writes, by its leading verb (`INSERT … INTO t`, `UPDATE t`, `DELETE FROM t`, `REPLACE INTO t`). */
const WRITE_TARGET =
  /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+([A-Za-z_][A-Za-z0-9_]*)/i;

/**
 * How many statements writing `table` have run on this connection; null for a connection not made
 * by `withStatementCache`. A transition may keep rows it read while this number is unchanged: no
 * trigger or foreign-key action writes these tables, so only such a statement can change them.
 */
export function writeCount(db: Db, table: CountedTable): number | null {
  return writeCounts.get(db)?.[table] ?? null;
}

/**
 * The same connection with `prepare` memoised by SQL text. Compiling a statement costs more than
 * running most engine queries, and every transition runs a dozen of them, so the engine (and the
 * summary projection it calls) share this view of the database.
 */
export function withStatementCache(db: Db): Db {
  const cache = new Map<string, Statement>();
  const writes: WriteCounts = { workflow_runs: 0, workflow_tasks: 0, activity_executions: 0, activity_attempts: 0 };
  const prepare = (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      stmt = db.prepare(sql);
      const target = WRITE_TARGET.exec(sql)?.[1]?.toLowerCase();
      if (target && COUNTED.has(target)) countWrites(stmt, writes, target as CountedTable);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return prepare;
      const value: unknown = Reflect.get(target, prop, target);
      // Native methods must run against the real connection, not the proxy.
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  writeCounts.set(proxy, writes);
  return proxy;
}

/** Counts every execution of `stmt` (before it runs, so a failed write still invalidates). */
function countWrites(stmt: Statement, writes: WriteCounts, table: CountedTable): void {
  for (const method of ["run", "get", "all", "iterate"] as const) {
    const original = stmt[method].bind(stmt) as (...args: unknown[]) => unknown;
    Object.defineProperty(stmt, method, {
      value: (...args: unknown[]) => {
        writes[table] += 1;
        return original(...args);
      },
    });
  }
}

type AnyStatement = Database.Statement<unknown[]>;
const preparedByDb = new WeakMap<Db, Map<string, AnyStatement>>();

/**
 * `db.prepare(sql)`, once per connection, for code that is also handed connections not made by
 * `withStatementCache` (the summary projection runs from the demo, repair and reads too): it runs
 * in every transition, so re-preparing would dominate its cost.
 */
export function preparedOnce(db: Db, sql: string): AnyStatement {
  let cache = preparedByDb.get(db);
  if (!cache) {
    cache = new Map();
    preparedByDb.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    s = db.prepare<unknown[]>(sql);
    cache.set(sql, s);
  }
  return s;
}
