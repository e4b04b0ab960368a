import Database from "better-sqlite3";
import type { Db } from "../store/db";
import type { Steps } from "./time-slice";
import { runSliced, runSync } from "./time-slice";

/**
 * Runs a long read over one point-in-time view of the database without holding the event loop.
 * better-sqlite3 is synchronous, so a read transaction kept open on the engine's connection across
 * event-loop turns would take the engine's writes into it; instead the read gets its own read-only
 * connection to the same file with `BEGIN`, and WAL lets the engine keep committing meanwhile while
 * this connection goes on seeing the database as of its first read. The snapshot is taken in the
 * first slice, that is before this function first returns.
 *
 * A second connection cannot see an in-memory database, so there the read runs in one go.
 */
export async function readSnapshot<T>(db: Db, read: (snapshot: Db) => Steps<T>, signal?: AbortSignal): Promise<T> {
  if (db.memory) return runSync(read(db));
  const snapshot = new Database(db.name, { readonly: true, fileMustExist: true });
  try {
    snapshot.pragma("busy_timeout = 5000");
    snapshot.exec("BEGIN");
    return await runSliced(read(snapshot), signal);
  } finally {
    if (snapshot.inTransaction) snapshot.exec("ROLLBACK");
    snapshot.close();
  }
}
