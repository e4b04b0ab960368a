import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { figure } from "./support/report";

/**
 * A 100,000-row runs export (issue 45 point 3): the console's export (lib/server/export: the runs
 * source paging `GET /workflows` 200 rows at a time, the CSV writer) run in a child process of its
 * own (`--conditions=react-server`, `--expose-gc`), reading every page from an upstream in this
 * process that answers real-shaped pages (lib/dw/fixtures/workflow-list.json's row, numbered, with an
 * offset `next_page_token` as the real server's). The child pulls the file as a download would and
 * reports the wall time and its RSS peak over the baseline, sampled every 10 ms.
 *
 * `node --import tsx bench/list-export.ts`; BENCH_EXPORT_ROWS (default 100000).
 */

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
const BUDGET_MB = 50;

function upstream(): Promise<{ url: string; close: () => void; pages: () => number }> {
  const fixture = JSON.parse(
    readFileSync(join(__dirname, "..", "lib", "dw", "fixtures", "workflow-list.json"), "utf8"),
  );
  const row = fixture.workflows[0];
  let pages = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream");
    if (url.pathname !== "/api/workflows") {
      res.writeHead(404).end();
      return;
    }
    pages += 1;
    const size = Number(url.searchParams.get("page_size") ?? 50);
    const offset = Number(url.searchParams.get("next_page_token") ?? 0);
    const end = Math.min(ROWS, offset + size);
    const workflows = [];
    for (let i = offset; i < end; i++)
      workflows.push({ ...row, workflow_id: `bench-export-${i}`, run_id: `run-${i}`, business_key: `key-${i}` });
    const next = end < ROWS ? String(end) : null;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        ...fixture,
        workflows,
        workflow_count: workflows.length,
        next_page_token: next,
        control_plane: { ...fixture.control_plane, workflow_count: workflows.length, next_page_token: next },
      }),
    );
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close(), pages: () => pages });
    });
  });
}

async function child(): Promise<void> {
  const { createDwClient } = await import("../lib/dw/client");
  const { exportStream } = await import("../lib/server/export/list-export");
  const { runsSource } = await import("../lib/server/export/sources");
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const client = createDwClient({ baseUrl: process.env.BENCH_UPSTREAM ?? "", namespace: "default", timeoutMs: 30_000 });
  const filter = { status: undefined, workflowType: "", search: "", range: null, taskQueue: "" };
  gc();
  const baseline = process.memoryUsage().rss;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - baseline)), 10);
  const t0 = performance.now();
  const stream = exportStream(
    runsSource(client, filter, Date.now()),
    "csv",
    { namespace: "default", filters: {}, startedAt: new Date().toISOString() },
    new AbortController().signal,
  );
  let bytes = 0;
  let lines = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (const b of value) if (b === 10) lines += 1;
  }
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss - baseline);
  console.log(
    JSON.stringify({ ms, bytes, lines, peakMb: peak / 1024 / 1024, rssMb: process.memoryUsage().rss / 1024 / 1024 }),
  );
}

async function main(): Promise<void> {
  const up = await upstream();
  try {
    // Async so the upstream in this process keeps answering while the child runs.
    const { spawn } = await import("node:child_process");
    const out = await new Promise<string>((resolve, reject) => {
      const c = spawn(
        process.execPath,
        ["--expose-gc", "--conditions=react-server", "--import", "tsx", __filename, "--child"],
        { env: { ...process.env, BENCH_UPSTREAM: up.url, BREAKWATER_LOG_LEVEL: "silent" } },
      );
      let text = "";
      c.stdout.on("data", (d: Buffer) => (text += d.toString()));
      c.stderr.on("data", (d: Buffer) => process.stderr.write(d));
      c.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited ${code}: ${text}`))));
    });
    const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as {
      ms: number;
      bytes: number;
      lines: number;
      peakMb: number;
      rssMb: number;
    };
    if (result.lines !== ROWS + 1) throw new Error(`expected ${ROWS + 1} lines, got ${result.lines}`);
    console.log(
      `runs export, ${ROWS} rows in ${up.pages()} upstream pages: ${Math.round(result.ms)} ms, ${(result.bytes / 1024 / 1024).toFixed(1)} MB CSV, RSS peak +${result.peakMb.toFixed(1)} MB (process ${result.rssMb.toFixed(0)} MB)`,
    );
    figure(
      `runs export, ${ROWS} rows as CSV: time / console RSS peak`,
      `${(result.ms / 1000).toFixed(1)} s / +${result.peakMb.toFixed(1)} MB`,
      `< ${BUDGET_MB} MB extra`,
      result.peakMb < BUDGET_MB,
    );
  } finally {
    up.close();
  }
}

if (process.argv.includes("--child")) {
  child().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
