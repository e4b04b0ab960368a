import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import type { Browser, Page } from "@playwright/test";
import { systemClock } from "../server/clock";
import { openDb } from "../server/store/db";
import type { Baseline, FigureDef, Value } from "./support/baseline";
import { budgetText, comparison, readBaseline, show, withinBudget, writeBaseline } from "./support/baseline";
import type { SeededRun } from "./support/history-seed";
import { seedLongRun } from "./support/history-seed";
import { processTree, rssOf, samplePeak, treeCpu } from "./support/proc";
import {
  bounded,
  cleanEnv,
  cpuCalibration,
  ensureBuild,
  figure,
  freePort,
  load,
  ms,
  ROOT,
  spawnChild,
  startEmbeddedServer,
  waitForHttp,
} from "./support/report";
import type { Spawned } from "./support/report";
import type { VisitResult } from "./support/run-visit";
import { scrollHistory, visitRun } from "./support/run-visit";
import { collectGarbage } from "./support/inspector";
import { describeTask, mainTasks, readTrace } from "./support/trace-tasks";

/**
 * Issue 14's run-view figures in real Chromium, per run size: the embedded server (child process)
 * on a fresh SQLite file holding one closed run per size (bench/support/history-seed.ts), the
 * production console (`next start`, DW_SERVER_URL → that server) and Playwright's Chromium.
 *
 * Order per run: a first visit (nobody viewed the run since the console started: the console's
 * resident memory is sampled every 50 ms, peak minus before), then BENCH_VISITS repeat visits (the
 * console process tree's CPU before/after each, minus an idle baseline of the same length), then
 * (50,000 events) the export download through the console's link route, then (≤ 50,000) a visit that
 * scrolls the History tab. A small warm-up run is visited first, so no run pays for the first
 * render of the route. Every visit: header + exceptions visible, the bytes received before that
 * paint, the Activities tab clicked at that paint and the first / the complete ledger (all in ms
 * from navigation start), long tasks, JS heap (CDP Performance.getMetrics, sampled) and the
 * renderers' resident memory. Selectors: bench/support/run-visit.ts (the old and the new run page).
 *
 * The figures are compared with bench/baselines/run-detail-1e6dde0.json (the console before issue
 * 14); BENCH_WRITE_BASELINE=<file> saves this run's figures in that form.
 */

const SIZES = (process.env.BENCH_HISTORY_SIZES ?? "10000,50000,200000").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_VISITS ?? 2);
const EXPORT_SIZES = (process.env.BENCH_EXPORT_SIZES ?? "50000").split(",").map(Number);
const HISTORY_ROWS = process.env.BENCH_HISTORY_ROWS !== "0";
const BASELINE = process.env.BENCH_BASELINE ?? join(ROOT, "bench", "baselines", "run-detail-1e6dde0.json");
const WRITE_BASELINE = process.env.BENCH_WRITE_BASELINE ?? null;
const STEP_TIMEOUT_MS = 90_000;
/** The whole ledger of a 200,000-event run through the old export path takes minutes, if it comes at all. */
const LEDGER_TIMEOUT_MS = Number(process.env.BENCH_LEDGER_TIMEOUT_MS ?? 120_000);
const SETTLE_TIMEOUT_MS = 60_000;
/** The idle baseline is sampled for at most this long and scaled to the visit's length. */
const IDLE_SAMPLE_MAX_MS = 5_000;
/** Budgets are stated for 50,000 events; smaller runs must hold them too, larger ones must open and be usable. */
const budgeted = (size: number) => size <= 50_000;

