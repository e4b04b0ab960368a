import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import type { Browser, Page } from "@playwright/test";
import { systemClock } from "../server/clock";
import { openDb } from "../server/store/db";
import type { SeededRun } from "./support/history-seed";
import { seedLongRun } from "./support/history-seed";
import {
  bounded,
  cleanEnv,
  ensureBuild,
  figure,
  freePort,
  load,
  ms,
  percentiles,
  ROOT,
  spawnChild,
  startEmbeddedServer,
  waitForHttp,
} from "./support/report";
import type { Spawned } from "./support/report";

/**
 * Run detail of a 10,000-event and a 50,000-event run in real Chromium: the embedded server
 * (child process) on a fresh SQLite file holding both runs, the production console
 * (`next start`, DW_SERVER_URL → that server), and Playwright's chromium headless.
 *
 * Per run: one warm-up visit (the console's first render of a route compiles and fills caches),
 * then VISITS fresh-context visits of /namespaces/default/workflows/{id}/runs/{runId} timing navigation start →
 * header and exceptions table visible (in-page performance.now(), whose origin is navigation
 * start). Each visit then waits for the network to go idle (the export bundle included) and the
 * next one starts only once the server answers again. On the last visit the History tab is
 * opened, the full history loaded and scrolled top to bottom, counting the history list's DOM
 * rows. Long tasks (PerformanceObserver "longtask") are collected over every measured visit,
 * from navigation to the end of scrolling.
 *
 * Selectors are the run screen's data-testids (components/run-detail/**): run-header, exceptions-table,
 * history-list; the History tab is the tab named "History". A missing one prints
 * "not measurable: …" for the figures that need it instead of failing the whole bench.
 */

const VISITS = Number(process.env.BENCH_VISITS ?? 3);
const SIZES = (process.env.BENCH_HISTORY_SIZES ?? "10000,50000").split(",").map(Number);
/** When set, each measured visit's main-thread CPU profile is written here (open it in Chrome DevTools). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? null;
let profiles = 0;
const STEP_TIMEOUT_MS = 90_000;
/** How long a visit may take to finish loading (the export bundle of a 50,000-event run is large). */
const SETTLE_TIMEOUT_MS = 180_000;
const HEADER_BUDGET_MS = 1000;
const ROWS_BUDGET = 150;
const LONG_TASK_BUDGET_MS = 200;

const SEL = {
  header: '[data-testid="run-header"]',
  exceptions: '[data-testid="exceptions-table"]',
  list: '[data-testid="history-list"]',
  row: '[role="listitem"]',
};

interface LongTask {
  start: number;
  duration: number;
}

