import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunViewLine } from "@/lib/views/run-view-wire";
import { parseConfig } from "@/lib/server/config";
import { createLogger } from "@/lib/server/log";
import { RunViewService } from "./service";

/**
 * Issue 14's console-side figures for a 50,000-event closed run (not part of `npm test`: run with
 * `RUN_VIEW_MEASURE=1 npx vitest run lib/server/run-view/measure.test.ts`). The embedded server runs
 * in a child process, so this process's CPU and memory are the console's alone. It prints the
 * figures; it asserts only that the views are complete (no timed asserts).
 */

const EVENTS = Number(process.env.RUN_VIEW_MEASURE_EVENTS ?? 50_000);

// The child: a temp SQLite file, seedLongRun (bench/support/history-seed.ts), the HTTP server.
const CHILD = `
const { mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { systemClock } = require("./server/clock.ts");
const { createEngine } = require("./server/engine/index.ts");
const { buildApp } = require("./server/http/app.ts");
const { openDb } = require("./server/store/db.ts");
const { seedLongRun } = require("./bench/support/history-seed.ts");
const db = openDb(join(mkdtempSync(join(tmpdir(), "bw-measure-")), "dw.sqlite"), systemClock);
const engine = createEngine({ db, clock: systemClock });
const run = seedLongRun(db, "wf-measure", ${EVENTS});
const auth = { driver: "token", tokens: { worker: null, operator: null, admin: "measure-token", legacy: null }, backwardCompatible: false };
const app = buildApp({ db, clock: systemClock, engine, auth });
app.listen({ port: 0, host: "127.0.0.1" }).then(() => {
  process.send({ url: "http://127.0.0.1:" + app.server.address().port, run });
});
`;

let child: ChildProcess;
let url = "";
let run: { workflowId: string; runId: string; events: number };

beforeAll(async () => {
  if (!process.env.RUN_VIEW_MEASURE) return;
  child = spawn(process.execPath, ["--import", "tsx", "--input-type=commonjs", "-e", CHILD], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  ({ url, run } = await new Promise<{ url: string; run: typeof run }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { url: string; run: typeof run }));
    child.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
  }));
}, 600_000);

afterAll(() => {
  child?.kill();
});

interface Figures {
  ms: number;
  cpuMs: number;
  bytes: number;
  rssMb: number;
  heapMb: number;
  header: string | null;
  last: RunViewLine | undefined;
}

async function measure(svc: RunViewService, gzip: boolean): Promise<Figures> {
  const query = `workflow_id=${run.workflowId}&run_id=${run.runId}${gzip ? "&gzip=1" : ""}`;
  const request = new Request(`http://console.test/api/run-view?${query}`, { headers: { "x-namespace": "default" } });
  globalThis.gc?.();
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await svc.view(request);
  const reader = response.body!.getReader();
  let bytes = 0;
  let tail: Uint8Array = new Uint8Array();
  let peakRss = 0;
  let peakHeap = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.length;
    tail = value;
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  const text = gzip ? "" : new TextDecoder().decode(tail);
  const lastLine = text.trim().split("\n").at(-1);
  return {
    ms: Math.round(ms * 10) / 10,
    cpuMs: Math.round((used.user + used.system) / 100) / 10,
    bytes,
    rssMb: Math.round(((peakRss || process.memoryUsage().rss) - memory.rss) / 1e5) / 10,
    heapMb: Math.round(((peakHeap || process.memoryUsage().heapUsed) - memory.heapUsed) / 1e5) / 10,
    header: response.headers.get("x-breakwater-run-view"),
    last: lastLine ? (JSON.parse(lastLine) as RunViewLine) : undefined,
  };
}

describe.skipIf(!process.env.RUN_VIEW_MEASURE)(`run view of a ${EVENTS}-event closed run`, () => {
  it("measures the first view and the repeat views", async () => {
    const config = parseConfig({ DW_SERVER_URL: url, DW_TOKEN: "measure-token", DW_REQUEST_TIMEOUT_MS: "60000" });
    const svc = new RunViewService(config, { logger: createLogger(undefined, "silent") });
    const first = await measure(svc, false);
    expect(first.last).toEqual({ t: "done", lastSequence: run.events });
    await svc.idle();
    const cached = svc.stats();
    const repeat = await measure(svc, false);
    const repeatGzip = await measure(svc, true);
    const repeatAgain = await measure(svc, false);
    expect(repeat.header).toBe("hit");
    console.log(
      JSON.stringify(
        { events: run.events, first, repeat, repeatGzip, repeatAgain, cacheBytes: cached.cacheBytes },
        null,
        1,
      ),
    );
  }, 600_000);
});