const DEFS: FigureDef[] = [
  { key: "seedSeconds", label: "seeding the run (bench setup)", unit: "s", budget: null },
  { key: "headerMs", label: "header + exceptions visible (median)", unit: "ms", budget: 400 },
  {
    key: "headerPaintedMs",
    label: "header + exceptions painted, as the browser reports it (Element Timing; median)",
    unit: "ms",
    budget: 400,
  },
  { key: "bytesBeforePaintKB", label: "bytes to the browser before that paint (median)", unit: "KB", budget: 300 },
  {
    key: "hydratedMs",
    label: "page hydrated, from navigation (median; the ledger comes after it)",
    unit: "ms",
    budget: null,
  },
  { key: "ledgerFirstMs", label: "first ledger page visible, from navigation (median)", unit: "ms", budget: 1000 },
  { key: "ledgerFullMs", label: "full ledger, from navigation (median)", unit: "ms", budget: 5000 },
  {
    key: "longestTaskMs",
    label: "longest main-thread task (all visits; the browser reports tasks ≥ 50 ms, 0: none)",
    unit: "ms",
    budget: 100,
    atMost: true,
  },
  {
    key: "longestTaskCachedMs",
    label: "longest main-thread task, same tab (its caches and renderer warm; all its visits; 0: none ≥ 50 ms)",
    unit: "ms",
    budget: null,
  },
  {
    key: "tracedTaskCpuMs",
    label: "one more repeat view, traced: the most CPU one main-thread task used (thread time)",
    unit: "ms",
    budget: null,
  },
  {
    key: "tracedBlockedMs",
    label: "that view's main thread blocked in synchronous calls, all tasks (font lookups in the browser)",
    unit: "ms",
    budget: null,
  },
  { key: "jsHeapMB", label: "browser JS heap peak, main thread (all visits)", unit: "MB", budget: 150 },
  { key: "rendererRssMB", label: "browser renderer RSS peak, workers included", unit: "MB", budget: null },
  { key: "serverCpuRepeatMs", label: "console-server CPU, repeat view (median)", unit: "ms", budget: 20 },
  {
    key: "serverCpuRepeatCachedMs",
    label: "console-server CPU, repeat view, same tab (static files cached; median)",
    unit: "ms",
    budget: null,
  },
  {
    key: "serverCpuRepeatLinkMs",
    label: "console-server CPU, repeat view by a link from the runs list, same tab (from the click; median)",
    unit: "ms",
    budget: null,
  },
  {
    key: "headerLinkMs",
    label: "header + exceptions visible after that click (median)",
    unit: "ms",
    budget: null,
  },
  {
    key: "ledgerFirstLinkMs",
    label: "first ledger page visible after that click (median)",
    unit: "ms",
    budget: null,
  },
  {
    key: "longestTaskLinkMs",
    label: "longest main-thread task after that click (all its visits; 0: none ≥ 50 ms)",
    unit: "ms",
    budget: null,
  },
  {
    key: "serverCpuRunViewHitMs",
    label: "console-server CPU, one cached GET /api/run-view (median)",
    unit: "ms",
    budget: null,
  },
  { key: "serverCpuDocumentMs", label: "console-server CPU, the run page's document alone", unit: "ms", budget: null },
  {
    key: "serverCpuStaticMs",
    label: "console-server CPU, the script and style files that document names",
    unit: "ms",
    budget: null,
  },
  {
    key: "serverCpuShellDocumentMs",
    label: "console-server CPU, a document with only the shell (a not-found page): any page's floor",
    unit: "ms",
    budget: null,
  },
  {
    key: "serverCpuRouteMs",
    label: "console-server CPU, a route that does no work (GET /api/healthz): any request's floor",
    unit: "ms",
    budget: null,
  },
  {
    key: "serverRssFirstMB",
    label: "console-server RSS extra, first view (peak over the console with its garbage collected)",
    unit: "MB",
    budget: 50,
  },
  {
    key: "serverRssKeptMB",
    label: "console-server RSS kept after the first view, collected again (cached view, code, malloc)",
    unit: "MB",
    budget: null,
  },
  {
    key: "exportRssMB",
    label: "console-server RSS extra, export download (over the collected console)",
    unit: "MB",
    budget: 50,
  },
  { key: "exportSeconds", label: "export download time", unit: "s", budget: null },
  { key: "exportMB", label: "export size (decoded)", unit: "MB", budget: null },
  { key: "historyRows", label: "history DOM rows while scrolling", unit: "rows", budget: 150, atMost: true },
];
const DEF = new Map(DEFS.map((d) => [d.key, d]));

const na = (why: string): Value => ({ notMeasurable: why });
const MB = 1_048_576;

function gitCommit(): string {
  const r = spawnSync("git", ["rev-parse", "--short=7", "HEAD"], { cwd: ROOT, encoding: "utf8" });
  // The bench's own edits do not change what it measures.
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return `${r.stdout.trim() || "unknown"}${dirty.stdout.trim() ? "+dirty" : ""}`;
}

