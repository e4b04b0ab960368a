import { Agent, request } from "node:http";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../server/clock";
import { seedRuns } from "../server/demo/seed";
import { openDb } from "../server/store/db";
import { migrations } from "../server/store/migrations";
import type { Percentiles } from "./support/report";
import {
  bounded,
  cyclic,
  describePercentiles,
  figure,
  load,
  ms,
  percentiles,
  ROOT,
  startEmbeddedServer,
} from "./support/report";

/**
 * Run list and operator metrics over BENCH_RUNS (default 1,000,000) seeded runs, against the
 * embedded server as a child process (`server/main.ts`, DW_AUTO_REPAIR=0) over real HTTP on
 * loopback. Latency is the server's `Server-Timing` when it sends one; otherwise the client's time
 * over one keep-alive connection, an upper bound of the server's (loopback adds ~0.1–0.3 ms).
 *
 * The seeded file is cached under .data/bench/runs-N.db (BENCH_SEED_DB names another candidate;
 * for 1,000,000 runs /tmp/seed-1m.db is reused when present). A candidate is used when, after
 * openDb applied any pending migrations, it holds exactly N runs.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const LIST_BUDGET_MS = 25;
const METRICS_BUDGET_MS = 100;
const HEADERS = { accept: "application/json", "x-durable-workflow-control-plane-version": "2" };

function seededCount(file: string): number | null {
  const t0 = Date.now();
  const db = openDb(file, systemClock);
  try {
    const latest = migrations.at(-1)?.version ?? 0;
    const applied = (db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number }).v;
    if (applied !== latest) return null;
    const row = db
      .prepare("SELECT n FROM workflow_run_summary_counts WHERE namespace = 'default' AND dim = 'total' AND val = ''")
      .get() as { n: number } | undefined;
    console.log(
      `seed candidate ${file}: schema at migration ${applied}, ${row?.n ?? 0} runs (opened in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    return row?.n ?? 0;
  } finally {
    db.close();
  }
}

function seededFile(): string {
  const cache = join(ROOT, ".data", "bench", `runs-${RUNS}.db`);
  const candidates = [process.env.BENCH_SEED_DB, cache, RUNS === 1_000_000 ? "/tmp/seed-1m.db" : undefined].filter(
    (f): f is string => !!f && existsSync(f),
  );
  for (const file of candidates) if (seededCount(file) === RUNS) return file;

  mkdirSync(join(ROOT, ".data", "bench"), { recursive: true });
  // Seed into a scratch name and rename at the end: an interrupted seed never looks like a cache hit.
  const scratch = `${cache}.seeding`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(scratch + suffix, { force: true });
  const started = Date.now();
  const db = openDb(scratch, systemClock);
  db.pragma("synchronous = NORMAL");
  db.pragma("cache_size = -262144");
  seedRuns(db, {
    runs: RUNS,
    onProgress: (done) => {
      if (done % 100_000 === 0) console.log(`seeded ${done} runs (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    },
  });
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(cache + suffix, { force: true });
  renameSync(scratch, cache);
  rmSync(`${scratch}-wal`, { force: true });
  rmSync(`${scratch}-shm`, { force: true });
  console.log(`seeding ${RUNS} runs took ${((Date.now() - started) / 1000).toFixed(1)} s (${load()}) into ${cache}`);
  return cache;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  ms: number;
}

/** The server's own time when it sends `Server-Timing: …;dur=<ms>` (summed over its entries). */
function serverTiming(header: string | string[] | undefined): number | null {
  const text = Array.isArray(header) ? header.join(",") : header;
  if (!text) return null;
  const durs = [...text.matchAll(/dur=([0-9.]+)/g)].map((m) => Number(m[1]));
  return durs.length > 0 ? durs.reduce((a, b) => a + b, 0) : null;
}

