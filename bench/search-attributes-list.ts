import { Agent, request } from "node:http";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../server/clock";
import { seedRuns } from "../server/demo/seed";
import { openDb } from "../server/store/db";
import { migrations } from "../server/store/migrations";
import {
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
 * The runs list filtered by search attributes (issue 43) over BENCH_RUNS (default 1,000,000) seeded
 * runs, against the embedded server as a child process over real HTTP on loopback (client time over
 * one keep-alive connection). Every run carries `Region` (keyword, three values: a third of the runs
 * each), `Priority` (int 0–999) and `Customer` (keyword, one run each), set on `workflow_runs` so the
 * migration-13 triggers project them as a start or upsert would. Four kinds of filter: a common
 * keyword, a rare keyword, an int range matching 0.5 %, and the common keyword AND a 1 % range.
 * The seeded file is cached as .data/bench/runs-sa-N.db.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const BUDGET_MS = 25;
const HEADERS = { accept: "application/json", "x-durable-workflow-control-plane-version": "2" };

function ready(file: string): boolean {
  const db = openDb(file, systemClock);
  try {
    const latest = migrations.at(-1)?.version ?? 0;
    const applied = (db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number }).v;
    const n = db.prepare("SELECT COUNT(*) FROM workflow_search_attributes WHERE key = 'Customer'").pluck().get();
    return applied === latest && n === RUNS;
  } finally {
    db.close();
  }
}

function seededFile(): string {
  const cache = join(ROOT, ".data", "bench", `runs-sa-${RUNS}.db`);
  if (existsSync(cache) && ready(cache)) return cache;
  mkdirSync(join(ROOT, ".data", "bench"), { recursive: true });
  const scratch = `${cache}.seeding`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(scratch + suffix, { force: true });
  const started = Date.now();
  const db = openDb(scratch, systemClock);
  db.pragma("synchronous = NORMAL");
  db.pragma("cache_size = -262144");
  seedRuns(db, { runs: RUNS });
  const define = db.prepare(
    "INSERT INTO search_attribute_definitions (namespace, name, type, created_at, updated_at) VALUES ('default', ?, ?, 0, 0)",
  );
  for (const [name, type] of [
    ["Region", "keyword"],
    ["Priority", "int"],
    ["Customer", "keyword"],
  ])
    define.run(name, type);
  // In slices of rowids, so each transaction's trigger work stays bounded.
  const max = db.prepare("SELECT MAX(rowid) FROM workflow_runs").pluck().get() as number;
  const tag = db.prepare(
    `UPDATE workflow_runs SET search_attributes = json_object(
       'Customer', 'c-' || rowid,
       'Priority', (rowid * 7919) % 1000,
       'Region', CASE rowid % 3 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' ELSE 'apac' END)
     WHERE rowid > ? AND rowid <= ?`,
  );
  for (let from = 0; from < max; from += 50_000) db.transaction(() => tag.run(from, from + 50_000))();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(cache + suffix, { force: true });
  renameSync(scratch, cache);
  rmSync(`${scratch}-wal`, { force: true });
  rmSync(`${scratch}-shm`, { force: true });
  console.log(`seeding ${RUNS} runs with attributes took ${((Date.now() - started) / 1000).toFixed(1)} s (${load()})`);
  return cache;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(base: string, path: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(`${base}${path}`, { agent, headers: HEADERS }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
          ms: performance.now() - t0,
        }),
      );
      res.on("error", reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

async function measure(base: string, name: string, queries: string[], expectRows: (n: number) => boolean) {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const q = cyclic(queries, i);
    const a = await get(base, `/api/workflows?query=${encodeURIComponent(q)}`);
    const rows = Array.isArray(a.body.workflows) ? a.body.workflows.length : -1;
    if (a.status !== 200 || !expectRows(rows))
      throw new Error(`${q} → ${a.status}, ${rows} rows: ${JSON.stringify(a.body).slice(0, 300)}`);
    samples.push(a.ms);
  }
  const p = percentiles(samples);
  console.log(`${name}: ${describePercentiles(p)}`);
  figure(`list filtered by ${name} p95`, ms(p.p95), `< ${BUDGET_MS} ms`, p.p95 < BUDGET_MS);
}

async function main(): Promise<void> {
  const file = seededFile();
  const server = await startEmbeddedServer(file);
  try {
    const page = (n: number) => n === 50;
    // The unfiltered first page on the same file and load, to read the filters against.
    const plain: number[] = [];
    for (let i = 0; i < SAMPLES; i++) plain.push((await get(server.url, "/api/workflows")).ms);
    const p = percentiles(plain);
    console.log(`unfiltered first page: ${describePercentiles(p)}`);
    figure("list unfiltered first page (same file) p95", ms(p.p95), `< ${BUDGET_MS} ms`, p.p95 < BUDGET_MS);
    await measure(
      server.url,
      "a common keyword (1/3 of runs)",
      ['Region = "eu"', 'Region = "us"', 'Region = "apac"'],
      page,
    );
    const customers = Array.from({ length: 25 }, (_, i) => `Customer = "c-${1 + ((i * 40_009) % RUNS)}"`);
    await measure(server.url, "a rare keyword (1 run)", customers, (n) => n === 1);
    await measure(server.url, "an int range (0.5 % of runs)", ["Priority >= 995", "Priority < 5"], page);
    await measure(server.url, "a keyword AND an int range", ['Region = "eu" AND Priority < 10'], page);
  } finally {
    await server.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