function median(values: number[]): number | null {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  if (s.length === 0) return null;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The median of a per-visit figure, or why no visit had it. */
function medianOf(visits: VisitResult[], pick: (v: VisitResult) => number | null, why: (v: VisitResult) => string) {
  const got = visits.map(pick).filter((x): x is number => x !== null);
  const m = median(got);
  if (m !== null) return m;
  return na([...new Set(visits.map(why).filter((s) => s !== ""))].join(" | ") || "no visit measured it");
}

interface Ctx {
  browser: Browser;
  base: string;
  nextPid: number;
  /** The console's inspector port (`--inspect`): its garbage is collected before a memory figure. */
  inspectPort: number;
}

function runUrl(base: string, run: SeededRun, tail = ""): string {
  return `${base}/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/runs/${encodeURIComponent(run.runId)}${tail}`;
}

const visitOpts = {
  stepTimeoutMs: STEP_TIMEOUT_MS,
  ledgerTimeoutMs: LEDGER_TIMEOUT_MS,
  settleTimeoutMs: SETTLE_TIMEOUT_MS,
};

async function settleConsole(base: string): Promise<void> {
  await fetch(`${base}/api/healthz`, { signal: AbortSignal.timeout(120_000) })
    .then((r) => r.arrayBuffer())
    .catch(() => undefined);
}

/**
 * The console's resident memory with its garbage collected (bench/support/inspector.ts): the
 * "before" of a memory figure, so the figure is what the step needs and not what it reused.
 */
async function settledRss(ctx: Ctx, tree: number[]): Promise<number> {
  await collectGarbage(ctx.inspectPort);
  // V8 gives the pages back as the collection ends; a moment for the last of it.
  await new Promise((r) => setTimeout(r, 500));
  return rssOf(tree);
}

/**
 * The first view of a run, from a console with its garbage collected: the peak of its resident
 * memory over the view (sampled every 50 ms) above that, and what it still holds once collected
 * again after the view (the cached view, V8's compiled code, what malloc keeps).
 */
async function firstView(
  ctx: Ctx,
  run: SeededRun,
): Promise<{ visit: VisitResult; rssExtra: number; rssBefore: number; rssKept: number }> {
  const tree = processTree(ctx.nextPid);
  const before = await settledRss(ctx, tree);
  const peak = samplePeak(() => rssOf(tree), 50);
  const visit = await visitRun(ctx.browser, runUrl(ctx.base, run), visitOpts);
  await settleConsole(ctx.base);
  const rssExtra = peak.stop() - before;
  return { visit, rssExtra, rssBefore: before, rssKept: (await settledRss(ctx, tree)) - before };
}

/**
 * Waits until the console's process tree stops using CPU (under 2 ms per 100 ms), instead of asking
 * it something: a request of the bench's own (a health check costs ≈ 7 ms) would count as the visit's.
 */
async function settleCpu(pid: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = treeCpu(pid).schedMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    const now = treeCpu(pid).schedMs;
    if (now - last < 2) return;
    last = now;
  }
}

/**
 * CPU of the console's process tree over one repeat visit, minus what it spends idle over as long.
 * `tab`: a tab whose context visited before (its HTTP cache holds the static files, as a returning
 * person's browser does); without it a fresh context fetches every chunk again.
 */
async function repeatView(
  ctx: Ctx,
  run: SeededRun,
  tab?: Page,
  from?: string,
): Promise<{ visit: VisitResult; cpu: number; detail: string }> {
  let c0 = treeCpu(ctx.nextPid);
  let t0 = Date.now();
  const start = async () => {
    await settleCpu(ctx.nextPid);
    c0 = treeCpu(ctx.nextPid);
    t0 = Date.now();
  };
  // Arriving by a link, the CPU counts from the click: the list page's own load is not the view's.
  if (from === undefined) await start();
  const visit = await visitRun(ctx.browser, runUrl(ctx.base, run), {
    ...visitOpts,
    tab,
    from: from === undefined ? undefined : { url: from, ready: start },
  });
  await settleCpu(ctx.nextPid);
  const c1 = treeCpu(ctx.nextPid);
  const took = Date.now() - t0;
  const idleFor = Math.min(took, IDLE_SAMPLE_MAX_MS);
  await new Promise((r) => setTimeout(r, idleFor));
  const c2 = treeCpu(ctx.nextPid);
  const scale = took / idleFor;
  const sched = c1.schedMs - c0.schedMs - (c2.schedMs - c1.schedMs) * scale;
  const stat = c1.statMs - c0.statMs - (c2.statMs - c1.statMs) * scale;
  return {
    visit,
    cpu: sched,
    detail: `${ms(sched)} (schedstat; utime+stime ${ms(stat)}; visit ${ms(took)}, idle ${ms((c2.schedMs - c1.schedMs) * scale)})`,
  };
}

