import type Database from "better-sqlite3";
import type { Db } from "../store/db";
import { EngineError } from "./errors";
import type { LeaseConfig } from "./tx";
import { Tx } from "./tx";
import { WalSync } from "./wal-sync";

interface PendingOp {
  fn: (tx: Tx) => unknown;
  keepRefusals: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Ops beyond this wait for the next batch, bounding how long one commit holds the writer. */
const MAX_BATCH = 256;

export interface BatchHooks {
  begin(): void;
  kept(tx: Tx): void;
  end(committed: boolean): void;
}

const NO_HOOKS: BatchHooks = { begin: () => undefined, kept: () => undefined, end: () => undefined };

type Outcome = { tx: Tx; value: unknown } | { tx: Tx | null; error: unknown };

type Statement = Database.Statement<[]>;

/**
 * Group commit for the worker plane. Transitions requested in the same event-loop turn run in one
 * SQLite transaction, each inside its own savepoint (a failing op rolls back alone), and are
 * answered only after the shared COMMIT is on disk: every acknowledgement is durable, but one fsync
 * serves the whole batch instead of one per transition. On a WAL file that fsync runs off the
 * event loop (WalSync), so the next batch executes while the previous one syncs.
 */
export class GroupCommitter {
  private queue: PendingOp[] = [];
  private scheduled = false;
  /** A batch's WAL sync is running: new ops gather until it ends and then commit as one batch. */
  private syncing = false;
  private readonly walSync: WalSync | null;
  private readonly syncNormal: Statement | null;
  private readonly syncFull: Statement | null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly leases: LeaseConfig,
    /** Runs inside each op's savepoint after the op (summary refresh). */
    private readonly beforeRelease: (tx: Tx) => void,
    /** Runs after COMMIT for each op that wrote (task wake-ups: a claim is itself answered only once durable). */
    private readonly afterCommit: (tx: Tx) => void,
    /** Runs once the batch is durable, for each op that wrote (wake-ups that expose committed data to readers). */
    private readonly afterDurable: (tx: Tx) => void = () => undefined,
    /** Told when a batch's transaction begins, when an op's savepoint is released, and how the batch ended. */
    private readonly batchHooks: BatchHooks = NO_HOOKS,
  ) {
    this.walSync = WalSync.for(db);
    // The connection stays at its configured FULL for every other writer; only this committer's
    // COMMIT skips the in-line fsync, because it syncs the WAL itself before answering.
    this.syncNormal = this.walSync ? db.prepare<[]>("PRAGMA synchronous = NORMAL") : null;
    this.syncFull = this.walSync ? db.prepare<[]>("PRAGMA synchronous = FULL") : null;
  }

  /**
   * Queues `fn` as one state transition. With `keepRefusals`, a 409 EngineError keeps the op's
   * writes (e.g. a stale attempt closed `expired`) and still rejects with the refusal.
   */
  run<T>(fn: (tx: Tx) => T, keepRefusals = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, keepRefusals, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.syncing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    const now = this.now();
    const runOne = this.db.transaction((op: PendingOp, tx: Tx): { value: unknown } | { refusal: EngineError } => {
      try {
        const value = op.fn(tx);
        this.beforeRelease(tx);
        return { value };
      } catch (e) {
        if (op.keepRefusals && e instanceof EngineError && e.status === 409) {
          this.beforeRelease(tx);
          return { refusal: e };
        }
        throw e;
      }
    });
    const outcomes: Outcome[] = [];
    try {
      this.syncNormal?.run();
      try {
        this.batchHooks.begin();
        this.db
          .transaction(() => {
            for (const op of batch) {
              const tx = new Tx(this.db, now, this.leases);
              try {
                const r = runOne(op, tx);
                this.batchHooks.kept(tx);
                outcomes.push("refusal" in r ? { tx, error: r.refusal } : { tx, value: r.value });
              } catch (e) {
                outcomes.push({ tx: null, error: e });
              }
            }
          })
          .immediate();
      } finally {
        this.syncFull?.run();
      }
    } catch (e) {
      this.batchHooks.end(false);
      for (const op of batch) op.reject(e);
      this.schedule();
      return;
    }
    this.batchHooks.end(true);
    for (const outcome of outcomes) if (outcome.tx) this.afterCommit(outcome.tx);
    // Every answer waits for durability, refusals and reads included: they may rest on the batch's
    // own writes or on an earlier batch whose sync this one also covers.
    const answer = (): void =>
      batch.forEach((op, i) => {
        const outcome = outcomes[i] as Outcome;
        if (outcome.tx) this.afterDurable(outcome.tx);
        if ("value" in outcome) op.resolve(outcome.value);
        else op.reject(outcome.error);
      });
    if (!this.walSync) {
      answer();
      this.schedule();
      return;
    }
    // Answers cannot leave before this sync ends anyway, so ops that arrive meanwhile wait for it
    // and commit together: one COMMIT and one sync for all of them, and every index page they
    // share is written to the WAL once instead of once per small batch.
    this.syncing = true;
    const done = (): void => {
      this.syncing = false;
      this.schedule();
    };
    this.walSync.sync().then(
      () => {
        done();
        answer();
      },
      (e: unknown) => {
        done();
        batch.forEach((op) => op.reject(e));
      },
    );
  }
}
