import type { Browser, BrowserContext, CDPSession, Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { samplePeak, rssOf, treeMatching } from "./proc";
import { TASK_TRACE_CATEGORIES } from "./trace-tasks";
import { ELEMENT_TIMING } from "../../components/ui/element-timing";

/**
 * One fresh-context visit of a run page in Chromium, measuring issue 14's browser-side figures.
 * Selectors are tolerant, so the same visit measures the console before issue 14 (the ledger
 * appears whole once the export bundle is prepared: `[data-testid="activities"]`,
 * `[data-testid="activity"]`) and after it (the paged ledger: `[data-testid="activities-ledger"]`
 * with `data-complete="true"`, one `[data-testid="ledger-activity"]` per rendered activity).
 * A figure that cannot be taken is null, with the reason in a note.
 */

export const SEL = {
  header: '[data-testid="run-header"]',
  exceptions: '[data-testid="exceptions-table"]',
  ledgerNew: '[data-testid="activities-ledger"]',
  ledgerItemNew: '[data-testid="ledger-activity"]',
  ledgerItemOld: '[data-testid="activities"] [data-testid="activity"]',
  progress: '[data-testid="run-view-progress"]',
  list: '[data-testid="history-list"]',
  row: '[role="listitem"]',
};

export interface LongTask {
  start: number;
  duration: number;
}

export interface VisitResult {
  /** ms from navigation start until header and exceptions table both have a box. */
  headerMs: number | null;
  headerNote: string;
  /**
   * The page's first contentful paint (ms from navigation start), beside the header figure: the
   * header is taken when a requestAnimationFrame poll first sees it, so a main thread busy with
   * scripts between the paint and the next frame shows up as the gap between the two.
   */
  firstContentfulPaintMs: number | null;
  /**
   * ms from navigation start until the header's and the exceptions' text were both painted, as the
   * browser reports it (Element Timing); null where an entry is missing. The header figure above
   * is when a poll first saw them, which a busy main thread (Playwright's own injected scripts
   * among it) can hold back.
   */
  headerPaintedMs: number | null;
  /** Encoded bytes (headers and bodies, as on the wire) received by the page until that paint. */
  bytesBeforePaint: number | null;
  /**
   * ms from navigation start until the page marked itself hydrated (its root committed; nested
   * boundaries may hydrate later). The ledger can show only after it: the Activities click made
   * before then opens the tab when hydration ends.
   */
  hydratedMs: number | null;
  /** ms from navigation start: first ledger activity visible (Activities tab clicked once the header showed). */
  ledgerFirstMs: number | null;
  /** ms from navigation start: the whole ledger (new UI: data-complete="true"; old UI: the bundle's ledger rendered). */
  ledgerFullMs: number | null;
  ledgerNote: string;
  tasks: LongTask[];
  /** Peak of Performance.getMetrics JSHeapUsedSize (the page's main thread; Web Workers not included). */
  heapPeak: number | null;
  /** Peak resident memory of the renderer processes (their workers included). */
  rendererRssPeak: number;
  pageErrors: string[];
  /** What the page fetched that matters for the run view: the export bundle, /api/run-view. */
  network: string[];
  wallMs: number;
}

export interface VisitOptions {
  stepTimeoutMs: number;
  ledgerTimeoutMs: number;
  settleTimeoutMs: number;
  /**
   * Visit in this tab (its context kept open, so HTTP cache and code cache are warm from earlier
   * visits) instead of a fresh context. The tab goes to about:blank first: each visit is a new
   * navigation, not a reload. One tab and not a new one per visit: for most new tabs of a context
   * after its first, Chromium renders its omnibox popup (chrome://omnibox-popup.top-chrome, a
   * renderer of its own), which used 200–540 ms of CPU beside the visit on 2 cores.
   */
  tab?: Page;
  /** Extra steps inside the visit, after the ledger and the network settled (the History scroll). */
  history?: (page: Page) => Promise<void>;
  /** Write a Chrome trace of the visit here (TASK_TRACE_CATEGORIES: each main-thread task's CPU and blocked time). */
  trace?: string;
  /**
   * Arrive as an operator mostly does, by a client-side navigation: load this page of the console
   * first (a full load, waited until hydrated and idle), then click its link to the run. The
   * figures are then from the click, not from a navigation start (no first paint, no hydration of
   * the run page). `ready` runs once that page has settled, just before the click.
   */
  from?: { url: string; ready?: () => Promise<void> };
}

// Runs in the page before any of its scripts: long tasks from the very first one on.
const OBSERVE_LONG_TASKS = `
  window.__longTasks = [];
  window.__elementPaints = {};
  try {
    // When the page marks itself hydrated (components/hooks/hydrated-mark.ts sets window.__bwHydrated).
    var hydrated;
    Object.defineProperty(window, "__bwHydrated", {
      configurable: true,
      get: function () { return hydrated; },
      set: function (v) { hydrated = v; if (v && window.__bwHydratedAt === undefined) window.__bwHydratedAt = performance.now(); },
    });
  } catch (e) {}
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (!(e.identifier in window.__elementPaints)) window.__elementPaints[e.identifier] = e.renderTime || e.loadTime;
    }).observe({ type: "element", buffered: true });
  } catch (e) {}
`;
/** The run page's `elementtiming` marks that make "header + exceptions". */
const HEADER_TIMINGS: string[] = Object.values(ELEMENT_TIMING);

function firstLine(e: unknown): string {
  return e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e);
}

