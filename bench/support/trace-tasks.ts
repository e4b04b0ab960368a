import { readFileSync } from "node:fs";

/**
 * The renderer main thread's tasks in a Chrome trace, each with its wall time, its own CPU time
 * (the trace's thread time) and the time it sat blocked in synchronous calls. On this 2-core
 * machine a long task is mostly not its own work: a 119 ms first layout used 22 ms of CPU and
 * waited on 40 synchronous font lookups in the browser process and for a free core. So "the longest
 * task" needs its CPU beside it before it says anything about the page's code.
 *
 * Blocked calls are the trace's `ScopedBlockingCallWithBaseSyncPrimitives` (category "base"); one
 * counts as a font lookup when a "fonts" event on the main thread encloses it (on Linux the renderer
 * asks the browser's font service for every family it tries and every size and weight it draws).
 */

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of a complete event, where the trace recorded it. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: Record<string, unknown> };
}

/** The categories a trace needs for `mainTasks` (and bench/support/long-tasks.ts's detail). */
export const TASK_TRACE_CATEGORIES = [
  "toplevel",
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "base",
  "fonts",
];

export interface MainTask {
  /** ms from the document's navigation start. */
  at: number;
  wallMs: number;
  cpuMs: number;
  /** Wall time inside synchronous calls (overlaps merged). */
  blockedMs: number;
  syncCalls: number;
  fontCalls: number;
  event: TraceEvent;
}

export function readTrace(file: string): TraceEvent[] {
  const raw = JSON.parse(readFileSync(file, "utf8")) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  return Array.isArray(raw) ? raw : (raw.traceEvents ?? []);
}

function mainThreads(events: readonly TraceEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events)
    if (e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain") out.add(`${e.pid}:${e.tid}`);
  return out;
}

/** The complete events of the renderer main threads, by start (outer before inner). */
export function mainThreadEvents(events: readonly TraceEvent[]): TraceEvent[] {
  const threads = mainThreads(events);
  return events
    .filter((e) => e.ph === "X" && threads.has(`${e.pid}:${e.tid}`))
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
}

/**
 * The navigation start of the page's document: a trace also holds the about:blank the tab opened
 * with, whose navigation start can come well before.
 */
function pageNavigation(events: readonly TraceEvent[]): TraceEvent | undefined {
  const starts = events.filter((e) => e.name === "navigationStart");
  const url = (e: TraceEvent) => String(e.args?.data?.documentLoaderURL ?? "");
  return starts.find((e) => /^https?:/.test(url(e))) ?? starts[0];
}

export function navigationOrigin(events: readonly TraceEvent[]): number | null {
  return pageNavigation(events)?.ts ?? null;
}

const end = (e: TraceEvent) => e.ts + (e.dur ?? 0);

/**
 * Every main-thread task (`RunTask`) of at least `thresholdMs` in the page's renderer, with its CPU
 * and blocked time. A trace records the whole browser: Chromium's own pages (chrome://…) have
 * renderers too, and their tasks are not the page's.
 */
export function mainTasks(events: readonly TraceEvent[], thresholdMs = 0): MainTask[] {
  const nav = pageNavigation(events);
  const onMain = mainThreadEvents(events).filter((e) => nav === undefined || e.pid === nav.pid);
  const origin = nav?.ts ?? onMain[0]?.ts ?? 0;
  const blocking = onMain.filter((e) => e.name === "ScopedBlockingCallWithBaseSyncPrimitives");
  const fonts = onMain.filter((e) => e.cat === "fonts");
  return onMain
    .filter((e) => e.name === "RunTask" && (e.dur ?? 0) >= thresholdMs * 1000)
    .map((task) => {
      const inside = blocking.filter((b) => b.ts >= task.ts && end(b) <= end(task) && b.tid === task.tid);
      let blocked = 0;
      let coveredUntil = -Infinity;
      let calls = 0;
      let fontCalls = 0;
      for (const b of inside) {
        if (end(b) <= coveredUntil) continue; // a call inside a call
        blocked += end(b) - Math.max(b.ts, coveredUntil);
        coveredUntil = end(b);
        calls++;
        if (fonts.some((f) => f.tid === b.tid && f.ts <= b.ts && end(f) >= end(b))) fontCalls++;
      }
      return {
        at: (task.ts - origin) / 1000,
        wallMs: (task.dur ?? 0) / 1000,
        cpuMs: (task.tdur ?? 0) / 1000,
        blockedMs: blocked / 1000,
        syncCalls: calls,
        fontCalls,
        event: task,
      };
    });
}

/** "119 ms wall, 22 ms CPU, 63 ms in 40 synchronous calls (24 font lookups)". */
export function describeTask(t: MainTask): string {
  const calls =
    t.syncCalls === 0
      ? "no synchronous calls"
      : `${t.blockedMs.toFixed(1)} ms in ${t.syncCalls} synchronous calls (${t.fontCalls} font lookups)`;
  return `${t.wallMs.toFixed(1)} ms wall, ${t.cpuMs.toFixed(1)} ms CPU, ${calls}`;
}
