import type { HistoryEventView } from "./history";

/** Whole-cache bound, in events; a worker's hot set is its open runs' histories. */
const DEFAULT_MAX_EVENTS = 20_000;
/** Runs with longer histories are not kept: one of them would evict hundreds of hot runs. */
const MAX_EVENTS_PER_RUN = 2_000;

/**
 * The committed history prefix of recently polled runs, as worker-plane event views. Every workflow
 * task hands the worker the run's whole history again, so without this each task re-reads (one
 * index probe and one row lookup per event) and re-parses all earlier events; with it only the
 * events appended since the last task come from SQLite.
 *
 * History is append-only: an event never changes once its transaction committed (the one rewrite,
 * pointing start events at their command, happens inside the run's creating transaction). So an
 * entry only has to hold committed events: views read inside a transition are `offer`ed to the
 * transition's Tx and published by the engine after COMMIT — a transition that rolls back publishes
 * nothing. Event views are shared between answers and never mutated.
 */
export class HistoryCache {
  private readonly runs = new Map<string, readonly HistoryEventView[]>();
  private events = 0;

  constructor(private readonly maxEvents: number = DEFAULT_MAX_EVENTS) {}

  /** Events 1…n of the run (index i holds sequence i + 1), or an empty list. */
  prefix(runId: string): readonly HistoryEventView[] {
    const hit = this.runs.get(runId);
    if (!hit) return [];
    // Least recently used first: re-inserting moves the run to the end.
    this.runs.delete(runId);
    this.runs.set(runId, hit);
    return hit;
  }

  /** Keeps `events` (sequences 1…n, committed) as the run's prefix when it is longer than the one held. */
  publish(runId: string, events: readonly HistoryEventView[]): void {
    if (events.length === 0 || events.length > MAX_EVENTS_PER_RUN) return;
    // Sequences are dense from 1, so a prefix starts at 1 and ends at its length.
    if (events[0]?.sequence !== 1 || events.at(-1)?.sequence !== events.length) return;
    const held = this.runs.get(runId);
    if (held && held.length >= events.length) return;
    if (held) this.events -= held.length;
    this.runs.delete(runId);
    this.runs.set(runId, events);
    this.events += events.length;
    for (const [oldest, list] of this.runs) {
      if (this.events <= this.maxEvents) break;
      this.runs.delete(oldest);
      this.events -= list.length;
    }
  }

  get size(): { runs: number; events: number } {
    return { runs: this.runs.size, events: this.events };
  }
}

const caches = new WeakMap<object, HistoryCache>();

/** The cache the engine attached to its connection, if any (read paths outside the engine have none). */
export function historyCacheOf(db: object): HistoryCache | undefined {
  return caches.get(db);
}

export function attachHistoryCache(db: object, cache: HistoryCache): void {
  caches.set(db, cache);
}
