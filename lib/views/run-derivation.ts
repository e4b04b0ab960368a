import type { LedgerActivity } from "./attempts";
import { LedgerFold } from "./attempts";
import type { HistoryEventInput } from "./events";
import { toViewEvents } from "./events";
import type { ExceptionRow, FailureInput } from "./exceptions";
import { ExceptionFold } from "./exceptions";
import type { TimelineBar, TimelineChart, TimelineListRow, TimelineMarker } from "./timeline";
import { TimelineFold, activityBars, toListRow } from "./timeline";
import type { DerivedWait } from "./waits";
import { WaitFold } from "./waits";
import type { UpdateRow } from "./updates";
import { UpdateFold } from "./updates";
import { assembleChart } from "./timeline-chart";

/**
 * A run's page views derived from its history pages, one page at a time (issue 14): the console
 * never needs the export bundle to draw a run. `add` takes the next page (ascending, contiguous
 * sequences) and returns the pieces that are final from now on; `snapshot` gives the rest as of
 * the events read so far. Concatenating every chunk of a kind, then the snapshot's part of that
 * kind, gives the whole view (see {@link assembleRunView}).
 */
export type DerivedChunk =
  /** Activities that can no longer change (closed), in ledger order, appended after earlier ones. */
  | { t: "ledger"; rows: LedgerActivity[] }
  /** Chart pieces that can no longer change. */
  | { t: "bars"; bars: TimelineBar[]; markers: TimelineMarker[] }
  /** Timeline list rows, one per event, in sequence order. */
  | { t: "list"; rows: TimelineListRow[] };

/** A wait derived from history (activity, timer, signal, child, condition, update), shaped like export `waits[]`. */
export type { DerivedWait } from "./waits";

export interface DerivedSnapshot {
  /** Sequence of the last event read (0 before the first page). */
  lastSequence: number;
  exceptions: ExceptionRow[];
  /** Activities not yet emitted in a `ledger` chunk, in ledger order; they follow every emitted one. */
  openLedger: LedgerActivity[];
  /** start/end of the whole run so far, plus the bars and markers not yet emitted in chunks. */
  chart: TimelineChart;
  /** Open waits, then the most recently closed ones (at most CLOSED_WAITS_KEPT (waits.ts)). */
  waits: DerivedWait[];
  /** Closed waits left out of `waits` to bound memory on long runs (0 when none were). */
  waitsOmitted?: number;
  /** The run's updates in the order they were sent (the newest UPDATES_KEPT (updates.ts)). */
  updates?: UpdateRow[];
  /** Older updates left out of `updates` (0 when none were). */
  updatesOmitted?: number;
  counts: { events: number; activities: number; failures: number };
}

export interface RunDerivationOptions {
  /** Debug `recent_failures` (≤ 10): `handled` and row-only failures the events cannot give. */
  recentFailures?: readonly FailureInput[];
}

/**
 * Incremental: each event is folded into the ledger, timeline, exceptions, waits and updates folds as its
 * page arrives, and no event is kept. What is settled goes out in chunks and its state is dropped:
 * activities once they and every earlier one are closed (with their attempt bars), every failure or
 * retry marker at once (a marker never changes). Held are the open activities (and settled ones
 * behind an open one), the workflow bar, timers, children, one small record per failure, and the
 * waits (open ones plus the last CLOSED_WAITS_KEPT (waits.ts) closed). The batch functions
 * (`attemptLedger`, `timelineRows`, `exceptionRows`) run the same folds over a whole history.
 */
export class RunDerivation {
  private readonly ledger = new LedgerFold();
  private readonly timeline = new TimelineFold();
  private readonly failures = new ExceptionFold();
  private readonly waitFold = new WaitFold();
  private readonly updateFold = new UpdateFold();
  private last = 0;
  private events = 0;

  constructor(private readonly options: RunDerivationOptions = {}) {}

  get lastSequence(): number {
    return this.last;
  }

  /** Activities held in memory: open ones, and settled ones behind an open one (tests watch it stay small). */
  get heldActivities(): number {
    return this.ledger.heldCount;
  }

  add(page: readonly HistoryEventInput[]): DerivedChunk[] {
    // Events at or below the last sequence were read already (a long-poll page may repeat them).
    const events = toViewEvents(page).filter((event) => event.sequence > this.last);
    const lastEvent = events.at(-1);
    if (!lastEvent) return [];
    for (const event of events) {
      this.ledger.add(event);
      this.timeline.add(event);
      this.failures.add(event);
      this.waitFold.add(event);
      this.updateFold.add(event);
    }
    this.last = lastEvent.sequence;
    this.events += events.length;
    const chunks: DerivedChunk[] = [{ t: "list", rows: events.map(toListRow) }];
    const settled = this.ledger.takeSettled();
    if (settled.length > 0) chunks.push({ t: "ledger", rows: settled });
    const bars = settled.flatMap(activityBars);
    this.timeline.settleBars(bars);
    const markers = this.timeline.takeMarkers();
    if (bars.length > 0 || markers.length > 0) chunks.push({ t: "bars", bars, markers });
    return chunks;
  }

  /** The unsettled rest as of the events read so far; non-destructive (call it after any page). */
  snapshot(now?: number): DerivedSnapshot {
    const openLedger = this.ledger.open();
    const exceptions = this.failures.rows(this.options.recentFailures ?? []);
    return {
      lastSequence: this.last,
      exceptions,
      openLedger,
      chart: this.timeline.chart(openLedger, now),
      waits: this.waitFold.waits(),
      waitsOmitted: this.waitFold.omitted,
      updates: this.updateFold.rows(),
      updatesOmitted: this.updateFold.omitted,
      counts: { events: this.events, activities: this.ledger.knownCount, failures: exceptions.length },
    };
  }
}

export interface AssembledRunView {
  ledger: LedgerActivity[];
  chart: TimelineChart;
  list: TimelineListRow[];
  exceptions: ExceptionRow[];
  waits: DerivedWait[];
  waitsOmitted: number;
  counts: DerivedSnapshot["counts"];
  lastSequence: number;
}

/** The whole view from every chunk so far plus the latest snapshot. */
export function assembleRunView(chunks: readonly DerivedChunk[], snapshot: DerivedSnapshot): AssembledRunView {
  const ledger: LedgerActivity[] = [];
  const list: TimelineListRow[] = [];
  const bars: TimelineBar[] = [];
  const markers: TimelineMarker[] = [];
  for (const chunk of chunks) {
    if (chunk.t === "ledger") for (const row of chunk.rows) ledger.push(row);
    else if (chunk.t === "list") for (const row of chunk.rows) list.push(row);
    else {
      for (const bar of chunk.bars) bars.push(bar);
      for (const marker of chunk.markers) markers.push(marker);
    }
  }
  for (const row of snapshot.openLedger) ledger.push(row);
  return {
    ledger,
    chart: assembleChart(bars, markers, snapshot.chart),
    list,
    exceptions: snapshot.exceptions,
    waits: snapshot.waits,
    waitsOmitted: snapshot.waitsOmitted ?? 0,
    counts: snapshot.counts,
    lastSequence: snapshot.lastSequence,
  };
}