/** Bytes on the wire per instant, from CDP Network events (monotonic timestamps mapped to epoch ms). */
function watchNetwork(cdp: CDPSession): { bytesUntil: (epochMs: number) => number } {
  let offset: number | null = null;
  const got = new Map<string, number>();
  const arrivals: { t: number; bytes: number }[] = [];
  cdp.on("Network.requestWillBeSent", (e) => {
    if (offset === null && typeof e.wallTime === "number") offset = e.wallTime * 1000 - e.timestamp * 1000;
  });
  cdp.on("Network.dataReceived", (e) => {
    arrivals.push({ t: e.timestamp * 1000, bytes: e.encodedDataLength });
    got.set(e.requestId, (got.get(e.requestId) ?? 0) + e.encodedDataLength);
  });
  // loadingFinished carries the total; what dataReceived did not report (headers, small bodies) lands here.
  cdp.on("Network.loadingFinished", (e) => {
    const rest = e.encodedDataLength - (got.get(e.requestId) ?? 0);
    if (rest > 0) arrivals.push({ t: e.timestamp * 1000, bytes: rest });
  });
  return {
    bytesUntil: (epochMs) => {
      if (offset === null) return 0;
      const until = epochMs - offset;
      return arrivals.reduce((sum, a) => (a.t <= until ? sum + a.bytes : sum), 0);
    },
  };
}

function sampleHeap(cdp: CDPSession): { stop: () => number | null } {
  let peak: number | null = null;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    cdp
      .send("Performance.getMetrics")
      .then(({ metrics }) => {
        const v = metrics.find((m) => m.name === "JSHeapUsedSize")?.value;
        if (v !== undefined) peak = Math.max(peak ?? 0, v);
      })
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, 200);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/** performance.now() and timeOrigin once every selector has a non-empty box, or null on timeout. */
async function visibleAt(page: Page, selectors: string[], timeout: number): Promise<[number, number] | null> {
  try {
    const handle = await page.waitForFunction(
      (sels: string[]) => {
        const ok = sels.every((s) => {
          const r = document.querySelector(s)?.getBoundingClientRect();
          return r !== undefined && r.width > 0 && r.height > 0;
        });
        return ok ? [performance.now(), performance.timeOrigin] : false;
      },
      selectors,
      { polling: "raf", timeout },
    );
    return (await handle.jsonValue()) as [number, number];
  } catch {
    return null;
  }
}

/** The header can paint (server-rendered) before hydration: click until the tab says it is selected. */
async function openActivities(page: Page, timeout: number): Promise<string | null> {
  const tab = page.getByRole("tab", { name: "Activities" });
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if ((await tab.count()) === 0) {
      await page.waitForTimeout(100);
      continue;
    }
    await tab.click({ timeout: 5000 }).catch(() => undefined);
    const selected = await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll('[role="tab"]')].some(
            (t) => t.textContent?.trim() === "Activities" && t.getAttribute("aria-selected") === "true",
          ),
        undefined,
        { timeout: 1000 },
      )
      .then(() => true)
      .catch(() => false);
    if (selected) return null;
  }
  return (await tab.count()) === 0 ? "no tab named Activities" : "the Activities tab never became selected";
}

