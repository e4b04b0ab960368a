import type { LedgerActivity } from "./attempts";
import { attemptLedger } from "./attempts";
import type { HistoryEventInput } from "./events";
import type { ExceptionRow, FailureInput } from "./exceptions";
import { exceptionRows } from "./exceptions";
import type { TimelineBar, TimelineChart, TimelineListRow, TimelineMarker } from "./timeline";
import { timelineRows, toListRow } from "./timeline";
import { toViewEvent } from "./events";

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

/** A wait derived from history (activity, timer, signal, child, condition…), shaped like export `waits[]`. */
export interface DerivedWait {
  id: string;
  kind: string;
  sequence: number | null;
  status: string;
  summary: string | null;
  opened_at: string | null;
  deadline_at: string | null;
  resolved_at: string | null;
  target_name: string | null;
}

export interface DerivedSnapshot {
  /** Sequence of the last event read (0 before the first page). */
  lastSequence: number;
  exceptions: ExceptionRow[];
  /** Activities not yet emitted in a `ledger` chunk, in ledger order; they follow every emitted one. */
  openLedger: LedgerActivity[];
  /** start/end of the whole run so far, plus the bars and markers not yet emitted in chunks. */
  chart: TimelineChart;
  waits: DerivedWait[];
  counts: { events: number; activities: number; failures: number };
}

export interface RunDerivationOptions {
  /** Debug `recent_failures` (≤ 10): `handled` and row-only failures the events cannot give. */
  recentFailures?: readonly FailureInput[];
}

/**
 * Baseline implementation (keeps every event until `snapshot`); the incremental one replaces the
 * internals without changing this interface.
 */
export class RunDerivation {
  private readonly events: HistoryEventInput[] = [];
  private last = 0;

  constructor(private readonly options: RunDerivationOptions = {}) {}

  get lastSequence(): number {
    return this.last;
  }

  add(page: readonly HistoryEventInput[]): DerivedChunk[] {
    if (page.length === 0) return [];
    for (const event of page) this.events.push(event);
    this.last = page.at(-1)?.sequence ?? this.last;
    return [{ t: "list", rows: page.map((event) => toListRow(toViewEvent(event))) }];
  }

  snapshot(now?: number): DerivedSnapshot {
    const ledger = attemptLedger(this.events);
    const exceptions = exceptionRows({ recent_failures: this.options.recentFailures ?? [] }, this.events);
    return {
      lastSequence: this.last,
      exceptions,
      openLedger: ledger,
      chart: timelineRows(this.events, now === undefined ? {} : { now }),
      waits: [],
      counts: { events: this.events.length, activities: ledger.length, failures: exceptions.length },
    };
  }
}

export interface AssembledRunView {
  ledger: LedgerActivity[];
  chart: TimelineChart;
  list: TimelineListRow[];
  exceptions: ExceptionRow[];
  waits: DerivedWait[];
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
  for (const bar of snapshot.chart.bars) bars.push(bar);
  for (const marker of snapshot.chart.markers) markers.push(marker);
  return {
    ledger,
    chart: { ...snapshot.chart, bars, markers },
    list,
    exceptions: snapshot.exceptions,
    waits: snapshot.waits,
    counts: snapshot.counts,
    lastSequence: snapshot.lastSequence,
  };
}
