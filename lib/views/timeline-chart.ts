import type { TimelineBar, TimelineChart, TimelineMarker } from "./timeline";

/*
 * Apart from run-derivation.ts so the browser's run-view reader can assemble the chart without
 * pulling the derivation's folds (ledger, timeline, waits, exceptions) into the run page's
 * first-load JavaScript: those run on the console server.
 */

/** The batch chart's bar order: the workflow, then activity attempts, timers, children. */
const BAR_ORDER: Readonly<Record<TimelineBar["kind"], number>> = { workflow: 0, activity: 1, timer: 2, child: 3 };

/**
 * The chart from the bars and markers of every chunk plus the snapshot's: chunks hold activity bars
 * only, so a stable sort by kind puts the snapshot's workflow bar first again (the batch order).
 */
export function assembleChart(
  bars: readonly TimelineBar[],
  markers: readonly TimelineMarker[],
  chart: TimelineChart,
): TimelineChart {
  const all = [...bars, ...chart.bars].sort((a, b) => BAR_ORDER[a.kind] - BAR_ORDER[b.kind]);
  return { ...chart, bars: all, markers: [...markers, ...chart.markers] };
}
