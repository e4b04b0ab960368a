import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FakeClock } from "../../clock";
import { createEngine } from "../../engine";
import type { Engine } from "../../engine";
import { openDb } from "../../store/db";
import type { Db } from "../../store/db";
import { buildApp } from "../app";
import { tokenAuth } from "../test-support";
import type { JsonTree } from "./test-support";
import { cp, list } from "./test-support";

/**
 * Worker versioning as durable-workflow/server serves it (TaskQueueController build-id routes,
 * TaskQueueBuildIdRolloutSnapshot, DeploymentController / DeploymentLifecycleService; see
 * lib/dw/fixtures/build-ids.md): build ids from real worker registrations over HTTP, the rollout
 * intent durable in the SQLite file across a restart, drained workers refused at poll, and every
 * refusal in the real words. Fake clock, no sleeps.
 */

const OP = "op-token";
const WK = "wk-token";
const AUTH = tokenAuth({ DW_OPERATOR_TOKEN: OP, DW_WORKER_TOKEN: WK });
let dir: string;
let clock: FakeClock;
let db: Db;
let engine: Engine;
let app: FastifyInstance;
let url: string;

async function boot(): Promise<void> {
  db = openDb(join(dir, "server.db"), clock);
  engine = createEngine({ db, clock });
  app = buildApp({ db, clock, engine, auth: AUTH, pollTimeoutMs: 50 });
  url = await app.listen({ host: "127.0.0.1", port: 0 });
}

