import { close, fdatasync, open } from "node:fs";
import type { Db } from "../store/db";

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Makes WAL commits durable without blocking the event loop. The group committer commits with
 * `synchronous = NORMAL` (frames written to the WAL, no fsync inside COMMIT) and answers only after
 * an `fdatasync` of the WAL file that started after that COMMIT has finished. That is exactly the
 * sync `synchronous = FULL` performs inside COMMIT, so every acknowledged transition is on disk
 * before its answer leaves, across process kill and power loss alike, while the next batch runs
 * during the sync. Concurrent requests coalesce: at most one sync is in flight, and callers that
 * arrive meanwhile share the next one (docs/decisions/0008-group-commit-wal-sync.md).
 */
export class WalSync {
  private inFlight = false;
  private next: Waiter[] = [];
  /**
   * The first failed sync, kept: after a failed fsync the kernel may have dropped the dirty pages
   * it could not write, so a later sync can "succeed" without them. No answer is given after that.
   */
  private failure: unknown = null;

  private constructor(
    private readonly db: Db,
    private readonly walPath: string,
  ) {}

  /** Null when the connection has no WAL file to sync (in-memory, or not in WAL mode). */
  static for(db: Db): WalSync | null {
    if (db.memory) return null;
    const mode = db.pragma("journal_mode", { simple: true }) as string;
    return mode.toLowerCase() === "wal" ? new WalSync(db, `${db.name}-wal`) : null;
  }

  /** Resolves once every transaction committed before this call is on stable storage. */
  sync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.failure !== null) {
        reject(this.failure);
        return;
      }
      this.next.push({ resolve, reject });
      if (!this.inFlight) this.start();
    });
  }

  private start(): void {
    const waiters = this.next;
    this.next = [];
    this.inFlight = true;
    const finish = (error: NodeJS.ErrnoException | null): void => {
      this.inFlight = false;
      if (error && this.failure === null) this.failure = error;
      for (const w of waiters) {
        if (error) w.reject(error);
        else w.resolve();
      }
      if (this.next.length === 0) return;
      if (this.failure !== null) {
        for (const w of this.next.splice(0)) w.reject(this.failure);
        return;
      }
      this.start();
    };
    // A fresh descriptor per sync: fsync acts on the file, not the descriptor, and nothing stays
    // open after the connection closes.
    open(this.walPath, "r", (openError, fd) => {
      if (openError) {
        // Closing the last connection checkpoints the WAL into the (synced) database file and
        // deletes it: nothing is left to sync then.
        finish(openError.code === "ENOENT" && !this.db.open ? null : openError);
        return;
      }
      fdatasync(fd, (syncError) => close(fd, () => finish(syncError)));
    });
  }
}