/**
 * CPU of the console for one `GET /api/run-view` of a run it has cached, read to the end by fetch:
 * the view's own cost, without the page's server rendering that a repeat visit also pays. One GET
 * checks the answer is a hit; the figure is the median of FLOOR_ROUNDS more (one GET alone gave
 * 7.3 and 24.6 ms for the same 10,000-event run in two runs of the bench).
 */
async function runViewHit(ctx: Ctx, run: SeededRun): Promise<Value> {
  // gzip=1 as the browser asks (lib/run-view/stream.ts): a plain answer now inflates the cached gzip.
  const url = `${ctx.base}/api/run-view?workflow_id=${encodeURIComponent(run.workflowId)}&run_id=${encodeURIComponent(run.runId)}&gzip=1`;
  const res = await fetch(url, { headers: { "X-Namespace": "default" }, signal: AbortSignal.timeout(120_000) });
  await res.arrayBuffer().catch(() => undefined);
  if (res.status !== 200) return na(`GET /api/run-view answered ${res.status}`);
  const how = res.headers.get("x-breakwater-run-view");
  if (how !== "hit") return na(`GET /api/run-view answered ${how ?? "no X-Breakwater-Run-View"}, not hit`);
  return cpuPerRound(ctx, [url]);
}

const FLOOR_ROUNDS = 20;

/**
 * The console's CPU for one round of GETs of `urls` (each read to the end, one after another),
 * median of FLOOR_ROUNDS rounds after 3 unmeasured ones: what each part of a repeat view costs, and
 * what any request and any page cost whatever they show.
 */
async function cpuPerRound(ctx: Ctx, urls: readonly string[]): Promise<Value> {
  const round = async () => {
    for (const url of urls) {
      // As Chromium asks (less its zstd), so the static files go out as their brotli copies.
      const res = await fetch(url, {
        headers: { "X-Namespace": "default", "Accept-Encoding": "gzip, deflate, br" },
        signal: AbortSignal.timeout(60_000),
      });
      await res.arrayBuffer();
      if (res.status >= 500) throw new Error(`${url} answered ${res.status}`);
    }
  };
  try {
    for (let i = 0; i < 3; i++) await round();
    await settleCpu(ctx.nextPid);
    const cpus: number[] = [];
    for (let i = 0; i < FLOOR_ROUNDS; i++) {
      const c0 = treeCpu(ctx.nextPid).schedMs;
      await round();
      cpus.push(treeCpu(ctx.nextPid).schedMs - c0);
    }
    return median(cpus) ?? na("no round");
  } catch (e) {
    return na(e instanceof Error ? e.message : String(e));
  }
}

