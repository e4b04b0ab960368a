import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  defaultQueueActivities,
  DELIVERY_HOLD,
  deliveryHoldWorkflow,
  refundApprovalWorkflow,
} from "../server/demo/workflows";
import { Worker } from "../server/sdk/worker";
import { chromium } from "@playwright/test";
import type { Browser, Page } from "@playwright/test";
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
 * Update-to-confirmed time (issue 41), measured twice. Browser-less: a Node client on loopback (keep-alive) sends
 * `POST /api/workflows/{id}/runs/{runId}/update/changeAddress` with `wait_for: completed` to the
 * embedded server → the update's workflow task → the one polling TypeScript SDK worker (server/sdk,
 * the demo's DeliveryHoldWorkflow) replays and runs the handler → `complete_update` → the answer;
 * then reads the run's history from its last cursor until `UpdateCompleted` with the answered
 * update id is there (how the Updates tab confirms). Beside it, measured the same way by the same
 * client: a signal (`note` to a waiting RefundApprovalWorkflow) until its `SignalReceived` is read
 * back, and a `status` query of a held delivery (the worker's answer). Sent one after another after
 * a warm-up of each; every answer is checked, a failure stops the bench. Updates rotate over
 * several held runs so no run's history (replayed on each update) grows past ~80 events.
 * Through the console, as query-round-trip.ts measures the query: `fetch` in a Chromium page of the
 * production console → `POST /api/actions/updates` (wait for completed) → … → the answer, then the
 * console's read proxy (`GET /api/dw/…/history` from the last cursor) until `UpdateCompleted` with
 * the answered id, as the Updates tab confirms; the signal the same way (`POST /api/actions/runs`,
 * then `SignalReceived` with the answered command id read back).
 *
 * `node --import tsx bench/update-round-trip.ts`; BENCH_UPDATES (default 200) of each.
 */

const COUNT = Number(process.env.BENCH_UPDATES ?? 200);
const WARM_UP = 20;
const UPDATES_PER_RUN = 25;
const HEADERS = { "content-type": "application/json", "X-Durable-Workflow-Control-Plane-Version": "2" };

interface Target {
  workflowId: string;
  runId: string;
  /** `next_page_token` of the history read so far (base64 of the last sequence seen). */
  cursor: string | null;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: "POST", headers: HEADERS, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function start(serverUrl: string, workflowType: string, workflowId: string, input: unknown[]): Promise<Target> {
  const r = await post(`${serverUrl}/api/workflows`, {
    workflow_type: workflowType,
    workflow_id: workflowId,
    task_queue: "default",
    input,
  });
  if (r.status !== 201 || typeof r.body.run_id !== "string") throw new Error(`start ${workflowId}: HTTP ${r.status}`);
  return { workflowId, runId: r.body.run_id, cursor: null };
}

type Event = { sequence: number; event_type: string; payload?: Record<string, unknown> | unknown[] };

/** Reads the run's new events from its cursor until one matches; advances the cursor past what it read. */
async function readUntil(serverUrl: string, t: Target, match: (e: Event) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const query = t.cursor ? `?page_size=1000&next_page_token=${encodeURIComponent(t.cursor)}` : "?page_size=1000";
    const response = await fetch(`${serverUrl}/api/workflows/${t.workflowId}/runs/${t.runId}/history${query}`, {
      headers: HEADERS,
    });
    const body = (await response.json()) as { events?: Event[] };
    if (!response.ok) throw new Error(`history of ${t.workflowId}: HTTP ${response.status}`);
    const events = body.events ?? [];
    const last = events.at(-1);
    if (last) t.cursor = Buffer.from(String(last.sequence)).toString("base64");
    if (events.some(match)) return;
    if (Date.now() > deadline) throw new Error(`${what} never reached ${t.workflowId}'s history`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const payloadOf = (e: Event): Record<string, unknown> => (e.payload && !Array.isArray(e.payload) ? e.payload : {});

async function waitForWait(serverUrl: string, t: Target): Promise<void> {
  await readUntil(serverUrl, t, (e) => e.event_type === "SignalWaitOpened", "the signal wait");
}

async function timeUpdates(serverUrl: string, holds: Target[]): Promise<{ answered: number[]; confirmed: number[] }> {
  const answered: number[] = [];
  const confirmed: number[] = [];
  for (let i = 0; i < COUNT + WARM_UP; i++) {
    const t = holds[Math.floor(i / UPDATES_PER_RUN)] as Target;
    const t0 = performance.now();
    const r = await post(
      `${serverUrl}/api/workflows/${t.workflowId}/runs/${t.runId}/update/${DELIVERY_HOLD.changeAddress}`,
      {
        input: [`${i} Bench Lane`],
        wait_for: "completed",
        request_id: `bench-update-${i}`,
      },
    );
    answered.push(performance.now() - t0);
    if (r.status !== 200 || r.body.update_status !== "completed")
      throw new Error(`update ${i}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    const id = r.body.update_id;
    await readUntil(
      serverUrl,
      t,
      (e) => e.event_type === "UpdateCompleted" && payloadOf(e).update_id === id,
      `update ${i}`,
    );
    confirmed.push(performance.now() - t0);
  }
  return { answered, confirmed };
}

async function timeSignals(serverUrl: string, t: Target): Promise<{ answered: number[]; confirmed: number[] }> {
  const answered: number[] = [];
  const confirmed: number[] = [];
  for (let i = 0; i < COUNT + WARM_UP; i++) {
    const t0 = performance.now();
    const r = await post(`${serverUrl}/api/workflows/${t.workflowId}/runs/${t.runId}/signal/note`, {
      input: [i],
      request_id: `bench-signal-${i}`,
    });
    answered.push(performance.now() - t0);
    if (r.status !== 202) throw new Error(`signal ${i}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    const id = r.body.command_id;
    await readUntil(
      serverUrl,
      t,
      (e) => e.event_type === "SignalReceived" && payloadOf(e).workflow_command_id === id,
      `signal ${i}`,
    );
    confirmed.push(performance.now() - t0);
  }
  return { answered, confirmed };
}

async function timeQueries(serverUrl: string, t: Target): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < COUNT + WARM_UP; i++) {
    const t0 = performance.now();
    const r = await post(`${serverUrl}/api/workflows/${t.workflowId}/runs/${t.runId}/query/${DELIVERY_HOLD.query}`, {});
    samples.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`query ${i}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  return samples;
}

function report(label: string, samples: number[]): ReturnType<typeof percentiles> {
  const p = percentiles(samples.slice(WARM_UP));
  console.log(`${label}: ${describePercentiles(p)}`);
  return p;
}

/**
 * Sequential sends from the page, each timed until its event is read back through the console's
 * read proxy: `[answered, confirmed]` per send, on the browser's clock.
 */
async function confirmInPage(page: Page, kind: "update" | "signal", targets: Target[]): Promise<number[][]> {
  return page.evaluate(
    async ({ kind, targets, count, perRun, updateName }) => {
      // No named functions in here: tsx's helper for their names does not exist in the page.
      const samples: number[][] = [];
      const cursors: (string | null)[] = targets.map(() => null);
      for (let i = 0; i < count; i++) {
        const at = kind === "update" ? Math.floor(i / perRun) : 0;
        const t = targets[at];
        if (!t) throw new Error(`no target for send ${i}`);
        const body =
          kind === "update"
            ? {
                workflowId: t.workflowId,
                runId: t.runId,
                requestId: `bench-page-update-${i}`,
                updateName,
                input: [`${i} Page Lane`],
                waitFor: "completed",
              }
            : {
                action: "signal",
                workflowId: t.workflowId,
                runId: t.runId,
                requestId: `bench-page-signal-${i}`,
                signalName: "note",
                input: [i],
              };
        const t0 = performance.now();
        const response = await fetch(kind === "update" ? "/api/actions/updates" : "/api/actions/runs", {
          method: "POST",
          headers: { "content-type": "application/json", "x-namespace": "default" },
          body: JSON.stringify(body),
        });
        const answer = (await response.json()) as Record<string, unknown>;
        const answered = performance.now() - t0;
        const id = kind === "update" ? answer.updateId : answer.commandId;
        if (!response.ok || typeof id !== "string")
          throw new Error(`${kind} ${i}: HTTP ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
        const wanted = kind === "update" ? "UpdateCompleted" : "SignalReceived";
        const key = kind === "update" ? "update_id" : "workflow_command_id";
        for (let found = false; !found;) {
          if (performance.now() - t0 > 30_000) throw new Error(`${kind} ${i}: ${wanted} never read back`);
          const cursor = cursors[at];
          const query = `page_size=500${cursor ? `&next_page_token=${encodeURIComponent(cursor)}` : ""}`;
          const read = await fetch(
            `/api/dw/workflows/${encodeURIComponent(t.workflowId)}/runs/${encodeURIComponent(t.runId)}/history?${query}`,
            {
              headers: { "x-namespace": "default" },
            },
          );
          const page = (await read.json()) as {
            events?: { sequence: number; event_type: string; payload?: unknown }[];
          };
          if (!read.ok) throw new Error(`history ${i}: HTTP ${read.status}`);
          const events = page.events ?? [];
          const last = events[events.length - 1];
          if (last) cursors[at] = btoa(String(last.sequence));
          found = events.some(
            (e) =>
              e.event_type === wanted &&
              typeof e.payload === "object" &&
              e.payload !== null &&
              (e.payload as Record<string, unknown>)[key] === id,
          );
          if (!found) await new Promise((r) => setTimeout(r, 2));
        }
        samples.push([answered, performance.now() - t0]);
      }
      return samples;
    },
    {
      kind,
      targets: targets.map((t) => ({ workflowId: t.workflowId, runId: t.runId })),
      count: COUNT + WARM_UP,
      perRun: UPDATES_PER_RUN,
      updateName: DELIVERY_HOLD.changeAddress,
    },
  );
}

/** The production console on `serverUrl` and a Chromium page on it; both closed by the caller. */
async function openConsole(serverUrl: string, children: Spawned[]): Promise<{ browser: Browser; page: Page }> {
  ensureBuild();
  const port = await freePort();
  const next = spawnChild(
    join(ROOT, "node_modules", ".bin", "next"),
    ["start", "-H", "127.0.0.1", "-p", String(port)],
    cleanEnv({ DW_SERVER_URL: serverUrl, PORT: String(port) }),
  );
  children.push(next);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/api/healthz`, 120_000, () => next.child.exitCode === null);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu"],
  });
  const page = await browser.newPage();
  // Any console page: the sends are same-origin fetches from it, as the Updates tab's are.
  await page.goto(`${base}/api/healthz`);
  return { browser, page };
}

async function startHolds(serverUrl: string, label: string): Promise<Target[]> {
  const holds: Target[] = [];
  for (let r = 0; r < Math.ceil((COUNT + WARM_UP) / UPDATES_PER_RUN); r++)
    holds.push(
      await start(serverUrl, DELIVERY_HOLD.type, `bench-hold-${label}-${Date.now()}-${r}`, [`parcel-${r}`, "depot"]),
    );
  for (const t of holds) await waitForWait(serverUrl, t);
  return holds;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-update-"));
  const children: Spawned[] = [];
  let worker: Worker | null = null;
  let browser: Browser | null = null;
  try {
    const server = await startEmbeddedServer(join(dir, "update.db"));
    children.push(server);
    worker = new Worker({
      baseUrl: server.url,
      taskQueue: "default",
      workflows: [deliveryHoldWorkflow, refundApprovalWorkflow],
      activities: defaultQueueActivities,
    });
    await worker.start();
    const stamp = Date.now();
    const holds = await startHolds(server.url, "direct");
    const refund = await start(server.url, "RefundApprovalWorkflow", `bench-refund-${stamp}`, ["order-1"]);
    await waitForWait(server.url, refund);

    const updates = await timeUpdates(server.url, holds);
    const updateAnswered = report(`update answered (changeAddress, wait_for completed)`, updates.answered);
    const update = report(`update to confirmed (UpdateCompleted read back)`, updates.confirmed);
    const signals = await timeSignals(server.url, refund);
    report(`signal answered (note)`, signals.answered);
    const signal = report(`signal to confirmed (SignalReceived read back)`, signals.confirmed);
    const query = report(`query answered (status, 1 worker)`, await timeQueries(server.url, holds[0] as Target));

    const opened = await openConsole(server.url, children);
    browser = opened.browser;
    const pageHolds = await startHolds(server.url, "page");
    const pageRefund = await start(server.url, "RefundApprovalWorkflow", `bench-refund-page-${stamp}`, ["order-2"]);
    await waitForWait(server.url, pageRefund);
    const inPageUpdates = await confirmInPage(opened.page, "update", pageHolds);
    report(
      `console: update answered`,
      inPageUpdates.map((x) => x[0] ?? Number.NaN),
    );
    const pageUpdate = report(
      `console: update to confirmed`,
      inPageUpdates.map((x) => x[1] ?? Number.NaN),
    );
    const inPageSignals = await confirmInPage(opened.page, "signal", [pageRefund]);
    report(
      `console: signal answered`,
      inPageSignals.map((x) => x[0] ?? Number.NaN),
    );
    const pageSignal = report(
      `console: signal to confirmed`,
      inPageSignals.map((x) => x[1] ?? Number.NaN),
    );

    console.log(`worker: ${worker.stats.updatesCompleted} updates completed, ${worker.stats.queriesAnswered} queries`);
    if (worker.stats.updatesCompleted !== 2 * (COUNT + WARM_UP))
      throw new Error(`the worker completed ${worker.stats.updatesCompleted} updates, not ${2 * (COUNT + WARM_UP)}`);

    const pair = (p: ReturnType<typeof percentiles>) => `${ms(p.p50)} / ${ms(p.p95)}`;
    figure(`update to confirmed via console p50 / p95 (n=${pageUpdate.n}, 1 worker)`, pair(pageUpdate), "—", null);
    figure(`signal to confirmed via console p50 / p95 (n=${pageSignal.n})`, pair(pageSignal), "—", null);
    figure(`update to confirmed p50 / p95 (n=${update.n}, 1 worker, no browser)`, pair(update), "—", null);
    figure(`update answered p50 / p95 (n=${updateAnswered.n}, wait_for completed)`, pair(updateAnswered), "—", null);
    figure(`signal to confirmed p50 / p95 (n=${signal.n}, no browser)`, pair(signal), "—", null);
    figure(`query answered p50 / p95 (n=${query.n}, 1 worker, no browser)`, pair(query), "—", null);
  } finally {
    await browser?.close().catch(() => undefined);
    await worker?.shutdown({ abortPolls: true }).catch(() => undefined);
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

bounded("update-round-trip bench", Number(process.env.BENCH_LIMIT_MS ?? 10 * 60_000), main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