async function ledgerTimes(
  page: Page,
  timeout: number,
): Promise<{ first: number | null; full: number | null; note: string }> {
  let first: number | null = null;
  try {
    const h = await page.waitForFunction(
      (s: typeof SEL) => {
        const el = document.querySelector(s.ledgerItemNew) ?? document.querySelector(s.ledgerItemOld);
        const r = el?.getBoundingClientRect();
        return r && r.width > 0 && r.height > 0 ? performance.now() : false;
      },
      SEL,
      { polling: "raf", timeout },
    );
    first = (await h.jsonValue()) as number;
  } catch {
    return { first: null, full: null, note: `no ledger activity within ${timeout / 1000} s` };
  }
  try {
    const h = await page.waitForFunction(
      (s: typeof SEL) => {
        const paged = document.querySelector(s.ledgerNew);
        if (paged)
          return paged.getAttribute("data-complete") === "true"
            ? [performance.now(), `paged ledger, data-total ${paged.getAttribute("data-total") ?? "?"}`]
            : false;
        // Before issue 14 the ledger only renders once the whole export bundle is prepared.
        return document.querySelector(s.ledgerItemOld)
          ? [performance.now(), `bundle ledger, ${document.querySelectorAll(s.ledgerItemOld).length} rendered`]
          : false;
      },
      SEL,
      { polling: 100, timeout },
    );
    const [full, note] = (await h.jsonValue()) as [number, string];
    return { first, full, note };
  } catch {
    return { first, full: null, note: `ledger not complete within ${timeout / 1000} s` };
  }
}

async function pageSays(page: Page): Promise<string> {
  const text = await page.evaluate(() => document.body?.innerText ?? "").catch(() => "");
  return text.replace(/\s+/g, " ").trim().slice(0, 200) || "(empty page)";
}

function watchRunRequests(page: Page, navStart: number): string[] {
  const notes: string[] = [];
  const wanted = (url: string) => url.includes("/history/export") || url.includes("/api/run-view");
  const name = (url: string) => (url.includes("/api/run-view") ? "run-view" : "export bundle");
  page.on("requestfinished", (req) => {
    if (!wanted(req.url())) return;
    void Promise.all([req.response(), req.sizes().catch(() => null)]).then(([res, sizes]) => {
      const mb = ((sizes?.responseBodySize ?? 0) / 1_048_576).toFixed(1);
      const hit = res?.headers()["x-breakwater-run-view"];
      notes.push(
        `${name(req.url())} ${res?.status() ?? "?"}${hit ? ` (${hit})` : ""} done at ${Date.now() - navStart} ms, ${mb} MB`,
      );
    });
  });
  page.on("requestfailed", (req) => {
    if (wanted(req.url())) notes.push(`${name(req.url())} failed: ${req.failure()?.errorText ?? "?"}`);
  });
  if (process.env.BENCH_TRACE === "1") traceRequests(page, navStart);
  return notes;
}

let profiled = 0;

/**
 * A Chrome trace of the visit: at `opts.trace` when asked (the categories `mainTasks` reads), or with
 * BENCH_PROFILE=<dir> one per visit (`visit-N.json`, with V8's sampling profiler as well; open it in
 * DevTools' Performance panel, or `node --import tsx bench/support/long-tasks.ts <file>`).
 */
async function startProfile(
  browser: Browser,
  page: Page,
  opts: VisitOptions,
): Promise<{ stop: () => Promise<void> } | null> {
  const dir = process.env.BENCH_PROFILE;
  if (!opts.trace && !dir) return null;
  let path = opts.trace;
  if (!path && dir) {
    mkdirSync(dir, { recursive: true });
    path = join(dir, `visit-${++profiled}.json`);
  }
  const sampled = dir ? ["disabled-by-default-v8.cpu_profiler", "v8.execute", "blink.user_timing"] : [];
  await browser.startTracing(page, { path, categories: [...TASK_TRACE_CATEGORIES, ...sampled] });
  return {
    stop: async () => {
      await browser.stopTracing();
      if (!opts.trace) console.log(`  profile ${path}`);
    },
  };
}

