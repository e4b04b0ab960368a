import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { encodePayload } from "../codec/codec";
import {
  currentRun,
  eventually,
  historyOf,
  startTestServer,
  TEST_OPERATOR_TOKEN,
  TEST_WORKER_TOKEN,
} from "../test-support/test-server";
import type { TestServer } from "../test-support/test-server";
import { Worker } from "../sdk/worker";
import { startCrashingWorker } from "./crashing-worker";
import { loseTransport, waitForReadyTask } from "./faults";
import { createStarter, startDemoFleet } from "./fleet";
import type { DemoFleet } from "./fleet";
import { loadFleetState, saveFleetState } from "./fleet-state";
import { quietFleetOptions } from "../test-support/test-fleet";
import { demoWorkflows, paymentsQueueActivities } from "./workflows";

let server: TestServer;
let clock: FakeClock;

beforeEach(async () => {
  clock = new FakeClock();
  server = await startTestServer(clock);
});

afterEach(async () => {
  await server.close();
});

function advance(seconds: number): void {
  clock.advance(seconds * 1000);
  server.engine.sweep();
}

const liveness = (runId: string): string | null =>
  (
    server.db.prepare("SELECT liveness_state FROM workflow_run_summaries WHERE id = ?").get(runId) as
      { liveness_state: string | null } | undefined
  )?.liveness_state ?? null;

function settled(workflowId: string, status: string) {
  return () => {
    const r = currentRun(server.db, workflowId);
    return r?.status === status ? r : null;
  };
}

describe("fault injection", () => {
  it("a crashed worker's attempt expires, is redelivered, and its late report is refused as stale", async () => {
    let releaseLateReport: () => void = () => undefined;
    const crashing = startCrashingWorker({
      baseUrl: server.baseUrl,
      token: TEST_WORKER_TOKEN,
      taskQueue: "payments",
      workerId: "crashy",
      reportLateAfter: new Promise<void>((r) => (releaseLateReport = r)),
    });
    const wfWorker = new Worker({
      baseUrl: server.baseUrl,
      token: TEST_WORKER_TOKEN,
      taskQueue: "default",
      workflows: demoWorkflows,
    });
    const payments = new Worker({
      baseUrl: server.baseUrl,
      token: TEST_WORKER_TOKEN,
      taskQueue: "payments",
      activities: paymentsQueueActivities,
    });
    try {
      await wfWorker.start();
      server.engine.startWorkflow({
        namespace: "default",
        workflow_id: "settle-1",
        workflow_type: "SettlementWorkflow",
        task_queue: "default",
        input: encodePayload(["batch-1"]),
      });
      const task = await crashing.claimed;
      expect(task.activity_type).toBe("SettlePayment");
      await payments.start();
      advance(301);
      const run = await eventually(settled("settle-1", "completed"), "redelivered settlement");
      releaseLateReport();
      const late = await crashing.lateReport;
      expect(late).toMatchObject({ recorded: false, reason: "stale_attempt" });

      const attempts = server.db
        .prepare(
          "SELECT attempt_number, status, lease_owner FROM activity_attempts WHERE workflow_run_id = ? ORDER BY attempt_number",
        )
        .all(run.id);
      expect(attempts).toEqual([
        { attempt_number: 1, status: "expired", lease_owner: "crashy" },
        { attempt_number: 2, status: "completed", lease_owner: payments.workerId },
      ]);
      const events = historyOf(server.db, run.id).map((e) => e.event_type);
      expect(events.filter((t) => t === "ActivityStarted")).toHaveLength(2);
      expect(events.filter((t) => t === "ActivityCompleted")).toHaveLength(1);
    } finally {
      crashing.stop();
      await Promise.all([wfWorker.shutdown({ abortPolls: true }), payments.shutdown({ abortPolls: true })]);
    }
  });

  it("a run whose task transport is lost projects repair_needed", async () => {
    const result = server.engine.startWorkflow({
      namespace: "default",
      workflow_id: "restock-1",
      workflow_type: "WarehouseRestockWorkflow",
      task_queue: "default",
      input: encodePayload(["sku-1"]),
    });
    const worker = new Worker({
      baseUrl: server.baseUrl,
      token: TEST_WORKER_TOKEN,
      taskQueue: "default",
      workflows: demoWorkflows,
    });
    try {
      await worker.start();
      const runId = result.run_id as string;
      expect(await waitForReadyTask(server.db, runId, "timer")).toBe(true);
      expect(liveness(runId)).not.toBe("repair_needed");
      expect(loseTransport(server.db, runId, clock.now())).toBe(1);
      expect(liveness(runId)).toBe("repair_needed");
    } finally {
      await worker.shutdown({ abortPolls: true });
    }
  });
});

