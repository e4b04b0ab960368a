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
import { bounded, describePercentiles, figure, ms, percentiles, startEmbeddedServer } from "./support/report";
import type { Spawned } from "./support/report";

/**
 * Update-to-confirmed time (issue 41), browser-less: a Node client on loopback (keep-alive) sends
 * `POST /api/workflows/{id}/runs/{runId}/update/changeAddress` with `wait_for: completed` to the
 * embedded server → the update's workflow task → the one polling TypeScript SDK worker (server/sdk,
 * the demo's DeliveryHoldWorkflow) replays and runs the handler → `complete_update` → the answer;
 * then reads the run's history from its last cursor until `UpdateCompleted` with the answered
 * update id is there (how the Updates tab confirms). Beside it, measured the same way by the same
 * client: a signal (`note` to a waiting RefundApprovalWorkflow) until its `SignalReceived` is read
 * back, and a `status` query of a held delivery (the worker's answer). Sent one after another after
 * a warm-up of each; every answer is checked, a failure stops the bench. Updates rotate over
 * several held runs so no run's history (replayed on each update) grows past ~80 events.
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

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-update-"));
  const children: Spawned[] = [];
  let worker: Worker | null = null;
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
    const holds: Target[] = [];
    for (let r = 0; r < Math.ceil((COUNT + WARM_UP) / UPDATES_PER_RUN); r++)
      holds.push(await start(server.url, DELIVERY_HOLD.type, `bench-hold-${stamp}-${r}`, [`parcel-${r}`, "depot"]));
    for (const t of holds) await waitForWait(server.url, t);
    const refund = await start(server.url, "RefundApprovalWorkflow", `bench-refund-${stamp}`, ["order-1"]);
    await waitForWait(server.url, refund);

    const updates = await timeUpdates(server.url, holds);
    const updateAnswered = report(`update answered (changeAddress, wait_for completed)`, updates.answered);
    const update = report(`update to confirmed (UpdateCompleted read back)`, updates.confirmed);
    const signals = await timeSignals(server.url, refund);
    report(`signal answered (note)`, signals.answered);
    const signal = report(`signal to confirmed (SignalReceived read back)`, signals.confirmed);
    const query = report(`query answered (status, 1 worker)`, await timeQueries(server.url, holds[0] as Target));
    console.log(`worker: ${worker.stats.updatesCompleted} updates completed, ${worker.stats.queriesAnswered} queries`);
    if (worker.stats.updatesCompleted !== COUNT + WARM_UP)
      throw new Error(`the worker completed ${worker.stats.updatesCompleted} updates, not ${COUNT + WARM_UP}`);

    const pair = (p: ReturnType<typeof percentiles>) => `${ms(p.p50)} / ${ms(p.p95)}`;
    figure(`update to confirmed p50 / p95 (n=${update.n}, 1 worker, no browser)`, pair(update), "—", null);
    figure(`update answered p50 / p95 (n=${updateAnswered.n}, wait_for completed)`, pair(updateAnswered), "—", null);
    figure(`signal to confirmed p50 / p95 (n=${signal.n}, no browser)`, pair(signal), "—", null);
    figure(`query answered p50 / p95 (n=${query.n}, 1 worker, no browser)`, pair(query), "—", null);
  } finally {
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