/** BENCH_TRACE=1: every request of the visit with its start and end from navigation, to see what waits on what. */
function traceRequests(page: Page, navStart: number): void {
  const began = new Map<unknown, number>();
  page.on("request", (req) => began.set(req, Date.now() - navStart));
  page.on("requestfinished", (req) => {
    void Promise.all([req.response(), req.sizes().catch(() => null)]).then(([res, sizes]) => {
      const u = new URL(req.url());
      const kb = ((sizes?.responseBodySize ?? 0) / 1024).toFixed(0);
      const start = began.get(req);
      // First byte and end from the request's own timing (ms after its start): the time this
      // callback runs is late by however busy the bench and the browser are.
      const timing = req.timing();
      const at = (ms: number): string => (start === undefined || ms < 0 ? "?" : String(Math.round(start + ms)));
      console.log(
        `  trace ${String(start ?? "?").padStart(5)} → ${at(timing.responseEnd).padStart(5)} ms (first byte ${at(timing.responseStart)}) ${res?.status() ?? "?"} ${kb} KB ${u.pathname}${u.search.slice(0, 80)}`,
      );
    });
  });
}

/**
 * Loads `from.url`, waits until it is hydrated (a click before then is a plain link: a full load) and
 * the network is idle, then clicks the link to `url`. Returns performance.now() at the click.
 */
async function arriveByLink(page: Page, url: string, from: NonNullable<VisitOptions["from"]>, timeout: number) {
  await page.goto(from.url, { waitUntil: "load", timeout });
  const link = page.locator(`a[href="${new URL(url).pathname}"]`).first();
  await link.waitFor({ state: "visible", timeout });
  await page.waitForFunction(() => (window as unknown as { __bwHydrated?: boolean }).__bwHydrated === true, undefined, {
    timeout,
  });
  await page.waitForLoadState("networkidle", { timeout }).catch(() => undefined);
  await from.ready?.();
  const at = await page.evaluate(() => performance.now());
  await link.click({ timeout });
  return at;
}

/** Contexts that already run the long-task observer (a reused context must not get it twice). */
const observed = new WeakSet<BrowserContext>();