describe("demo fleet", () => {
  let fleet: DemoFleet | null = null;
  afterEach(async () => {
    await fleet?.stop();
    fleet = null;
  });

  it("starts runs through the control plane's POST /api/workflows", async () => {
    const start = createStarter({ baseUrl: server.baseUrl, operatorToken: TEST_OPERATOR_TOKEN });
    const started = await start({
      workflowId: "via-http-1",
      workflowType: "OrderWorkflow",
      args: [{ orderId: "via-http-1" }],
    });
    expect(started.workflowId).toBe("via-http-1");
    expect(started.runId).toBe(currentRun(server.db, "via-http-1")?.id);
  });

  it("keeps one run with lost transport on screen: a new one only after the last was repaired", async () => {
    fleet = await startDemoFleet(quietFleetOptions(server, { engine: undefined, lostTransportEveryMs: 30 }));
    const restocks = (): { workflow_instance_id: string; liveness_state: string }[] =>
      server.db
        .prepare(
          "SELECT workflow_instance_id, liveness_state FROM workflow_run_summaries WHERE workflow_type = 'WarehouseRestockWorkflow' ORDER BY workflow_instance_id",
        )
        .all() as {
        workflow_instance_id: string;
        liveness_state: string;
      }[];
    await new Promise((r) => setTimeout(r, 200));
    expect(restocks()).toEqual([
      { workflow_instance_id: fleet.seeded.lost_transport!.workflowId, liveness_state: "repair_needed" },
    ]);
    const res = await fetch(`${server.baseUrl}/api/workflows/${fleet.seeded.lost_transport!.workflowId}/repair`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`, "X-Durable-Workflow-Control-Plane-Version": "2" },
    });
    expect(res.status).toBe(200);
    await eventually(() => restocks()[1]?.liveness_state === "repair_needed", "second injection after the repair");
    await new Promise((r) => setTimeout(r, 100));
    expect(restocks().map((r) => r.liveness_state)).toEqual(["timer_scheduled", "repair_needed"]);
  });

  it("keeps a trickle of new orders flowing", async () => {
    fleet = await startDemoFleet(quietFleetOptions(server, { db: undefined, engine: undefined, trickleMs: 50 }));
    const orders = (): number =>
      (
        server.db
          .prepare("SELECT COUNT(*) AS n FROM workflow_instances WHERE workflow_type = 'OrderWorkflow'")
          .get() as { n: number }
      ).n;
    await eventually(() => orders() >= 8, "three trickle orders after the five seeded ones");
  });

  it("answers queries: a finished order's status and progress, a declined one's stage, the ledger's failure", async () => {
    fleet = await startDemoFleet(quietFleetOptions(server));
    const s = fleet.seeded;
    const query = async (name: string, seeded: string) => {
      const res = await fetch(`${server.baseUrl}/api/workflows/${s[seeded]!.workflowId}/query/${name}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
          "Content-Type": "application/json",
          "X-Durable-Workflow-Control-Plane-Version": "2",
        },
        body: "{}",
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    await eventually(settled(s.order_happy!.workflowId, "completed"), "happy order");
    await eventually(settled(s.order_declined!.workflowId, "failed"), "declined order");
    expect(await query("status", "order_happy")).toMatchObject({
      status: 200,
      body: { result: { stage: "fulfilled" } },
    });
    expect(await query("progress", "order_happy")).toMatchObject({ body: { result: { done: 5, total: 5 } } });
    expect(await query("status", "order_declined")).toMatchObject({ body: { result: { stage: "charge failed" } } });
    expect(await query("ledger", "order_happy")).toMatchObject({
      status: 409,
      body: { reason: "query_rejected", message: "charge ledger is not loaded" },
    });
  });

  it("seeds a held delivery with one completed and one non-retryably failed update, and release dispatches it to the changed address", async () => {
    fleet = await startDemoFleet(quietFleetOptions(server));
    const hold = fleet.seeded.updates_waiting!;
    const events = () => historyOf(server.db, hold.runId ?? "");
    await eventually(
      () => events().filter((e) => e.event_type === "UpdateCompleted").length === 2,
      "both seeded updates answered",
    );
    const completed = events().filter((e) => e.event_type === "UpdateCompleted");
    expect(completed.map((e) => [e.payload.update_name, e.payload.non_retryable ?? null])).toEqual([
      ["changeAddress", null],
      ["applyVoucher", true],
    ]);
    expect(completed[1]?.payload).toMatchObject({
      exception_type: "VoucherExpired",
      message: "voucher WINTER25 expired on 2026-11-30",
    });
    const post = (path: string, body: unknown) =>
      fetch(`${server.baseUrl}/api/workflows/${hold.workflowId}/${path}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
          "Content-Type": "application/json",
          "X-Durable-Workflow-Control-Plane-Version": "2",
        },
        body: JSON.stringify(body),
      });
    const status = await post("query/status", {});
    expect(await status.json()).toMatchObject({
      result: { address: "7 Quay Street, Porto", addressChanges: 1, stage: "held at depot" },
    });
    expect((await post("signal/release", {})).status).toBe(202);
    const done = await eventually(settled(hold.workflowId, "completed"), "released delivery");
    expect(done.output).toMatchObject({
      address: "7 Quay Street, Porto",
      addressChanges: 1,
      dispatched: { dispatched: true },
    });
  });

  it("seeds every scenario and each ends where the console expects it", async () => {
    const log: string[] = [];
    fleet = await startDemoFleet(quietFleetOptions(server, { log: (l) => log.push(l) }));
    const s = fleet.seeded;
    const id = (name: string): string => s[name]!.workflowId;

    await eventually(settled(id("order_happy"), "completed"), "happy order");
    const declined = await eventually(settled(id("order_declined"), "failed"), "declined order");
    expect(historyOf(server.db, declined.id).find((e) => e.event_type === "ActivityFailed")?.payload).toMatchObject({
      non_retryable: true,
      exception_type: "PaymentDeclined",
    });
    expect(
      historyOf(server.db, declined.id).some(
        (e) => e.event_type === "ActivityScheduled" && e.payload.activity_type === "ReleaseInventory",
      ),
    ).toBe(true);
    await eventually(() => liveness(s.lost_transport!.runId as string) === "repair_needed", "lost transport");
    await eventually(
      () =>
        historyOf(server.db, currentRun(server.db, id("order_exhausted"))?.id ?? "").some(
          (e) => e.event_type === "ActivityRetryScheduled",
        ),
      "first charge retry",
    );
    await eventually(
      () =>
        historyOf(server.db, currentRun(server.db, id("order_slow_invoice"))?.id ?? "").some(
          (e) => e.event_type === "ActivityStarted" && e.payload.activity_type === "GenerateInvoice",
        ),
      "slow invoice running",
    );

    advance(2);
    await eventually(settled(id("order_transient"), "completed"), "transient order after one retry");
    await eventually(
      () =>
        historyOf(server.db, currentRun(server.db, id("order_exhausted"))?.id ?? "").filter(
          (e) => e.event_type === "ActivityRetryScheduled",
        ).length === 2,
      "second charge retry",
    );
    advance(5);
    const exhausted = await eventually(settled(id("order_exhausted"), "failed"), "exhausted order");
    expect(historyOf(server.db, exhausted.id).find((e) => e.event_type === "ActivityFailed")?.payload).toMatchObject({
      non_retryable: false,
      exception_type: "GatewayUnavailable",
    });
    const slow = await eventually(settled(id("order_slow_invoice"), "failed"), "invoice timeout");
    expect(historyOf(server.db, slow.id).some((e) => e.event_type === "ActivityTimedOut")).toBe(true);

    advance(20);
    const timedOut = await eventually(settled(id("execution_timeout"), "failed"), "execution timeout");
    expect(timedOut.closed_reason).toBe("timed_out");

    advance(30);
    const auto = await eventually(settled(id("approval_timeout"), "completed"), "approval timeout");
    expect(auto.output).toMatchObject({ approved: false, timedOut: true });
    expect(currentRun(server.db, id("approval_waiting"))?.status).toBe("waiting");

    const chain = await eventually(settled(id("continue_as_new"), "completed"), "continue-as-new chain");
    expect(chain.run_number).toBe(4);
    const batch = await eventually(settled(id("parent_child"), "completed"), "parent/child");
    expect(batch.output).toMatchObject({
      parcels: [
        { parcel: "parcel-a", packed: true },
        { parcel: "parcel-b", packed: true },
        { parcel: "parcel-c", packed: true },
      ],
    });

    if (!fleet.crashingWorker) throw new Error("a freshly seeded fleet has its crashing worker");
    await fleet.crashingWorker.claimed;
    advance(301);
    await eventually(settled(id("worker_crash"), "completed"), "settlement redelivered to the healthy payments worker");
    expect(log.some((l) => l.startsWith("lost transport of"))).toBe(true);
    expect(log.filter((l) => l.includes("error"))).toEqual([]);
  });
});

describe("restart on the same data file", () => {
  let fleet: DemoFleet | null = null;
  afterEach(async () => {
    await fleet?.stop();
    fleet = null;
  });

  it("resumes the saved fleet: nothing seeded twice, same suffix, the order counter continues", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bw-fleet-state-"));
    const statePath = join(dir, "demo.db.demo.json");
    const opts = quietFleetOptions(server, { statePath });
    // Top-level instances only: a resumed parent may start its children while this test runs.
    const instances = (): number =>
      (
        server.db
          .prepare(
            `SELECT COUNT(*) AS n FROM workflow_instances i WHERE NOT EXISTS (
               SELECT 1 FROM workflow_runs r
               WHERE r.workflow_instance_id = i.id AND r.parent_workflow_instance_id IS NOT NULL)`,
          )
          .get() as { n: number }
      ).n;
    try {
      const first = await startDemoFleet(opts);
      expect(first.resumed).toBe(false);
      await first.stop();
      const seededIds = Object.values(first.seeded).map((run) => run.workflowId);
      const before = instances();
      expect(loadFleetState(statePath)?.orderCount).toBe(5);

      const log: string[] = [];
      fleet = await startDemoFleet({ ...opts, log: (line) => log.push(line) });
      expect(fleet.resumed).toBe(true);
      expect(fleet.crashingWorker).toBeNull();
      expect(Object.values(fleet.seeded).map((run) => run.workflowId)).toEqual(seededIds);
      expect(log.filter((line) => line.startsWith("seeded "))).toEqual([]);
      // Only the next lost-transport restock is new; no scenario is started again.
      expect(instances()).toBe(before + 1);
      const suffix = loadFleetState(statePath)?.suffix ?? "?";
      expect(log).toContain(`resumed fleet ${suffix}: ${seededIds.length} scenarios seeded earlier, 5 orders`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the fleet state owner-only, like the data file beside it", () => {
    const dir = mkdtempSync(join(tmpdir(), "bw-fleet-state-"));
    const statePath = join(dir, "demo.db.demo.json");
    const umask = process.umask(0o022);
    try {
      writeFileSync(`${statePath}.tmp`, "{}", { mode: 0o644 }); // a crashed save's leftover
      saveFleetState(statePath, { version: 1, suffix: "own", seeded: {}, orderCount: 0, restocks: 0 });
      expect(statSync(statePath).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(umask);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("seeds afresh when the saved state names runs the data file does not hold", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bw-fleet-state-"));
    const statePath = join(dir, "demo.db.demo.json");
    saveFleetState(statePath, {
      version: 1,
      suffix: "gone",
      seeded: { order_happy: { workflowId: "order-gone-0001", runId: "r1" } },
      orderCount: 1,
      restocks: 0,
    });
    const log: string[] = [];
    try {
      fleet = await startDemoFleet(
        quietFleetOptions(server, { engine: undefined, statePath, log: (line) => log.push(line) }),
      );
      expect(fleet.resumed).toBe(false);
      expect(log.some((line) => line.includes("seeding afresh"))).toBe(true);
      expect(loadFleetState(statePath)?.suffix).not.toBe("gone");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
