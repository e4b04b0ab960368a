import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../server/clock";
import { openDb } from "../server/store/db";
import { seedLongRun } from "./support/history-seed";
import type { SeededRun } from "./support/history-seed";
import { bounded, cleanEnv, figure, load, ROOT, spawnChild } from "./support/report";
import type { Spawned } from "./support/report";

/**
 * Console-process memory while one 50,000-event run's history export is downloaded (issue 14:
 * "< 50 MB extra while streaming"): the embedded server (child, SQLite file seeded by seedLongRun)
 * and the console's relay in a child of its own (bench/support/export-relay-host.ts), whose RSS and
 * heap are sampled every 10 ms from just before the request to its end. Three downloads: the
 * streamed relay with a fast and a slow client (the case back-pressure exists for), compressed as a
 * browser asks and uncompressed, and the buffered read proxy of before, for comparison.
 *
 * `node --import tsx bench/export-download.ts`; BENCH_EXPORT_EVENTS (default 50000),
 * DW_EMBEDDED_PORT/RELAY_PORT (18340/18341).
 */

const EVENTS = Number(process.env.BENCH_EXPORT_EVENTS ?? 50_000);
const DW_PORT = Number(process.env.DW_EMBEDDED_PORT ?? 18340);
const RELAY_PORT = Number(process.env.RELAY_PORT ?? 18341);
const BUDGET_MB = 50;
const MB = 1024 * 1024;

async function waitFor(child: Spawned, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!pattern.test(child.output())) {
    if (child.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`child did not start: ${child.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function get(path: string): Promise<string> {
  return fetch(`http://127.0.0.1:${RELAY_PORT}${path}`).then((r) => r.text());
}

/** Downloads through the relay; `bytesPerSecond` throttles the reader (pauses the socket). */
function download(path: string, gzip: boolean, bytesPerSecond: number | null): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const req = request(
      { host: "127.0.0.1", port: RELAY_PORT, path, headers: gzip ? { "accept-encoding": "gzip" } : {} },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytesPerSecond === null) return;
          const ahead = bytes / bytesPerSecond - (Date.now() - t0) / 1000;
          if (ahead > 0) {
            res.pause();
            setTimeout(() => res.resume(), ahead * 1000);
          }
        });
        res.on("end", () => resolve({ bytes, ms: Date.now() - t0 }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

interface Measured {
  label: string;
  bytes: number;
  ms: number;
  peak: { rss: number; heapUsed: number; external: number };
}

async function measure(label: string, path: string, gzip: boolean, rate: number | null): Promise<Measured> {
  await get("/mem/start");
  const { bytes, ms } = await download(path, gzip, rate);
  const { peak } = JSON.parse(await get("/mem/stop")) as { peak: Measured["peak"] };
  const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;
  console.log(
    `${label}: ${mb(bytes)} on the wire in ${(ms / 1000).toFixed(1)} s; console peak +${mb(peak.rss)} RSS, +${mb(peak.heapUsed)} heap, +${mb(peak.external)} external/array buffers (${load()})`,
  );
  return { label, bytes, ms, peak };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-export-"));
  const children: Spawned[] = [];
  try {
    const file = join(dir, "runs.db");
    const db = openDb(file, systemClock);
    const t0 = Date.now();
    const small: SeededRun = seedLongRun(db, "bench-export-warmup", 1_000);
    const run: SeededRun = seedLongRun(db, `bench-export-${EVENTS}`, EVENTS);
    db.close();
    console.log(`seeded ${run.workflowId}: ${run.events} events in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const server = spawnChild(
      process.execPath,
      ["--import", "tsx", join(ROOT, "server", "main.ts")],
      cleanEnv({ DW_EMBEDDED_PORT: String(DW_PORT), DW_EMBEDDED_DATA: file, DW_AUTO_REPAIR: "0" }),
    );
    children.push(server);
    await waitFor(server, /listening on/);
    const runs: Measured[] = [];
    for (const mode of ["stream", "buffered"] as const) {
      // A fresh relay process per mode: the buffered path's garbage must not count against the stream.
      const host = spawnChild(
        process.execPath,
        [
          "--expose-gc",
          "--conditions=react-server",
          "--import",
          "tsx",
          join(ROOT, "bench", "support", "export-relay-host.ts"),
        ],
        cleanEnv({ DW_SERVER_URL: `http://127.0.0.1:${DW_PORT}`, RELAY_PORT: String(RELAY_PORT) }),
      );
      await waitFor(host, /relay host listening/);
      const path = (r: SeededRun) =>
        `/relay/${mode}/${encodeURIComponent(r.workflowId)}/${encodeURIComponent(r.runId)}`;
      await download(path(small), mode === "stream", null); // loads the modules and warms the connection
      if (mode === "stream") {
        runs.push(await measure("streamed relay, fast client, gzip", path(run), true, null));
        runs.push(await measure("streamed relay, slow client (2 MB/s), gzip", path(run), true, 2 * MB));
        runs.push(await measure("streamed relay, fast client, identity", path(run), false, null));
        runs.push(await measure("streamed relay, slow client (8 MB/s), identity", path(run), false, 8 * MB));
      } else {
        runs.push(await measure("buffered read proxy (before), fast client", path(run), false, null));
      }
      await host.stop();
    }
    for (const m of runs) {
      const extra = m.peak.rss / MB;
      const budgeted = m.label.startsWith("streamed");
      figure(
        `export download ${EVENTS} events: console RSS extra, ${m.label}`,
        `${extra.toFixed(1)} MB (heap +${(m.peak.heapUsed / MB).toFixed(1)} MB)`,
        budgeted ? `< ${BUDGET_MB} MB` : "-",
        budgeted ? extra < BUDGET_MB : null,
      );
    }
  } finally {
    for (const c of children.reverse()) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

bounded("export-download bench", Number(process.env.BENCH_LIMIT_MS ?? 20 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