let sawServerTiming = false;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(base: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(`${base}${path}`, { agent, headers: HEADERS }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const elapsed = serverTiming(res.headers["server-timing"]) ?? performance.now() - t0;
        if (serverTiming(res.headers["server-timing"]) !== null) sawServerTiming = true;
        try {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
            ms: elapsed,
          });
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
      res.on("error", reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

async function timed(base: string, path: string, into: number[]): Promise<Answer> {
  const a = await get(base, path);
  if (a.status !== 200) throw new Error(`GET ${path} → ${a.status}: ${JSON.stringify(a.body).slice(0, 300)}`);
  into.push(a.ms);
  return a;
}

function nextToken(body: Record<string, unknown>): string | null {
  const t = body.next_page_token;
  return typeof t === "string" && t !== "" ? t : null;
}

/** `pages` pages from `first`, following next_page_token. */
async function chain(base: string, first: string, pages: number, into: number[]): Promise<number> {
  let path = first;
  let n = 0;
  for (; n < pages; n++) {
    const a = await timed(base, path, into);
    const token = nextToken(a.body);
    if (!token) return n + 1;
    path = `${first}&next_page_token=${encodeURIComponent(token)}`;
  }
  return n;
}

function report(name: string, p: Percentiles, budgetMs: number, detail = ""): void {
  console.log(`${name}: ${describePercentiles(p)}${detail} (${load()})`);
  figure(`${name} p95`, ms(p.p95), `< ${budgetMs} ms`, p.p95 < budgetMs);
}

async function main(): Promise<void> {
  const file = seededFile();
  const server = await startEmbeddedServer(file);
  try {
    const base = `${server.url}/api`;
    const probe = await get(base, "/workflows?page_size=50");
    if (probe.status !== 200) throw new Error(`list answered ${probe.status}`);
    console.log(
      `server ${server.url} on ${file}; ${sawServerTiming ? "latency is the server's own Server-Timing" : "latency measured client-side over one keep-alive connection (the server reports no Server-Timing)"}`,
    );

    // Warm-up: JIT, statement cache and the SQLite page cache for the hot indexes.
    const scratch: number[] = [];
    for (let i = 0; i < 20; i++) {
      await timed(base, "/workflows?page_size=50", scratch);
      await timed(base, "/system/operator-metrics", scratch);
    }
    await chain(base, "/workflows?page_size=50", 50, scratch);

    const first: number[] = [];
    for (let i = 0; i < SAMPLES; i++) await timed(base, "/workflows?page_size=50", first);
    report("list first page", percentiles(first), LIST_BUDGET_MS);

    const deep: number[] = [];
    let chains = 0;
    while (deep.length < SAMPLES) {
      await chain(base, "/workflows?page_size=50", 50, deep);
      chains += 1;
    }
    report("list deep pages (next_page_token ×50)", percentiles(deep), LIST_BUDGET_MS, ` over ${chains} chains`);

    const statuses = ["running", "completed", "failed"];
    const byStatus: number[] = [];
    for (let i = 0; byStatus.length < SAMPLES; i++)
      await chain(base, `/workflows?page_size=50&status=${statuses[i % statuses.length]}`, 10, byStatus);
    report("list status filter", percentiles(byStatus), LIST_BUDGET_MS, ` (${statuses.join("/")}, 10 pages each)`);

    const types = ["OrderWorkflow", "RefundApprovalWorkflow", "ParcelWorkflow"];
    const byType: number[] = [];
    for (let i = 0; byType.length < SAMPLES; i++)
      await chain(base, `/workflows?page_size=50&workflow_type=${types[i % types.length]}`, 10, byType);
    report("list workflow_type filter", percentiles(byType), LIST_BUDGET_MS, ` (${types.length} types, 10 pages each)`);

    // Terms of every kind the search meets: a business key (hundreds of matches), one instance
    // (a single match), a common word (scan in list order), a substring that matches nothing
    // (trigram lookup), and a 2-character term (too short for trigrams).
    const terms = ["customer-4242", "parcel-777777", "refund", "zz-no-such-run", "42"];
    const byTerm = new Map<string, number[]>(terms.map((t) => [t, []]));
    const search: number[] = [];
    for (let i = 0; search.length < SAMPLES; i++) {
      const term = cyclic(terms, i);
      const before = search.length;
      await timed(base, `/workflows?page_size=50&query=${encodeURIComponent(term)}`, search);
      byTerm.get(term)?.push(...search.slice(before));
    }
    const termDetail = terms.map((t) => `${t}: p95 ${ms(percentiles(byTerm.get(t) ?? []).p95)}`).join(", ");
    report("list query= search", percentiles(search), LIST_BUDGET_MS, ` [${termDetail}]`);

    // Terms between rare and common, where fetching every match and walking in list order cost
    // most (match counts in the 1,000,000-run seed): 1,849, 2,200, 3,290, 13,257 and 22,200 runs.
    const midTerms = ["ment-99", "customer-88", "-424", "-55", "customer-42"];
    const byMidTerm = new Map<string, number[]>(midTerms.map((t) => [t, []]));
    const mid: number[] = [];
    for (let i = 0; mid.length < SAMPLES; i++) {
      const term = cyclic(midTerms, i);
      const before = mid.length;
      await timed(base, `/workflows?page_size=50&query=${encodeURIComponent(term)}`, mid);
      byMidTerm.get(term)?.push(...mid.slice(before));
    }
    const midDetail = midTerms.map((t) => `${t}: p95 ${ms(percentiles(byMidTerm.get(t) ?? []).p95)}`).join(", ");
    report("list query= search, mid-frequency terms", percentiles(mid), LIST_BUDGET_MS, ` [${midDetail}]`);

    const metrics: number[] = [];
    for (let i = 0; i < SAMPLES; i++) await timed(base, "/system/operator-metrics", metrics);
    const m = percentiles(metrics);
    console.log(`operator-metrics: ${describePercentiles(m)} (${load()})`);
    figure("operator-metrics p50", ms(m.p50), `< ${METRICS_BUDGET_MS} ms`, m.p50 < METRICS_BUDGET_MS);
    figure("operator-metrics p95", ms(m.p95), `< ${METRICS_BUDGET_MS} ms`, m.p95 < METRICS_BUDGET_MS);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

bounded("list-and-metrics bench", Number(process.env.BENCH_LIMIT_MS ?? 40 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
