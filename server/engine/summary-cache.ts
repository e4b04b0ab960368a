import type { Db } from "../store/db";
import type { RunSummary, SummaryScope } from "./summary";

/** Runs whose last written summary is kept; the hot set is the runs with work in flight. */
const DEFAULT_MAX_RUNS = 5_000;
/** Foreign writes tracked run by run before the cache gives up and forgets everything. */
const MAX_TAINTED = 10_000;

interface Entry {
  summary: RunSummary;
  /** The cache's event counter when this summary was written. */
  at: number;
}

const caches = new WeakMap<Db, SummaryCache>();

/**
 * The summary row of recently refreshed runs as this process last wrote it, so a refresh (four per
 * activity execution) does not read back the 48-column row it wrote moments ago.
 *
 * It must never hold a row that differs from the database, because a refresh writes only the
 * columns that differ from what it believes the row is:
 * - Writes are staged per transition and per batch and become `committed` only after COMMIT; a
 *   transition or batch that rolls back drops its stage (the rows went back to what was committed).
 * - Every write to `workflow_run_summaries` on this connection — raw or not, by any code path —
 *   reaches `written` through a TEMP trigger; one that is not the cache's own write taints the run
 *   from that moment, so an older cached copy is no longer used.
 * - A commit by another connection (`PRAGMA data_version` moved) empties the cache.
 */
export class SummaryCache {
  private readonly committed = new Map<string, RunSummary>();
  private readonly batch = new Map<string, Entry>();
  private readonly tainted = new Map<string, number>();
  private ownWrite: string | null = null;
  private clock = 0;
  /** Set when too many runs were tainted to track one by one (a bulk write): everything older is stale. */
  private allTaintedAt = 0;
  private dataVersion: number;
  private readonly dataVersionStatement;

  private constructor(
    db: Db,
    private readonly maxRuns: number,
  ) {
    db.function("breakwater_summary_written", { deterministic: false }, (id: unknown) => {
      this.written(String(id));
      return null;
    });
    db.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS breakwater_summary_insert AFTER INSERT ON main.workflow_run_summaries BEGIN SELECT breakwater_summary_written(NEW.id); END;
      CREATE TEMP TRIGGER IF NOT EXISTS breakwater_summary_update AFTER UPDATE ON main.workflow_run_summaries BEGIN SELECT breakwater_summary_written(NEW.id); END;
      CREATE TEMP TRIGGER IF NOT EXISTS breakwater_summary_delete AFTER DELETE ON main.workflow_run_summaries BEGIN SELECT breakwater_summary_written(OLD.id); END;`);
    this.dataVersionStatement = db.prepare<[], { data_version: number }>("PRAGMA data_version");
    this.dataVersion = this.readDataVersion();
  }

  /** One cache per connection: the trigger's function is registered on the connection. */
  static for(db: Db, maxRuns = DEFAULT_MAX_RUNS): SummaryCache {
    let cache = caches.get(db);
    if (!cache) {
      cache = new SummaryCache(db, maxRuns);
      caches.set(db, cache);
    }
    return cache;
  }

  private readDataVersion(): number {
    return (this.dataVersionStatement.get() as { data_version: number }).data_version;
  }

  /** Before a transaction: another connection's commit may have changed any row. */
  begin(): void {
    const version = this.readDataVersion();
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.committed.clear();
    }
    this.batch.clear();
    this.tainted.clear();
  }

  /** The scope one transition refreshes through; its writes stay staged until `keep`. */
  scope(staged: Map<string, Entry>): SummaryScope {
    return {
      lookup: (runId) => {
        const entry = staged.get(runId) ?? this.batch.get(runId);
        if (entry) return this.fresh(runId, entry.at) ? entry.summary : undefined;
        return this.tainted.has(runId) ? undefined : this.committed.get(runId);
      },
      write: (runId, summary, write) => {
        this.ownWrite = runId;
        try {
          write();
        } finally {
          this.ownWrite = null;
        }
        staged.set(runId, { summary, at: ++this.clock });
      },
    };
  }

  /** A transition's savepoint was released: its staged writes belong to the batch. */
  keep(staged: Map<string, Entry>): void {
    for (const [runId, entry] of staged) this.batch.set(runId, entry);
  }

  /** The batch's transaction ended; only a committed one's writes are kept. */
  end(committed: boolean): void {
    if (committed) {
      for (const [runId, entry] of this.batch) {
        this.committed.delete(runId);
        if (this.fresh(runId, entry.at)) this.committed.set(runId, entry.summary);
      }
      for (const runId of this.tainted.keys()) if (!this.batch.has(runId)) this.committed.delete(runId);
      for (const oldest of this.committed.keys()) {
        if (this.committed.size <= this.maxRuns) break;
        this.committed.delete(oldest);
      }
    } else {
      for (const runId of this.batch.keys()) this.committed.delete(runId);
      for (const runId of this.tainted.keys()) this.committed.delete(runId);
    }
    this.batch.clear();
    this.tainted.clear();
  }

  /** From the TEMP trigger: some statement on this connection wrote the run's summary row. */
  private written(runId: string): void {
    if (runId === this.ownWrite) return;
    this.committed.delete(runId);
    if (this.tainted.size >= MAX_TAINTED) {
      // A bulk write (seeding, a migration): forget everything instead of tracking each run.
      this.allTaintedAt = ++this.clock;
      this.tainted.clear();
      this.committed.clear();
      return;
    }
    this.tainted.set(runId, ++this.clock);
  }

  /** Whether a summary written at `at` is still the row (no foreign write to it since). */
  private fresh(runId: string, at: number): boolean {
    if (at <= this.allTaintedAt) return false;
    const taintedAt = this.tainted.get(runId);
    return taintedAt === undefined || taintedAt < at;
  }

  get size(): number {
    return this.committed.size;
  }
}

export type { Entry as SummaryCacheEntry };
