import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import type { Browser, Page } from "@playwright/test";
import { defaultQueueActivities, orderWorkflow, refundApprovalWorkflow } from "../server/demo/workflows";
import { Worker } from "../server/sdk/worker";
import {
  bounded,
  cleanEnv,
  describePercentiles,
  ensureBuild,
  figure,
  freePort,
  ms,
  percentiles,
  ROOT,
  spawnChild,
  startEmbeddedServer,
  waitForHttp,
} from "./support/report";
import type { Spawned } from "./support/report";

/**
 * A workflow query's round trip through the console (issue 41): `fetch` in a Chromium page of the
 * production console → the console's read proxy (`POST /api/dw/…/query/status`) → the embedded
 * server → a query task held for the one polling TypeScript SDK worker (server/sdk, the demo fleet's
 * OrderWorkflow definition) → its replay and handler → back. Beside it, the signal measured the same
 * way: `fetch` in the page → the console's action route (`POST /api/actions/runs`, signal) → the
 * server's durable SignalReceived → back; no worker is in that path, as none is in a signal's answer.
 * Sent one after another, after a warm-up of each; every answer is checked, a failure stops the bench.
 *
 * `node --import tsx bench/query-round-trip.ts`; BENCH_QUERIES (default 200) of each.
 */

const COUNT = Number(process.env.BENCH_QUERIES ?? 200);
const WARM_UP = 20;

/** Sequential timed sends from the page: the browser's own clock, so only the console path is timed. */
async function timeInPage(page: Page, kind: "query" | "signal", target: { workflowId: string; runId: string }) {
  return page.evaluate(
    async ({ kind, target, count }) => {
      // No named functions in here: tsx's helper for their names does not exist in the page.
      const samples: number[] = [];
      for (let i = 0; i < count; i++) {
        const url =
          kind === "query"
            ? `/api/dw/workflows/${encodeURIComponent(target.workflowId)}/runs/${encodeURIComponent(target.runId)}/query/status`
            : "/api/actions/runs";
        const body =
          kind === "query"
            ? "{}"
            : JSON.stringify({
                action: "signal",
                workflowId: target.workflowId,
                runId: target.runId,
                requestId: `bench-signal-${Date.now()}-${i}`,
                signalName: "note",
                input: [i],
              });
        const t0 = performance.now();
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-namespace": "default" },
          body,
        });
        const text = await response.text();
        samples.push(performance.now() - t0);
        if (!response.ok) throw new Error(`${kind} ${i}: HTTP ${response.status} ${text.slice(0, 300)}`);
      }
      return samples;
    },
    { kind, target, count: COUNT + WARM_UP },
  );
}

async function start(serverUrl: string, workflowType: string, workflowId: string, input: unknown[]): Promise<string> {
  const response = await fetch(`${serverUrl}/api/workflows`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Durable-Workflow-Control-Plane-Version": "2" },
    body: JSON.stringify({ workflow_type: workflowType, workflow_id: workflowId, task_queue: "default", input }),
  });
  const body = (await response.json()) as { run_id?: string };
  if (!response.ok || !body.run_id) throw new Error(`start ${workflowId}: HTTP ${response.status}`);
  return body.run_id;
}

async function waitForStatus(serverUrl: string, workflowId: string, runId: string, want: RegExp): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${serverUrl}/api/workflows/${workflowId}/runs/${runId}`, {
      headers: { "X-Durable-Workflow-Control-Plane-Version": "2" },
    });
    const run = (await response.json()) as { status?: string; wait_kind?: string | null };
    if (want.test(`${run.status ?? ""} ${run.wait_kind ?? ""}`)) return;
    if (Date.now() > deadline) throw new Error(`${workflowId} stayed ${run.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-query-"));
  const children: Spawned[] = [];
  let browser: Browser | null = null;
  let worker: Worker | null = null;
  try {
    const server = await startEmbeddedServer(join(dir, "query.db"));
    children.push(server);
    worker = new Worker({
      baseUrl: server.url,
      taskQueue: "default",
      workflows: [orderWorkflow, refundApprovalWorkflow],
      activities: defaultQueueActivities,
    });
    await worker.start();
    // A finished order for the queries (its worker replays its whole history each time), and a
    // refund approval waiting for `approve` for the signals (`note` is buffered: the wait stays open).
    const order = { workflowId: `bench-order-${Date.now()}`, runId: "" };
    order.runId = await start(server.url, "OrderWorkflow", order.workflowId, [
      { orderId: order.workflowId, customer: "ada", amountCents: 4200, scenario: "happy" },
    ]);
    await waitForStatus(server.url, order.workflowId, order.runId, /^completed/);
    const refund = { workflowId: `bench-refund-${Date.now()}`, runId: "" };
    refund.runId = await start(server.url, "RefundApprovalWorkflow", refund.workflowId, ["order-1"]);

    const port = await freePort();
    const next = spawnChild(
      join(ROOT, "node_modules", ".bin", "next"),
      ["start", "-H", "127.0.0.1", "-p", String(port)],
      cleanEnv({ DW_SERVER_URL: server.url, PORT: String(port) }),
    );
    children.push(next);
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/api/healthz`, 120_000, () => next.child.exitCode === null);

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
    });
    const page = await browser.newPage();
    // Any console page: the sends are same-origin fetches from it, as the Queries tab's are.
    await page.goto(`${base}/api/healthz`);

    const query = percentiles((await timeInPage(page, "query", order)).slice(WARM_UP));
    console.log(`query round trip (status, ${worker.stats.queriesAnswered} answered): ${describePercentiles(query)}`);
    const signal = percentiles((await timeInPage(page, "signal", refund)).slice(WARM_UP));
    console.log(`signal round trip (note, recorded): ${describePercentiles(signal)}`);
    figure(`query round trip p50 / p95 (n=${query.n}, 1 worker)`, `${ms(query.p50)} / ${ms(query.p95)}`, "—", null);
    figure(`signal round trip p50 / p95 (n=${signal.n})`, `${ms(signal.p50)} / ${ms(signal.p95)}`, "—", null);
  } finally {
    await browser?.close().catch(() => undefined);
    await worker?.shutdown({ abortPolls: true }).catch(() => undefined);
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

bounded("query-round-trip bench", Number(process.env.BENCH_LIMIT_MS ?? 15 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