async function shutdown(): Promise<void> {
  await app.close();
  db.close();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "bw-build-ids-"));
  clock = new FakeClock(Date.parse("2026-01-15T10:00:00.000Z"));
  await boot();
});
afterEach(async () => {
  await shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, req: Parameters<typeof cp>[2] = {}) => cp(url, path, { token: OP, ...req });

async function worker(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${url}/api/worker${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${WK}`,
      "x-durable-workflow-protocol-version": "1.19",
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function register(id: string, build: string | null, extra: Record<string, unknown> = {}) {
  return worker("/register", {
    worker_id: id,
    task_queue: "orders",
    runtime: "python",
    sdk_version: "2.12.0",
    ...(build === null ? {} : { build_id: build }),
    supported_workflow_types: ["Checkout"],
    ...extra,
  });
}

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
}

const keys = (o: unknown) => Object.keys(o as object).sort();
const cohort = (body: JsonTree, build: string | null) =>
  list(body.build_ids).find((e) => (e.build_id as unknown) === build)!;

describe("GET /api/task-queues/{queue}/build-ids", () => {
  test("groups the queue's registrations by build id with counts, runtimes, SDK versions, fingerprints and the real order", async () => {
    await register("w-v1-a", "v1", { workflow_definition_fingerprints: { Checkout: "sha256:aaa" } });
    clock.advance(1_000);
    await register("w-v1-b", "v1", {
      runtime: "typescript",
      sdk_version: "0.4.0",
      workflow_definition_fingerprints: { Checkout: "sha256:bbb" },
    });
    await register("w-v2", "v2");
    await register("w-none", null);
    clock.advance(61_000);
    await worker("/heartbeat", { worker_id: "w-v2" });
    await worker("/heartbeat", { worker_id: "w-none" });
    await worker("/heartbeat", { worker_id: "w-v1-b" });

    const r = await call("/task-queues/orders/build-ids");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    expect(keys(r.body)).toEqual(keys(fixture("task-queue-build-ids")));
    expect(r.body.stale_after_seconds).toBe(60);
    expect(list(r.body.build_ids).map((e) => [e.build_id, e.rollout_status])).toEqual([
      ["v1", "active"],
      ["v2", "active"],
      [null, "active"],
    ]);
    const v1 = cohort(r.body, "v1");
    expect(keys(v1)).toEqual(keys(list(fixture("task-queue-build-ids").build_ids as never)[0]));
    expect([v1.active_worker_count, v1.stale_worker_count, v1.draining_worker_count, v1.total_worker_count]).toEqual([
      1, 1, 0, 2,
    ]);
    expect(v1.runtimes).toEqual(["python", "typescript"]);
    expect(v1.sdk_versions).toEqual(["0.4.0", "2.12.0"]);
    expect(v1.workflow_definition_fingerprint_count).toBe(2);
    expect(v1.workflow_definition_fingerprint_conflicts).toEqual([{ workflow_type: "Checkout", fingerprint_count: 2 }]);
    expect(v1.first_seen_at).toBe("2026-01-15T10:00:00.000000Z");
    expect(v1.last_heartbeat_at).toBe("2026-01-15T10:01:02.000000Z");
    expect([v1.drain_intent, v1.drained_at, v1.promoted_at, v1.new_start_selected]).toEqual([
      "active",
      null,
      null,
      false,
    ]);
  });

  test("an unknown queue answers 200 with no build ids; a worker token is refused", async () => {
    const r = await call("/task-queues/nowhere/build-ids");
    expect([r.status, r.body.build_ids]).toEqual([200, []]);
    const w = await call("/task-queues/orders/build-ids", { token: WK });
    expect(w.status).toBe(403);
  });
});

describe("drain and resume", () => {
  test("drain marks the cohort and its workers draining, keeps drained_at on repeats, survives heartbeats and refuses polls", async () => {
    await register("w-v1", "v1");
    await register("w-v2", "v2");
    const d = await call("/task-queues/orders/build-ids/drain", { body: { build_id: "v1" } });
    expect(d.status).toBe(200);
    expect(d.body).toEqual({
      namespace: "default",
      task_queue: "orders",
      build_id: "v1",
      drain_intent: "draining",
      drained_at: "2026-01-15T10:00:00Z",
      promoted_at: null,
      rolled_back_at: null,
      new_start_selected: false,
    });
    expect(keys(d.body)).toEqual(keys(fixture("task-queue-build-id-drained")));
    clock.advance(5_000);
    const again = await call("/task-queues/orders/build-ids/drain", { body: { build_id: "v1" } });
    expect(again.body.drained_at).toBe("2026-01-15T10:00:00Z");

    // A heartbeat and a re-registration of the cohort stay draining (WorkerController::workerRegistrationStatus).
    await worker("/heartbeat", { worker_id: "w-v1" });
    await register("w-v1-late", "v1");
    const snap = await call("/task-queues/orders/build-ids");
    expect(cohort(snap.body, "v1")).toMatchObject({
      rollout_status: "draining",
      drain_intent: "draining",
      draining_worker_count: 2,
      active_worker_count: 0,
    });
    expect(list(snap.body.build_ids).map((e) => e.build_id)).toEqual(["v2", "v1"]);

    const poll = await worker("/workflow-tasks/poll", { worker_id: "w-v1", task_queue: "orders" });
    expect(poll.status).toBe(409);
    expect(poll.body).toMatchObject({
      task: null,
      poll_status: "draining",
      reason: "worker_draining",
      error:
        "Worker [w-v1] is marked draining for task queue [orders] and cannot claim new tasks until the cohort is resumed.",
      registered_build_id: "v1",
    });
    const act = await worker("/activity-tasks/poll", { worker_id: "w-v1-late", task_queue: "orders" });
    expect([act.status, act.body.reason]).toEqual([409, "worker_draining"]);
    const other = await worker("/workflow-tasks/poll", { worker_id: "w-v2", task_queue: "orders" });
    expect([other.status, other.body.poll_status]).toEqual([200, "timeout"]);

    const res = await call("/task-queues/orders/build-ids/resume", { body: { build_id: "v1" } });
    expect([res.status, res.body.drain_intent, res.body.drained_at]).toEqual([200, "active", null]);
    const after = await call("/task-queues/orders/build-ids");
    expect(cohort(after.body, "v1")).toMatchObject({ rollout_status: "active", active_worker_count: 2 });
    const ok = await worker("/workflow-tasks/poll", { worker_id: "w-v1", task_queue: "orders" });
    expect(ok.status).toBe(200);
  });

  test("null drains the unversioned cohort; a drain with no workers leaves a draining row", async () => {
    await register("w-none", null);
    const d = await call("/task-queues/orders/build-ids/drain", { body: { build_id: null } });
    expect([d.status, d.body.build_id, d.body.drain_intent]).toEqual([200, null, "draining"]);
    await call("/task-queues/orders/build-ids/drain", { body: { build_id: "ghost" } });
    const snap = await call("/task-queues/orders/build-ids");
    expect(list(snap.body.build_ids).map((e) => [e.build_id, e.rollout_status, e.total_worker_count])).toEqual([
      ["ghost", "draining", 0],
      [null, "draining", 1],
    ]);
  });

  test("a body without build_id, or with a number, is Laravel's 422", async () => {
    const missing = await call("/task-queues/orders/build-ids/drain", { body: {} });
    expect([missing.status, missing.body.message]).toEqual([422, "The build id field must be present."]);
    const wrong = await call("/task-queues/orders/build-ids/promote", { body: { build_id: 7 } });
    expect([wrong.status, (wrong.body.errors as JsonTree).build_id]).toEqual([
      422,
      ["The build id field must be a string."],
    ]);
  });
});

describe("promote", () => {
  test("selects the cohort for new starts; the newest promotion wins; a rollback gives the slot back", async () => {
    await register("w-v1", "v1");
    await register("w-v2", "v2");
    const p1 = await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v1" } });
    expect(p1.status).toBe(200);
    expect(keys(p1.body)).toEqual(keys(fixture("task-queue-build-id-promoted")));
    expect(p1.body).toMatchObject({
      build_id: "v1",
      drain_intent: "active",
      promoted_at: "2026-01-15T10:00:00Z",
      new_start_selected: true,
      deployment: { name: "default/orders@v1", state: "promoted", promoted_at: "2026-01-15T10:00:00Z" },
    });
    clock.advance(1_000);
    await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v2" } });
    let snap = await call("/task-queues/orders/build-ids");
    expect(list(snap.body.build_ids).map((e) => [e.build_id, e.new_start_selected])).toEqual([
      ["v1", false],
      ["v2", true],
    ]);
    const rb = await call(`/deployments/${encodeURIComponent("default/orders@v2")}/rollback`, { body: {} });
    expect([rb.status, rb.body.state, rb.body.rolled_back_at, rb.body.promoted_at]).toEqual([
      200,
      "rolled_back",
      "2026-01-15T10:00:01+00:00",
      null,
    ]);
    snap = await call("/task-queues/orders/build-ids");
    expect(cohort(snap.body, "v1").new_start_selected).toBe(true);
    expect(cohort(snap.body, "v2").rolled_back_at).toBe("2026-01-15T10:00:01Z");
  });

  test("refuses an unknown build id, a draining one and one whose workers went stale, with the real blockages (409)", async () => {
    const unknown = await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v9" } });
    expect(unknown.status).toBe(409);
    expect(keys(unknown.body)).toEqual(keys(fixture("task-queue-build-id-promote-rejected")));
    expect(unknown.body).toMatchObject({
      message: "No deployment is registered for default/orders@v9.",
      reason: "unknown_deployment",
      rejection_reason: "unknown_deployment",
      outcome: "rejected_unknown_deployment",
      command_status: "rejected",
      expected_resolution: "Roll a worker that heartbeats this build id, then retry promotion.",
      deployment: null,
    });

    await register("w-v1", "v1");
    await call("/task-queues/orders/build-ids/drain", { body: { build_id: "v1" } });
    const draining = await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v1" } });
    expect([draining.status, draining.body.reason, draining.body.message]).toEqual([
      409,
      "fleet_is_draining",
      "Deployment default/orders@v1 is draining; resume it before promoting.",
    ]);

    await register("w-v2", "v2");
    clock.advance(61_000);
    const stale = await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v2" } });
    expect([stale.status, stale.body.reason]).toEqual([409, "no_compatible_workers"]);
    expect(list(stale.body.blockages)[0]!.message).toBe(
      "No workers are heartbeating against default/orders; promotion would route fresh tasks to a fleet that cannot claim them.",
    );
  });
});

describe("/api/deployments", () => {
  test("lists one deployment per queue and build id, describes by name, and refuses in the real words", async () => {
    await register("w-v1", "v1");
    await register("w-none", null);
    await call("/task-queues/orders/build-ids/drain", { body: { build_id: "v1" } });
    const l = await call("/deployments");
    expect(l.status).toBe(200);
    expect(keys(l.body)).toEqual(keys(fixture("deployment-list")));
    expect(list(l.body.deployments).map((d) => [d.name, d.state, d.accepts_new_work])).toEqual([
      ["default/orders@unversioned", "active", true],
      ["default/orders@v1", "draining", false],
    ]);
    expect(keys(list(l.body.deployments)[0])).toEqual(keys(list(fixture("deployment-list").deployments as never)[0]));

    const one = await call(`/deployments/${encodeURIComponent("default/orders@v1")}`);
    expect([one.status, one.body.drained_at]).toEqual([200, "2026-01-15T10:00:00+00:00"]);
    const slashes = await call("/deployments/default/orders@v1");
    expect(slashes.body.name).toBe("default/orders@v1");

    expect((await call("/deployments/default/orders@v7")).body).toEqual({ error: "deployment_not_found" });
    const bad = await call("/deployments/orders");
    expect([bad.status, bad.body.error]).toEqual([
      400,
      'Deployment name must be of the form namespace/task_queue@build_id (use "@unversioned" for the unversioned cohort).',
    ]);
    const other = await call("/deployments/billing/orders@v1");
    expect([other.status, other.body.error]).toEqual([400, "namespace_mismatch"]);

    const rb = await call("/deployments/default/orders@v1/rollback", { body: {} });
    expect(rb.status).toBe(200);
    const resume = await call("/deployments/default/orders@v1/resume", { body: {} });
    expect(resume.status).toBe(409);
    expect(list(resume.body.blockages)[0]).toEqual({
      reason: "incompatible_policy",
      message:
        "Deployment default/orders@v1 is rolled back; promote a different deployment rather than resuming this one.",
      scope: {
        namespace: "default",
        task_queue: "orders",
        build_id: "v1",
        state: "rolled_back",
        required_compatibility: "v1",
      },
      expected_resolution: "Promote the prior healthy deployment, or create a new active deployment for this build id.",
    });
    const again = await call("/deployments/default/orders@v1/rollback", { body: {} });
    expect(list(again.body.blockages)[0]!.message).toBe("Deployment default/orders@v1 is already rolled back.");
    const none = await call("/deployments/default/orders@v8/rollback", { body: {} });
    expect([none.status, list(none.body.blockages)[0]!.message]).toEqual([
      409,
      "No deployment is registered for default/orders@v8; nothing to roll back.",
    ]);
  });
});

test("the rollout intent is durable: a drained and a promoted cohort read the same after a restart on the same file", async () => {
  await register("w-v1", "v1");
  await register("w-v2", "v2");
  await call("/task-queues/orders/build-ids/drain", { body: { build_id: "v1" } });
  await call("/task-queues/orders/build-ids/promote", { body: { build_id: "v2" } });
  const before = await call("/task-queues/orders/build-ids");
  await shutdown();
  await boot();
  const after = await call("/task-queues/orders/build-ids");
  expect(after.body).toEqual(before.body);
  expect(cohort(after.body, "v1").drain_intent).toBe("draining");
  expect(cohort(after.body, "v2").new_start_selected).toBe(true);
  const poll = await worker("/workflow-tasks/poll", { worker_id: "w-v1", task_queue: "orders" });
  expect(poll.status).toBe(409);
});