export async function visitRun(browser: Browser, url: string, opts: VisitOptions): Promise<VisitResult> {
  const started = Date.now();
  const context = opts.tab?.context() ?? (await browser.newContext({ viewport: { width: 1440, height: 900 } }));
  const out: VisitResult = {
    headerMs: null,
    headerNote: "",
    firstContentfulPaintMs: null,
    headerPaintedMs: null,
    hydratedMs: null,
    bytesBeforePaint: null,
    ledgerFirstMs: null,
    ledgerFullMs: null,
    ledgerNote: "",
    tasks: [],
    heapPeak: null,
    rendererRssPeak: 0,
    pageErrors: [],
    network: [],
    wallMs: 0,
  };
  let page: Page | null = null;
  let cdp: CDPSession | null = null;
  let tracing: { stop: () => Promise<void> } | null = null;
  try {
    if (!observed.has(context)) await context.addInitScript(OBSERVE_LONG_TASKS);
    observed.add(context);
    page = opts.tab ?? (await context.newPage());
    if (opts.tab) await page.goto("about:blank");
    page.on("pageerror", (e) => out.pageErrors.push(firstLine(e)));
    cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Performance.enable");
    const net = watchNetwork(cdp);
    const heap = sampleHeap(cdp);
    const renderers = treeMatching(process.pid, /--type=renderer/);
    const rss = samplePeak(() => rssOf(renderers), 100);
    out.network = watchRunRequests(page, Date.now());
    tracing = await startProfile(browser, page, opts);
    // ms in the page's clock the figures count from: its navigation start, or the click on the link.
    let t0 = 0;
    try {
      if (opts.from) t0 = await arriveByLink(page, url, opts.from, opts.stepTimeoutMs);
      else await page.goto(url, { waitUntil: "commit", timeout: opts.stepTimeoutMs });
    } catch (e) {
      out.headerNote = `navigation failed: ${firstLine(e)}`;
      heap.stop();
      rss.stop();
      return out;
    }
    const painted = await visibleAt(page, [SEL.header, SEL.exceptions], opts.stepTimeoutMs);
    if (painted === null) {
      out.headerNote = `header/exceptions not visible within ${opts.stepTimeoutMs / 1000} s; page shows: ${await pageSays(page)}`;
    } else {
      const [at, origin] = painted;
      out.headerMs = at - t0;
      out.bytesBeforePaint = net.bytesUntil(origin + at) - (t0 > 0 ? net.bytesUntil(origin + t0) : 0);
      const why = await openActivities(page, opts.stepTimeoutMs);
      if (why !== null) out.ledgerNote = why;
      else {
        const l = await ledgerTimes(page, opts.ledgerTimeoutMs);
        out.ledgerFirstMs = l.first === null ? null : l.first - t0;
        out.ledgerFullMs = l.full === null ? null : l.full - t0;
        out.ledgerNote = l.note;
      }
      // The rest of the load (queries, a bundle still arriving) belongs inside the long-task window.
      await page.waitForLoadState("networkidle", { timeout: opts.settleTimeoutMs }).catch(() => undefined);
      if (opts.history) await opts.history(page);
      // Why a ledger never came is usually in what the page fetched (an export bundle that failed, say).
      if (out.ledgerFullMs === null && out.network.length > 0) out.ledgerNote += ` (${out.network.join(", ")})`;
    }
    const tasks = await page
      .evaluate(() => (window as unknown as { __longTasks?: LongTask[] }).__longTasks ?? [])
      .catch(() => []);
    out.tasks = tasks.filter((t) => t.start >= t0).map((t) => ({ ...t, start: t.start - t0 }));
    out.headerPaintedMs = await page
      .evaluate((ids) => {
        const paints = (window as unknown as { __elementPaints?: Record<string, number> }).__elementPaints ?? {};
        const times = ids.map((id) => paints[id]);
        return times.every((t) => typeof t === "number" && t > 0) ? Math.max(...(times as number[])) : null;
      }, HEADER_TIMINGS)
      .then((t) => (t === null ? null : t - t0))
      .catch(() => null);
    // A page reached by a link has no navigation of its own: hydration and first paint were the list's.
    if (!opts.from) {
      out.hydratedMs = await page
        .evaluate(() => (window as unknown as { __bwHydratedAt?: number }).__bwHydratedAt ?? null)
        .catch(() => null);
      out.firstContentfulPaintMs = await page
        .evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null)
        .catch(() => null);
    }
    out.heapPeak = heap.stop();
    out.rendererRssPeak = rss.stop();
    return out;
  } finally {
    // Also after a failed navigation: a trace left running refuses the next visit's.
    await tracing?.stop().catch(() => undefined);
    if (opts.tab) {
      // The tab stays for the next visit: this visit's listeners and CDP session go.
      await cdp?.detach().catch(() => undefined);
      for (const event of ["pageerror", "request", "requestfinished", "requestfailed"] as const)
        opts.tab.removeAllListeners(event);
    } else await context.close();
    out.wallMs = Date.now() - started;
  }
}

/** Opens History, waits for the whole history, scrolls it top to bottom; the most rows in the DOM at once. */
export async function scrollHistory(
  page: Page,
  events: number,
  timeout: number,
): Promise<{ rows: number | null; note: string }> {
  const tab = page.getByRole("tab", { name: "History" });
  if ((await tab.count()) === 0) return { rows: null, note: "no tab named History" };
  await tab.click();
  try {
    await page.waitForSelector(`${SEL.list} ${SEL.row}`, { timeout });
    // Loaded when the list is tall enough for every event (rows are fixed-height).
    await page.waitForFunction(
      ({ list, row, n }: { list: string; row: string; n: number }) => {
        const el = document.querySelector(list);
        const first = el?.querySelector(row);
        if (!el || !(first instanceof HTMLElement)) return false;
        return el.scrollHeight >= n * first.offsetHeight * 0.99;
      },
      { list: SEL.list, row: SEL.row, n: events },
      { polling: 250, timeout },
    );
  } catch {
    return { rows: null, note: `the history list did not show ${events} rows within ${timeout / 1000} s` };
  }
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
  return { rows: most, note: `${steps + 1} scroll positions top to bottom` };
}