/** The repeat view taken apart: its document, the files the document names, and the two floors. */
async function repeatViewParts(ctx: Ctx, run: SeededRun): Promise<Record<string, Value>> {
  const page = runUrl(ctx.base, run);
  const html = await fetch(page, { signal: AbortSignal.timeout(60_000) }).then((r) => r.text());
  const files = [...new Set(html.match(/\/_next\/static\/[^"'\s]+\.(?:js|css)/g) ?? [])].map((p) => `${ctx.base}${p}`);
  return {
    serverCpuDocumentMs: await cpuPerRound(ctx, [page]),
    serverCpuStaticMs:
      files.length > 0 ? await cpuPerRound(ctx, files) : na("the document names no script or style file"),
    serverCpuShellDocumentMs: await cpuPerRound(ctx, [`${ctx.base}/namespaces/default/no-such-screen`]),
    serverCpuRouteMs: await cpuPerRound(ctx, [`${ctx.base}/api/healthz`]),
  };
}

async function exportDownload(ctx: Ctx, run: SeededRun): Promise<Record<string, Value>> {
  const tree = processTree(ctx.nextPid);
  const before = await settledRss(ctx, tree);
  const peak = samplePeak(() => rssOf(tree), 50);
  const t0 = Date.now();
  let bytes = 0;
  let head = new Uint8Array(0);
  try {
    const res = await fetch(runUrl(ctx.base, run, "/export"), { signal: AbortSignal.timeout(300_000) });
    if (!res.ok || !res.body) {
      peak.stop();
      return { exportRssMB: na(`the export route answered ${res.status}`) };
    }
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (bytes === 0) head = value.subarray(0, 2);
      bytes += value.byteLength;
    }
  } catch (e) {
    peak.stop();
    return { exportRssMB: na(`download failed after ${bytes} bytes: ${e instanceof Error ? e.message : String(e)}`) };
  }
  const seconds = (Date.now() - t0) / 1000;
  const out: Record<string, Value> = {
    exportRssMB: (peak.stop() - before) / MB,
    exportSeconds: seconds,
    exportMB: bytes / MB,
  };
  // fetch undoes one Content-Encoding: gzip magic left over means the body was compressed twice.
  if (head[0] === 0x1f && head[1] === 0x8b) {
    out.exportMB = na(
      `the body is still gzip after decoding (compressed twice): ${(bytes / MB).toFixed(1)} MB of gzip`,
    );
  } else if (head[0] !== "{".charCodeAt(0)) {
    out.exportMB = na(`the body does not start with "{" (first bytes ${[...head].join(" ")})`);
  }
  return out;
}

/** The long tasks as `duration@start`, longest first: which part of the load each one was. */
function longTasksAt(v: VisitResult): string {
  return [...v.tasks]
    .sort((a, b) => b.duration - a.duration)
    .map((t) => `${t.duration.toFixed(0)}@${t.start.toFixed(0)}`)
    .join(" ");
}

function describeVisit(v: VisitResult, i: number): string {
  const longest = v.tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  return [
    `visit ${i}: header ${v.headerMs === null ? v.headerNote : ms(v.headerMs)}`,
    v.headerPaintedMs === null ? null : `painted ${ms(v.headerPaintedMs)}`,
    v.firstContentfulPaintMs === null ? null : `first contentful paint ${ms(v.firstContentfulPaintMs)}`,
    v.bytesBeforePaint === null ? null : `${(v.bytesBeforePaint / 1024).toFixed(0)} KB before`,
    v.hydratedMs === null ? null : `hydrated ${ms(v.hydratedMs)}`,
    `ledger first ${v.ledgerFirstMs === null ? "-" : ms(v.ledgerFirstMs)} full ${v.ledgerFullMs === null ? "-" : ms(v.ledgerFullMs)} (${v.ledgerNote})`,
    v.tasks.length === 0
      ? "no long task (≥ 50 ms)"
      : `longest task ${ms(longest)} of ${v.tasks.length} (${longTasksAt(v)})`,
    `heap ${v.heapPeak === null ? "-" : `${(v.heapPeak / MB).toFixed(0)} MB`}, renderers ${(v.rendererRssPeak / MB).toFixed(0)} MB`,
    v.network.length > 0 ? v.network.join(", ") : null,
    v.pageErrors.length > 0 ? `page errors: ${v.pageErrors.join(" | ")}` : null,
    `${(v.wallMs / 1000).toFixed(1)} s`,
  ]
    .filter((s) => s !== null)
    .join("; ");
}

/** The longest task of the visits that showed the run. */
function longestTask(visits: readonly VisitResult[]): Value {
  const shown = visits.filter((v) => v.headerMs !== null);
  if (shown.length === 0) return na("the run screen never showed");
  return Math.max(0, ...shown.flatMap((v) => v.tasks.map((t) => t.duration)));
}

/**
 * Repeat views in one tab of a browser context that has visited once (not measured): static files
 * come from its cache, and from the third load on Chromium compiles the scripts from its code cache.
 * An operator's console tab is mostly this; the fresh-context visits are a first visit's worst case.
 * (Each visit navigates the same tab from about:blank: run-visit.ts says why not a tab per visit.)
 */
async function cachedRepeats(ctx: Ctx, run: SeededRun, label: string): Promise<Record<string, Value>> {
  if (REPEATS === 0)
    return { serverCpuRepeatCachedMs: na("BENCH_VISITS=0"), longestTaskCachedMs: na("BENCH_VISITS=0") };
  const { cpus, visits } = await repeatsInOneTab(ctx, run, `${label}: repeat view, same tab`);
  return {
    serverCpuRepeatCachedMs: median(cpus) ?? na("no repeat view showed the run"),
    longestTaskCachedMs: longestTask(visits),
  };
}

/**
 * One unmeasured visit in a new context's one tab, then BENCH_VISITS measured repeat views in it
 * (`from`: each arriving by a click on that page's link to the run). The console CPU of the views
 * that showed the run, and every visit.
 */
async function repeatsInOneTab(
  ctx: Ctx,
  run: SeededRun,
  line: string,
  from?: string,
): Promise<{ cpus: number[]; visits: VisitResult[] }> {
  const context = await ctx.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const cpus: number[] = [];
  const visits: VisitResult[] = [];
  try {
    const tab = await context.newPage();
    await visitRun(ctx.browser, runUrl(ctx.base, run), {
      ...visitOpts,
      tab,
      from: from === undefined ? undefined : { url: from },
    });
    for (let i = 0; i < REPEATS; i++) {
      const r = await repeatView(ctx, run, tab, from);
      visits.push(r.visit);
      console.log(`${line}: ${describeVisit(r.visit, i + 2)}; console CPU ${r.detail} (${load()})`);
      if (r.visit.headerMs !== null) cpus.push(r.cpu);
    }
  } finally {
    await context.close();
  }
  return { cpus, visits };
}

/**
 * BENCH_VISITS repeat views as an operator mostly makes them: in one tab, a click on the run's link
 * in the runs list (a client-side navigation: no document, the shell and its scripts stay). One
 * unmeasured arrival first warms the tab's caches. Console CPU counts from the click, so it holds
 * the run page's server-component payload and the run view's cached GET, and not the list's load.
 */
async function linkRepeats(ctx: Ctx, run: SeededRun, label: string): Promise<Record<string, Value>> {
  const keys = ["serverCpuRepeatLinkMs", "headerLinkMs", "ledgerFirstLinkMs", "longestTaskLinkMs"];
  if (REPEATS === 0) return Object.fromEntries(keys.map((k) => [k, na("BENCH_VISITS=0")]));
  const { cpus, visits } = await repeatsInOneTab(
    ctx,
    run,
    `${label}: repeat view by a link, same tab`,
    `${ctx.base}/namespaces/default/runs`,
  );
  return {
    serverCpuRepeatLinkMs: median(cpus) ?? na("no repeat view by a link showed the run"),
    headerLinkMs: medianOf(
      visits,
      (v) => v.headerMs,
      (v) => v.headerNote,
    ),
    ledgerFirstLinkMs: medianOf(
      visits,
      (v) => v.ledgerFirstMs,
      (v) => v.headerNote || v.ledgerNote,
    ),
    longestTaskLinkMs: longestTask(visits),
  };
}

/**
 * One more fresh-browser repeat view with a Chrome trace (not among the medians: tracing slows the
 * page), for what the long tasks are made of: the most CPU one main-thread task used, beside its
 * wall time, and how long the main thread sat in synchronous calls (on Linux, the browser's font
 * lookups). The longest-task figure is wall time; on 2 cores most of it is waiting.
 */
async function tracedView(ctx: Ctx, run: SeededRun, label: string): Promise<Record<string, Value>> {
  const dir = mkdtempSync(join(tmpdir(), "bw-trace-"));
  const path = join(dir, "visit.json");
  try {
    const visit = await visitRun(ctx.browser, runUrl(ctx.base, run), { ...visitOpts, trace: path });
    if (visit.headerMs === null) {
      const why = na(`the traced view did not show the run: ${visit.headerNote}`);
      return { tracedTaskCpuMs: why, tracedBlockedMs: why };
    }
    const tasks = mainTasks(readTrace(path)).filter((t) => t.at >= 0);
    if (tasks.length === 0 || tasks.every((t) => t.cpuMs === 0)) {
      const why = na("the trace has no main-thread tasks with thread time");
      return { tracedTaskCpuMs: why, tracedBlockedMs: why };
    }
    const longest = tasks.reduce((a, b) => (b.wallMs > a.wallMs ? b : a));
    const busiest = tasks.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a));
    const blocked = tasks.reduce((n, t) => n + t.blockedMs, 0);
    const calls = tasks.reduce((n, t) => n + t.syncCalls, 0);
    const fonts = tasks.reduce((n, t) => n + t.fontCalls, 0);
    console.log(
      `${label}: repeat view, traced: ${describeVisit(visit, 0)}; longest task at ${ms(longest.at)}: ${describeTask(longest)}; most CPU at ${ms(busiest.at)}: ${describeTask(busiest)}; blocked ${ms(blocked)} in ${calls} synchronous calls (${fonts} font lookups) (${load()})`,
    );
    return { tracedTaskCpuMs: busiest.cpuMs, tracedBlockedMs: blocked };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchRun(ctx: Ctx, run: SeededRun, seedSeconds: number): Promise<Record<string, Value>> {
  const label = `run detail ${run.events} events`;
  const out: Record<string, Value> = { seedSeconds };
  const first = await firstView(ctx, run);
  console.log(
    `${label}: first view: ${describeVisit(first.visit, 1)}; console RSS ${(first.rssBefore / MB).toFixed(0)} MB collected before, +${(first.rssExtra / MB).toFixed(1)} MB at the peak, +${(first.rssKept / MB).toFixed(1)} MB collected after (${load()})`,
  );
  out.serverRssFirstMB = first.visit.headerMs === null ? na(first.visit.headerNote) : first.rssExtra / MB;
  out.serverRssKeptMB = first.visit.headerMs === null ? na(first.visit.headerNote) : first.rssKept / MB;
  const visits = [first.visit];
  const cpus: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const r = await repeatView(ctx, run);
    visits.push(r.visit);
    console.log(`${label}: repeat view: ${describeVisit(r.visit, i + 2)}; console CPU ${r.detail} (${load()})`);
    if (r.visit.headerMs !== null) cpus.push(r.cpu);
  }
  Object.assign(out, await cachedRepeats(ctx, run, label));
  Object.assign(out, await linkRepeats(ctx, run, label));
  Object.assign(out, await tracedView(ctx, run, label));
  out.serverCpuRunViewHitMs = await runViewHit(ctx, run);
  Object.assign(out, await repeatViewParts(ctx, run));
  const m = median(cpus);
  out.serverCpuRepeatMs = m ?? na(REPEATS === 0 ? "BENCH_VISITS=0" : "no repeat view showed the run");
  out.headerMs = medianOf(
    visits,
    (v) => v.headerMs,
    (v) => v.headerNote,
  );
  out.headerPaintedMs = medianOf(
    visits,
    (v) => v.headerPaintedMs,
    (v) =>
      v.headerNote ||
      "no element-timing entry for the header and the exceptions (a build without the elementtiming marks)",
  );
  out.bytesBeforePaintKB = medianOf(
    visits,
    (v) => (v.bytesBeforePaint === null ? null : v.bytesBeforePaint / 1024),
    (v) => v.headerNote,
  );
  out.hydratedMs = medianOf(
    visits,
    (v) => v.hydratedMs,
    (v) => v.headerNote || "the page never marked itself hydrated",
  );
  out.ledgerFirstMs = medianOf(
    visits,
    (v) => v.ledgerFirstMs,
    (v) => v.headerNote || v.ledgerNote,
  );
  out.ledgerFullMs = medianOf(
    visits,
    (v) => v.ledgerFullMs,
    (v) => v.headerNote || v.ledgerNote,
  );
  out.longestTaskMs = longestTask(visits);
  const heaps = visits.map((v) => v.heapPeak).filter((h): h is number => h !== null);
  out.jsHeapMB = heaps.length > 0 ? Math.max(...heaps) / MB : na("Performance.getMetrics gave no JSHeapUsedSize");
  out.rendererRssMB = Math.max(...visits.map((v) => v.rendererRssPeak)) / MB;
  if (EXPORT_SIZES.includes(run.events)) {
    Object.assign(out, await exportDownload(ctx, run));
    console.log(
      `${label}: export download ${show(out.exportMB, "MB")} in ${show(out.exportSeconds, "s")}, console RSS +${show(out.exportRssMB, "MB")} (${load()})`,
    );
  }
  if (HISTORY_ROWS && run.events <= 50_000) {
    let rows: Value = na("the run screen never showed");
    const v = await visitRun(ctx.browser, runUrl(ctx.base, run), {
      ...visitOpts,
      history: async (page) => {
        const h = await scrollHistory(page, run.events, STEP_TIMEOUT_MS);
        rows = h.rows ?? na(h.note);
        console.log(`${label}: history: ${h.rows ?? "-"} rows at most over ${h.note}`);
      },
    });
    console.log(`${label}: history visit: ${describeVisit(v, visits.length + 1)}`);
    out.historyRows = rows;
  }
  for (const [key, value] of Object.entries(out)) {
    const d = DEF.get(key);
    if (!d) continue;
    const ok = budgeted(run.events) ? withinBudget(d, value) : null;
    figure(`${label}: ${d.label}`, show(value, d.unit), budgeted(run.events) ? budgetText(d) : "-", ok);
  }
  return out;
}

function seed(file: string): { runs: SeededRun[]; warmUp: SeededRun; seconds: Map<string, number> } {
  const db = openDb(file, systemClock);
  const seconds = new Map<string, number>();
  try {
    const warmUp = seedLongRun(db, "bench-history-warm-up", 500);
    const runs: SeededRun[] = [];
    for (const n of SIZES) {
      const t0 = Date.now();
      const run = seedLongRun(db, `bench-history-${n}`, n);
      const s = (Date.now() - t0) / 1000;
      seconds.set(run.runId, s);
      console.log(
        `seeded ${run.workflowId}: ${run.events} events, ${run.failures} exhausted activities in ${s.toFixed(1)} s (${load()})`,
      );
      runs.push(run);
    }
    return { runs, warmUp, seconds };
  } finally {
    db.close();
  }
}

/** `next start` on the built console against `serverUrl`, with its inspector for collectGarbage (no session stays attached). */
async function startConsole(serverUrl: string): Promise<{ ctx: Omit<Ctx, "browser">; stop: () => Promise<void> }> {
  const port = await freePort();
  const inspectPort = await freePort();
  const next = spawnChild(
    join(ROOT, "node_modules", ".bin", "next"),
    ["start", "-H", "127.0.0.1", "-p", String(port)],
    cleanEnv({ DW_SERVER_URL: serverUrl, PORT: String(port), NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` }),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${base}/api/healthz`, 120_000, () => next.child.exitCode === null).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}: ${next.output().slice(-2000)}`);
    });
    const pid = next.child.pid;
    if (pid === undefined) throw new Error("next start has no pid");
    return { ctx: { base, nextPid: pid, inspectPort }, stop: next.stop };
  } catch (e) {
    await next.stop();
    throw e;
  }
}

async function main(): Promise<void> {
  ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-run-detail-"));
  const children: Spawned[] = [];
  let browser: Browser | null = null;
  const now: Baseline = {
    bench: "run-detail",
    commit: gitCommit(),
    measuredAt: new Date().toISOString(),
    machine: `${process.platform}, load ${(loadavg()[0] ?? 0).toFixed(1)} at start, ${cpuCalibration()}`,
    notes: [],
    sizes: {},
  };
  try {
    const { runs, warmUp, seconds } = seed(join(dir, "runs.db"));
    const server = await startEmbeddedServer(join(dir, "runs.db"));
    children.push(server);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
    });
    for (const run of runs) {
      // A console of its own per run size: its memory figures do not inherit what an earlier size
      // left in the process (malloc keeps freed memory: 144 → 200 → 220 MB collected in one process).
      const next = await startConsole(server.url);
      try {
        const ctx: Ctx = { browser, ...next.ctx };
        // The first render of the route compiles and fills the console's caches: not any measured run's cost.
        const w = await visitRun(browser, runUrl(ctx.base, warmUp), visitOpts);
        console.log(`warm-up ${warmUp.events} events: ${describeVisit(w, 0)}`);
        now.sizes[String(run.events)] = await benchRun(ctx, run, seconds.get(run.runId) ?? 0);
      } finally {
        await next.stop();
      }
    }
  } finally {
    await browser?.close().catch(() => undefined);
    for (const c of children.reverse()) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  now.machine += ` at start, ${cpuCalibration()} at the end`;
  const before = readBaseline(BASELINE);
  console.log(`\n# run view: before (${BASELINE.replace(`${ROOT}/`, "")}) and now (${now.machine})\n`);
  console.log(comparison(DEFS, now, before, budgeted));
  if (WRITE_BASELINE) {
    writeBaseline(WRITE_BASELINE, now);
    console.log(`\nfigures written to ${WRITE_BASELINE}`);
  }
}

bounded("run-detail bench", Number(process.env.BENCH_LIMIT_MS ?? 30 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
