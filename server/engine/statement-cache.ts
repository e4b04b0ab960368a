import type { Db } from "../store/db";

type Statement = ReturnType<Db["prepare"]>;

/** Above this many distinct SQL texts the cache starts over; engine SQL is static, so it is never reached in practice. */
const MAX_STATEMENTS = 1000;

/**
 * The same connection with `prepare` memoised by SQL text. Compiling a statement costs more than
 * running most engine queries, and every transition runs a dozen of them, so the engine (and the
 * summary projection it calls) share this view of the database.
 */
export function withStatementCache(db: Db): Db {
  const cache = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return prepare;
      const value: unknown = Reflect.get(target, prop, target);
      // Native methods must run against the real connection, not the proxy.
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