// Runs in the page before any of its scripts: long tasks from the very first one on.
const OBSERVE_LONG_TASKS = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {}
`;

async function longTasks(page: Page): Promise<LongTask[]> {
  return page.evaluate(() => (window as unknown as { __longTasks?: LongTask[] }).__longTasks ?? []);
}

/** ms from navigation start until every selector is in the DOM with a non-empty box, or null on timeout. */
async function visibleAt(page: Page, selectors: string[]): Promise<number | null> {
  try {
    const handle = await page.waitForFunction(
      (sels: string[]) => {
        const ok = sels.every((s) => {
          const el = document.querySelector(s);
          if (!el) return false;
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0;
        });
        return ok ? performance.now() : false;
      },
      selectors,
      { polling: "raf", timeout: STEP_TIMEOUT_MS },
    );
    return (await handle.jsonValue()) as number;
  } catch {
    return null;
  }
}

interface Visit {
  exportNote: string;
  headerMs: number | null;
  missing: string[];
  note: string;
  tasks: LongTask[];
  rows: number | null;
  rowsNote: string;
  historyLoadedMs: number | null;
}

async function missingSelectors(page: Page, selectors: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of selectors) if ((await page.locator(s).count()) === 0) out.push(s);
  return out;
}

/** Opens the History tab, waits for the whole history, scrolls it top to bottom; the most rows seen at once. */
async function scrollHistory(
  page: Page,
  events: number,
): Promise<{ rows: number | null; note: string; loadedMs: number | null }> {
  const tab = page.getByRole("tab", { name: "History" });
  if ((await tab.count()) === 0) return { rows: null, note: "not measurable: no tab named History", loadedMs: null };
  const t0 = Date.now();
  await tab.click();
  try {
    await page.waitForSelector(`${SEL.list} ${SEL.row}`, { timeout: STEP_TIMEOUT_MS });
  } catch {
    return { rows: null, note: `not measurable: ${SEL.list} has no ${SEL.row} after opening History`, loadedMs: null };
  }
  // Loaded when the list is tall enough for every event (rows are fixed-height).
  try {
    await page.waitForFunction(
      ({ list, row, n }: { list: string; row: string; n: number }) => {
        const el = document.querySelector(list);
        const first = el?.querySelector(row);
        if (!el || !(first instanceof HTMLElement)) return false;
        return el.scrollHeight >= n * first.offsetHeight * 0.99;
      },
      { list: SEL.list, row: SEL.row, n: events },
      { polling: 250, timeout: STEP_TIMEOUT_MS },
    );
  } catch {
    return {
      rows: null,
      note: `not measurable: the history list did not grow to ${events} rows within ${STEP_TIMEOUT_MS / 1000} s`,
      loadedMs: null,
    };
  }
  const loadedMs = Date.now() - t0;
  let most = 0;
  const steps = 40;
  for (let i = 0; i <= steps; i++) {
    const rows = await page.evaluate(
      async ({ list, row, f }: { list: string; row: string; f: number }) => {
        const el = document.querySelector(list);
        if (!el) return 0;
        el.scrollTop = f * (el.scrollHeight - el.clientHeight);
        el.dispatchEvent(new Event("scroll"));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return el.querySelectorAll(row).length;
      },
      { list: SEL.list, row: SEL.row, f: i / steps },
    );
    most = Math.max(most, rows);
  }
  return { rows: most, note: `${steps + 1} scroll positions top to bottom`, loadedMs };
}

/** What the page shows instead of the run screen, for a "not measurable" line. */
async function pageSays(page: Page): Promise<string> {
  const text = await page.evaluate(() => document.body?.innerText ?? "").catch(() => "");
  return text.replace(/\s+/g, " ").trim().slice(0, 200) || "(empty page)";
}

async function visit(
  browser: Browser,
  url: string,
  events: number,
  mode: "warm-up" | "measure" | "history",
): Promise<Visit> {
  const withHistory = mode === "history";
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(OBSERVE_LONG_TASKS);
    const page = await context.newPage();
    // The export bundle fills in the full exceptions, ledger and timeline; whether it arrived matters for every figure after the header.
    let exportNote = "export bundle not requested";
    const navStart = Date.now();
    page.on("requestfinished", (req) => {
      if (!req.url().includes("/history/export")) return;
      void req.response().then(async (res) => {
        const size = (await req.sizes().catch(() => null))?.responseBodySize ?? 0;
        exportNote = `export bundle ${res?.status() ?? "?"} at ${ms(Date.now() - navStart)}, ${(size / 1_048_576).toFixed(1)} MB`;
      });
    });
    page.on("requestfailed", (req) => {
      if (req.url().includes("/history/export"))
        exportNote = `export bundle failed at ${ms(Date.now() - navStart)}: ${req.failure()?.errorText ?? "?"}`;
    });
    page.on("request", (req) => {
      if (req.url().includes("/history/export")) exportNote = "export bundle still loading when the visit ended";
    });
    const cdp = PROFILE_DIR && mode !== "warm-up" ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.start");
    }
    try {
      await page.goto(url, { waitUntil: "commit", timeout: STEP_TIMEOUT_MS });
    } catch (e) {
      const why = `navigation failed: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`;
      return {
        headerMs: null,
        missing: [],
        note: why,
        tasks: [],
        rows: null,
        rowsNote: `not measurable: ${why}`,
        historyLoadedMs: null,
        exportNote,
      };
    }
    const headerMs = await visibleAt(page, [SEL.header, SEL.exceptions]);
    const missing = headerMs === null ? await missingSelectors(page, [SEL.header, SEL.exceptions]) : [];
    const note = headerMs === null ? `page shows: ${await pageSays(page)}` : "";
    // Let the rest of the first load (hydration, export bundle, queries) happen inside the long-task window.
    if (mode !== "warm-up")
      await page.waitForLoadState("networkidle", { timeout: SETTLE_TIMEOUT_MS }).catch(() => undefined);
    let rows: number | null = null;
    let rowsNote = "";
    let historyLoadedMs: number | null = null;
    if (withHistory && headerMs !== null) {
      const h = await scrollHistory(page, events);
      rows = h.rows;
      rowsNote = h.note;
      historyLoadedMs = h.loadedMs;
    }
    if (withHistory && headerMs === null) rowsNote = "not measurable: the run screen never showed";
    if (cdp && PROFILE_DIR) {
      const { profile } = await cdp.send("Profiler.stop");
      mkdirSync(PROFILE_DIR, { recursive: true });
      writeFileSync(
        join(PROFILE_DIR, `run-detail-${events}-${mode}-${++profiles}.cpuprofile`),
        JSON.stringify(profile),
      );
    }
    return { headerMs, missing, note, tasks: await longTasks(page), rows, rowsNote, historyLoadedMs, exportNote };
  } finally {
    await context.close();
  }
}

/**
 * Waits until the embedded server answers a cheap request again: work a closed visit left behind
 * (an export bundle still being built) must not be charged to the next visit.
 */
async function quiesce(serverUrl: string): Promise<number> {
  const t0 = Date.now();
  await fetch(`${serverUrl}/api/workflows?page_size=1`, {
    headers: { "x-durable-workflow-control-plane-version": "2" },
    signal: AbortSignal.timeout(5 * 60_000),
  })
    .then((r) => r.arrayBuffer())
    .catch(() => undefined);
  return Date.now() - t0;
}

async function benchRun(browser: Browser, base: string, serverUrl: string, run: SeededRun): Promise<void> {
  // The namespaced path itself (decision 0017): a bare /workflows/… link would add a 307 to every visit.
  const url = `${base}/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/runs/${encodeURIComponent(run.runId)}`;
  const label = `run detail ${run.events} events`;
  await visit(browser, url, run.events, "warm-up");
  const visits: Visit[] = [];
  const waits: number[] = [];
  for (let i = 0; i < VISITS; i++) {
    waits.push(await quiesce(serverUrl));
    visits.push(await visit(browser, url, run.events, i === VISITS - 1 ? "history" : "measure"));
  }
  if (waits.some((w) => w > 1000))
    console.log(
      `${label}: the server was still busy from the previous visit for ${waits.map((w) => ms(w)).join(", ")} before each visit`,
    );

  const times = visits.map((v) => v.headerMs).filter((v): v is number => v !== null);
  if (times.length < visits.length) {
    const missing = [...new Set(visits.flatMap((v) => v.missing))];
    const notes = [...new Set(visits.map((v) => v.note).filter((n) => n !== ""))].join(" | ");
    console.log(
      `${label}: not measurable: ${missing.length > 0 ? `${missing.join(", ")} not on the page` : `header/exceptions not visible within ${STEP_TIMEOUT_MS / 1000} s`}; ${notes} (${load()})`,
    );
    figure(
      `${label}: header + exceptions visible`,
      "not measurable",
      run.events <= 10_000 ? `< ${HEADER_BUDGET_MS} ms` : "-",
      null,
    );
  } else {
    const p = percentiles(times);
    console.log(
      `${label}: header + exceptions visible after ${times.map((t) => ms(t)).join(", ")} (median ${ms(p.p50)}, ${run.failures + 1} exception rows) (${load()})`,
    );
    figure(
      `${label}: header + exceptions visible (median of ${times.length})`,
      ms(p.p50),
      run.events <= 10_000 ? `< ${HEADER_BUDGET_MS} ms` : "-",
      run.events <= 10_000 ? p.p50 < HEADER_BUDGET_MS : null,
    );
  }

  const last = visits.at(-1);
  if (!last) throw new Error(`${label}: no visit was made`);
  if (last.rows === null) {
    console.log(`${label}: history rows ${last.rowsNote} (${load()})`);
    figure(`${label}: history DOM rows after scrolling`, "not measurable", `≤ ${ROWS_BUDGET}`, null);
  } else {
    console.log(
      `${label}: history loaded in ${ms(last.historyLoadedMs ?? Number.NaN)}, at most ${last.rows} rows in the DOM over ${last.rowsNote} (${load()})`,
    );
    figure(
      `${label}: history DOM rows after scrolling`,
      String(last.rows),
      `≤ ${ROWS_BUDGET}`,
      last.rows <= ROWS_BUDGET,
    );
  }

  console.log(`${label}: ${visits.map((v, i) => `visit ${i + 1}: ${v.exportNote}`).join("; ")}`);
  const rendered = visits.filter((v) => v.headerMs !== null);
  const budgeted = run.events >= 50_000;
  if (rendered.length === 0) {
    console.log(`${label}: longest main-thread task not measurable: the run screen never showed (${load()})`);
    figure(
      `${label}: longest main-thread task`,
      "not measurable",
      budgeted ? `≤ ${LONG_TASK_BUDGET_MS} ms` : "-",
      null,
    );
    return;
  }
  const all = visits.flatMap((v) => v.tasks);
  const longest = all.reduce((m, t) => Math.max(m, t.duration), 0);
  // Where each visit's longest task fell: before the header showed (first load), or after (hydration, export, History).
  const perVisit = visits
    .map((v) => {
      const top = v.tasks.reduce<LongTask | null>((m, t) => (m === null || t.duration > m.duration ? t : m), null);
      if (!top) return "none";
      return `${ms(top.duration)} at ${ms(top.start)}${v.headerMs !== null ? (top.start < v.headerMs ? " (before header)" : " (after header)") : ""}`;
    })
    .join("; ");
  console.log(
    `${label}: longest main-thread task ${ms(longest)} (per visit: ${perVisit}; ${all.length} long tasks in all; the last visit includes History and scrolling) (${load()})`,
  );
  // Without the export bundle the screen skipped its heaviest work: say so beside the figure.
  const noBundle = visits.some((v) => !/^export bundle 200 /.test(v.exportNote));
  figure(
    `${label}: longest main-thread task`,
    `${ms(longest)}${noBundle ? " (no export bundle)" : ""}`,
    budgeted ? `≤ ${LONG_TASK_BUDGET_MS} ms` : "-",
    budgeted ? longest <= LONG_TASK_BUDGET_MS : null,
  );
}

async function main(): Promise<void> {
  ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-run-detail-"));
  const children: Spawned[] = [];
  let browser: Browser | null = null;
  try {
    const file = join(dir, "runs.db");
    const db = openDb(file, systemClock);
    const runs: SeededRun[] = [];
    for (const n of SIZES) {
      const t0 = Date.now();
      const run = seedLongRun(db, `bench-history-${n}`, n);
      console.log(
        `seeded ${run.workflowId}: ${run.events} events, ${run.failures} exhausted activities in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      runs.push(run);
    }
    db.close();

    const server = await startEmbeddedServer(file);
    children.push(server);
    const port = await freePort();
    const next = spawnChild(
      join(ROOT, "node_modules", ".bin", "next"),
      ["start", "-H", "127.0.0.1", "-p", String(port)],
      cleanEnv({ DW_SERVER_URL: server.url, PORT: String(port) }),
    );
    children.push(next);
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/api/healthz`, 120_000, () => next.child.exitCode === null).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}: ${next.output().slice(-2000)}`);
    });

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
    });
    for (const run of runs) await benchRun(browser, base, server.url, run);
  } finally {
    await browser?.close().catch(() => undefined);
    for (const c of children.reverse()) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

bounded("run-detail bench", Number(process.env.BENCH_LIMIT_MS ?? 20 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
