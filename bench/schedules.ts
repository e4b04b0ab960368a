import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { bounded, describePercentiles, figure, ms, percentiles, startEmbeddedServer } from "./support/report";

/**
 * Schedules (issue 42), two figures against the embedded server (`server/main.ts`, real clock, its
 * own SQLite file, no auth):
 *  - the schedules list over 10,000 schedules: `GET /api/schedules` from a Node client on loopback
 *    (keep-alive, gzip as fetch asks), the whole answer read; the real route has no paging, so one
 *    answer is every schedule (docs/contract.md "Schedules");
 *  - fire lateness with 1,000 schedules every minute (`* * * * *`, `allow_all` so each minute
 *    starts a run): for every `ScheduleTriggered` of the next two minute boundaries, the time it
 *    was first seen committed in the server's SQLite file (polled every 20 ms) minus the boundary.
 *
 * `node --import tsx bench/schedules.ts`; BENCH_SCHEDULES_LIST (10000), BENCH_SCHEDULES_FIRING (1000).
 */

const LIST_SIZE = Number(process.env.BENCH_SCHEDULES_LIST ?? 10_000);
const FIRING = Number(process.env.BENCH_SCHEDULES_FIRING ?? 1_000);
const LIST_SAMPLES = 60;
const HEADERS = { "content-type": "application/json", "X-Durable-Workflow-Control-Plane-Version": "2" };

async function createMany(url: string, n: number, make: (i: number) => unknown, concurrency = 16): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const r = await fetch(`${url}/api/schedules`, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify(make(i)),
      });
      if (r.status !== 201) throw new Error(`schedule ${i}: HTTP ${r.status} ${(await r.text()).slice(0, 200)}`);
      await r.arrayBuffer().catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

async function listFigure(dir: string): Promise<void> {
  const server = await startEmbeddedServer(join(dir, "list.db"));
  try {
    // Yearly, so none fires while the list is measured.
    await bounded(
      "creating the listed schedules",
      10 * 60_000,
      createMany(server.url, LIST_SIZE, (i) => ({
        schedule_id: `list-${String(i).padStart(5, "0")}`,
        spec: { cron_expressions: ["0 3 1 1 *"], timezone: "Europe/Berlin" },
        action: { workflow_type: "reports.yearly", task_queue: "reports" },
        note: i % 10 === 0 ? "paused for the audit" : null,
        paused: i % 10 === 0,
      })),
    );
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < LIST_SAMPLES + 5; i++) {
      const t0 = performance.now();
      const r = await fetch(`${server.url}/api/schedules`, { headers: HEADERS });
      const body = (await r.json()) as { schedules: unknown[] };
      const took = performance.now() - t0;
      if (r.status !== 200 || body.schedules.length !== LIST_SIZE)
        throw new Error(`list: HTTP ${r.status}, ${body.schedules?.length} schedules`);
      bytes = JSON.stringify(body).length;
      if (i >= 5) samples.push(took);
    }
    const p = percentiles(samples);
    console.log(`schedules list (${LIST_SIZE}, one ${Math.round(bytes / 1024)} KB answer): ${describePercentiles(p)}`);
    figure(`schedules list over ${LIST_SIZE} schedules, p95`, ms(p.p95), "< 25 ms", p.p95 < 25);
  } finally {
    await server.stop();
  }
}

async function latenessFigure(dir: string): Promise<void> {
  const file = join(dir, "fires.db");
  const server = await startEmbeddedServer(file);
  try {
    await bounded(
      "creating the firing schedules",
      5 * 60_000,
      createMany(server.url, FIRING, (i) => ({
        schedule_id: `minutely-${String(i).padStart(4, "0")}`,
        spec: { cron_expressions: ["* * * * *"] },
        action: { workflow_type: "reports.minutely", task_queue: "reports" },
        overlap_policy: "allow_all",
      })),
    );
    const firstBoundary = Math.ceil(Date.now() / 60_000) * 60_000;
    const boundaries = [firstBoundary, firstBoundary + 60_000];
    const waitUntil = boundaries[1]! + 30_000;
    console.log(`waiting for the fires at ${boundaries.map((b) => new Date(b).toISOString()).join(" and ")}`);
    // When each fire became visible (committed), polled every 20 ms from the server's file.
    const db = new Database(file, { readonly: true, fileMustExist: true });
    const poll = db.prepare(
      "SELECT rowid AS r, recorded_at FROM workflow_schedule_history_events WHERE rowid > ? AND event_type = 'ScheduleTriggered'",
    );
    let last = 0;
    const seen: { recorded: number; visible: number }[] = [];
    while (Date.now() < waitUntil) {
      const now = Date.now();
      for (const row of poll.all(last) as { r: number; recorded_at: number }[]) {
        last = Math.max(last, row.r);
        seen.push({ recorded: row.recorded_at, visible: now });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    db.close();
    const fires = seen.filter((f) => f.recorded >= boundaries[0]!);
    if (fires.length < FIRING * 2) throw new Error(`expected ${FIRING * 2} fires, found ${fires.length}`);
    const minute = (t: number) => Math.floor(t / 60_000) * 60_000;
    const visible = percentiles(fires.map((f) => f.visible - minute(f.recorded)));
    const recorded = percentiles(fires.map((f) => f.recorded - minute(f.recorded)));
    console.log(`fire lateness, committed and visible (${fires.length} fires): ${describePercentiles(visible)}`);
    console.log(`fire lateness by recorded_at (a batch's transaction start): ${describePercentiles(recorded)}`);
    figure(`fire lateness, ${FIRING} schedules each minute, p95`, ms(visible.p95), "< 2,000 ms", visible.p95 < 2000);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bw-bench-schedules-"));
  try {
    await listFigure(dir);
    await latenessFigure(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
