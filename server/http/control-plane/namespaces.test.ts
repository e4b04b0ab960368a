import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { HttpResult } from "../test-support";
import { ScriptedWorker, tokenAuth, typesOf } from "../test-support";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness } from "./test-support";

/**
 * Namespace lifecycle, the storage probe and history retention over real HTTP and a real SQLite
 * file with the fake clock, held to durable-workflow/server: NamespaceController.php@11d35b7 (+ the
 * newer `destroy` with NamespaceLifecycleCleanup.php@45db1e9), StorageController.php and
 * SystemController.php / HistoryRetentionEnforcer.php@11d35b7, tests/Feature/NamespaceControllerTest.php
 * and HistoryRetentionTest.php (lib/dw/fixtures/namespace-*.md).
 */

const TOKENS = { DW_ADMIN_TOKEN: "a-tok", DW_OPERATOR_TOKEN: "o-tok", DW_WORKER_TOKEN: "w-tok" };
const DAY = 86_400;

let h: CpHarness;

const admin = { token: "a-tok" };

async function createNs(name: string, body: Record<string, unknown> = {}) {
  return cp(h.url, "/namespaces", { ...admin, body: { name, ...body } });
}

/** The scripted worker in a namespace of its own (X-Namespace on every worker call). */
class NamespacedWorker extends ScriptedWorker {
  constructor(
    url: string,
    workerId: string,
    private readonly namespace: string,
  ) {
    super(url, workerId, "default", "w-tok");
  }
  override post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    return super.post(path, body, { "x-namespace": this.namespace, ...headers });
  }
}

/** Starts a run in `namespace` and completes it through a worker registered there. */
async function completedRun(namespace: string, id: string): Promise<string> {
  const worker = new NamespacedWorker(h.url, `worker-${namespace}-${id}`, namespace);
  await worker.register();
  const started = await cp(h.url, "/workflows", {
    ...admin,
    namespace,
    body: { workflow_id: id, workflow_type: "orders.ship" },
  });
  expect(started.status).toBe(201);
  const task = await worker.mustPollWorkflow();
  const done = await worker.completeWorkflow(task, [{ type: "complete_workflow" }]);
  expect(done.body).toMatchObject({ run_status: "completed" });
  return started.body.run_id as unknown as string;
}

async function openRun(namespace: string, id: string): Promise<string> {
  const started = await cp(h.url, "/workflows", {
    ...admin,
    namespace,
    body: { workflow_id: id, workflow_type: "orders.ship" },
  });
  expect(started.status).toBe(201);
  return started.body.run_id as unknown as string;
}

describe("namespaces: create, update, external storage, delete", () => {
  beforeEach(async () => {
    h = await startCpHarness({ auth: tokenAuth(TOKENS) });
  });
  afterEach(async () => h.close());

  test("create lower-cases the name, defaults retention to 30 days and answers 201 without updated_at", async () => {
    const r = await createNs("Billing", { description: "Invoices" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      name: "billing",
      description: "Invoices",
      retention_days: 30,
      status: "active",
      external_payload_storage: null,
      created_at: "2026-01-15T10:00:00+00:00",
    });
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    const listed = await cp(h.url, "/namespaces", admin);
    expect(list(listed.body.namespaces).map((n) => n.name)).toEqual(["billing", "default"]);
    const described = await cp(h.url, "/namespaces/BILLING", { token: "o-tok" });
    expect(described.body.description).toBe("Invoices");
  });

  test("a duplicate is 409 namespace_already_exists; bad input is 422 in Laravel's words", async () => {
    expect((await createNs("billing")).status).toBe(201);
    const dup = await createNs("BILLING");
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      message: "Namespace already exists.",
      reason: "namespace_already_exists",
      namespace: "billing",
    });

    const badName = await createNs("no spaces");
    expect(badName.status).toBe(422);
    expect(badName.body.errors?.name).toEqual(["The name field format is invalid."]);
    const tooLong = await createNs("x", { retention_days: 366 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors?.retention_days).toEqual(["The retention days field must not be greater than 365."]);
    const zero = await createNs("y", { retention_days: 0 });
    expect(zero.body.errors?.retention_days).toEqual(["The retention days field must be at least 1."]);
    const missing = await cp(h.url, "/namespaces", { ...admin, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors?.name).toEqual(["The name field is required."]);
    // Nothing half-written.
    expect((await cp(h.url, "/namespaces/x", admin)).status).toBe(404);
  });

  test("writes are admin only: operator and worker get 403 before validation; reads are operator", async () => {
    for (const token of ["o-tok", "w-tok"]) {
      expect((await cp(h.url, "/namespaces", { token, body: { name: "ops" } })).status).toBe(403);
      expect((await cp(h.url, "/namespaces/default", { token, method: "PUT", body: {} })).status).toBe(403);
      expect((await cp(h.url, "/namespaces/default", { token, method: "DELETE" })).status).toBe(403);
      expect(
        (await cp(h.url, "/namespaces/default/external-storage", { token, method: "PUT", body: { driver: "local" } }))
          .status,
      ).toBe(403);
      expect((await cp(h.url, "/system/retention", { token })).status).toBe(403);
      expect((await cp(h.url, "/system/retention/pass", { token, body: {} })).status).toBe(403);
      expect((await cp(h.url, "/storage/test", { token, body: {} })).status).toBe(403);
    }
    expect((await cp(h.url, "/namespaces", { token: "o-tok" })).status).toBe(200);
    expect((await cp(h.url, "/namespaces/ops", admin)).status).toBe(404);
  });

  test("update changes only the fields given, answers without created_at; unknown is 404 in the controller's words", async () => {
    await createNs("billing", { description: "Invoices", retention_days: 14 });
    h.clock.advance(60_000);
    const r = await cp(h.url, "/namespaces/billing", { ...admin, method: "PUT", body: { retention_days: 7 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: "billing",
      description: "Invoices",
      retention_days: 7,
      status: "active",
      external_payload_storage: null,
      updated_at: "2026-01-15T10:01:00+00:00",
    });
    const desc = await cp(h.url, "/namespaces/billing", { ...admin, method: "PUT", body: { description: "Bills" } });
    expect(desc.body).toMatchObject({ description: "Bills", retention_days: 7 });
    const bad = await cp(h.url, "/namespaces/billing", { ...admin, method: "PUT", body: { retention_days: 400 } });
    expect(bad.status).toBe(422);
    const ghost = await cp(h.url, "/namespaces/Ghost", { ...admin, method: "PUT", body: { retention_days: 3 } });
    expect(ghost.status).toBe(404);
    expect(ghost.body).toEqual({
      message: "Namespace [ghost] not found.",
      reason: "namespace_not_found",
      namespace: "ghost",
    });
  });

  test("delete removes the namespace with its runs and workers, counts them, and leaves other namespaces alone", async () => {
    await createNs("billing");
    await completedRun("billing", "invoice-1");
    await openRun("billing", "invoice-2");
    const keep = await completedRun("default", "order-1");

    const r = await cp(h.url, "/namespaces/billing", { ...admin, method: "DELETE" });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe("billing");
    expect(r.body.status).toBe("deleted");
    expect(r.body.deleted).toMatchObject({ workflow_runs: 2, workflow_instances: 2, workflow_worker_registrations: 1 });
    expect(Number(r.body.deleted?.workflow_history_events)).toBeGreaterThan(0);
    for (const n of Object.values(r.body.deleted ?? {})) expect(Number(n)).toBeGreaterThan(0);

    expect((await cp(h.url, "/namespaces/billing", admin)).status).toBe(404);
    const runs = await cp(h.url, "/workflows", { ...admin, namespace: "billing" });
    expect(runs.status).toBe(404);
    expect(runs.body.reason).toBe("namespace_not_found");
    expect(
      (h.db.prepare("SELECT COUNT(*) AS n FROM workflow_runs WHERE namespace = 'billing'").get() as { n: number }).n,
    ).toBe(0);
    expect(typesOf(h.db, keep).length).toBeGreaterThan(0);

    // Recreated, it starts empty: no runs, counters from zero.
    await createNs("billing");
    const fresh = await cp(h.url, "/workflows", { ...admin, namespace: "billing" });
    expect(fresh.status).toBe(200);
    expect(list(fresh.body.workflows)).toHaveLength(0);
    expect((await cp(h.url, "/namespaces/billing", { ...admin, method: "DELETE" })).body.deleted).toEqual({});
    expect((await cp(h.url, "/namespaces/billing", { ...admin, method: "DELETE" })).status).toBe(404);
  });

  test("external storage: the stored policy (defaults, empty config dropped), and the probe's refusals", async () => {
    const notConfigured = await cp(h.url, "/storage/test", {
      ...admin,
      body: { small_payload_bytes: 16, large_payload_bytes: 1024 },
    });
    expect(notConfigured.status).toBe(422);
    expect(notConfigured.body).toEqual({
      status: "failed",
      reason: "external_storage_not_configured",
      message: "External payload storage is not configured for this namespace.",
      namespace: "default",
      driver: null,
    });

    const s3 = await cp(h.url, "/namespaces/default/external-storage", {
      ...admin,
      method: "PUT",
      body: { driver: "s3", threshold_bytes: 2048, config: { bucket: "payloads", region: "", prefix: null } },
    });
    expect(s3.status).toBe(200);
    expect(s3.body.external_payload_storage).toEqual({
      driver: "s3",
      enabled: true,
      threshold_bytes: 2048,
      config: { bucket: "payloads" },
    });
    expect((await cp(h.url, "/namespaces/default", admin)).body.external_payload_storage?.driver).toBe("s3");
    const unavailable = await cp(h.url, "/storage/test", {
      ...admin,
      body: { small_payload_bytes: 16, large_payload_bytes: 1024 },
    });
    expect(unavailable.status).toBe(422);
    expect(unavailable.body.reason).toBe("storage_driver_unavailable");
    const other = await cp(h.url, "/storage/test", {
      ...admin,
      body: { driver: "gcs", small_payload_bytes: 16, large_payload_bytes: 1024 },
    });
    expect(other.body).toMatchObject({ reason: "storage_driver_unavailable", supported_diagnostic_drivers: ["local"] });

    await cp(h.url, "/namespaces/default/external-storage", {
      ...admin,
      method: "PUT",
      body: { driver: "local", enabled: false },
    });
    const disabled = await cp(h.url, "/storage/test", {
      ...admin,
      body: { small_payload_bytes: 16, large_payload_bytes: 1024 },
    });
    expect(disabled.body).toMatchObject({ reason: "external_storage_disabled", driver: "local" });

    const badDriver = await cp(h.url, "/namespaces/default/external-storage", {
      ...admin,
      method: "PUT",
      body: { driver: "ftp" },
    });
    expect(badDriver.status).toBe(422);
    expect(badDriver.body.errors?.driver).toEqual(["The selected driver is invalid."]);
    const noSizes = await cp(h.url, "/storage/test", { ...admin, body: {} });
    expect(noSizes.status).toBe(422);
  });

  test("the local probe writes, reads back and deletes both payloads under the configured root", async () => {
    const root = mkdtempSync(join(tmpdir(), "bw-ext-"));
    try {
      await cp(h.url, "/namespaces/default/external-storage", {
        ...admin,
        method: "PUT",
        body: { driver: "local", config: { uri: `file://${root}` } },
      });
      const r = await cp(h.url, "/storage/test", {
        ...admin,
        body: { small_payload_bytes: 3, large_payload_bytes: 5000 },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: "passed", namespace: "default", driver: "local" });
      expect(r.body.small_payload).toMatchObject({
        status: "passed",
        bytes: 3,
        sha256: createHash("sha256").update("sss").digest("hex"),
      });
      expect(String(r.body.large_payload?.reference_uri)).toContain(`file://${root}/storage-test-large/`);
      expect(existsSync(join(root, "storage-test-small"))).toBe(true);
      // Round trip, not left behind: the payload files are deleted again.
      const leftovers = readdirSync(join(root, "storage-test-large"), { recursive: true }).filter((f) =>
        String(f).match(/[0-9a-f]{64}$/),
      );
      expect(leftovers).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

function realShape(name: string): Record<string, unknown> {
  const url = new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

const keys = (v: unknown) => Object.keys(v as object).sort();

describe("the twin's answers have the real shapes (lib/dw/fixtures/namespaces-retention.md)", () => {
  beforeEach(async () => {
    h = await startCpHarness({ auth: tokenAuth(TOKENS) });
  });
  afterEach(async () => h.close());

  test("every namespace, probe and retention answer carries the fixture's keys", async () => {
    const pairs: [string, Promise<{ status: number; body: unknown }>][] = [];
    const created = await createNs("billing", { description: "Invoices", retention_days: 14 });
    pairs.push(["namespace-created", Promise.resolve(created)]);
    pairs.push(["namespace-error-409", createNs("billing")]);
    pairs.push([
      "namespace-updated",
      cp(h.url, "/namespaces/billing", { ...admin, method: "PUT", body: { retention_days: 7 } }),
    ]);
    pairs.push([
      "namespace-external-storage",
      cp(h.url, "/namespaces/billing/external-storage", {
        ...admin,
        method: "PUT",
        body: { driver: "s3", threshold_bytes: 2048, config: { bucket: "payloads", region: "eu-west-1" } },
      }),
    ]);
    pairs.push(["namespace-described", cp(h.url, "/namespaces/billing", admin)]);
    pairs.push(["namespace-error-404", cp(h.url, "/namespaces/ghost", { ...admin, method: "PUT", body: {} })]);
    pairs.push([
      "storage-test-not-configured",
      cp(h.url, "/storage/test", { ...admin, body: { small_payload_bytes: 1, large_payload_bytes: 2 } }),
    ]);
    pairs.push(["retention-status", cp(h.url, "/system/retention", admin)]);
    for (const [name, answer] of pairs) expect(keys((await answer).body), name).toEqual(keys(realShape(name)));

    await cp(h.url, "/namespaces/default/external-storage", { ...admin, method: "PUT", body: { driver: "local" } });
    const probe = await cp(h.url, "/storage/test", {
      ...admin,
      body: { small_payload_bytes: 32, large_payload_bytes: 64 },
    });
    expect(keys(probe.body)).toEqual(keys(realShape("storage-test-passed")));
    expect(keys(probe.body.small_payload)).toEqual(keys(realShape("storage-test-passed").small_payload));

    const runId = await completedRun("billing", "shape-1");
    const open = await openRun("billing", "shape-2");
    const pass = await cp(h.url, "/system/retention/pass", {
      ...admin,
      namespace: "billing",
      body: { run_ids: [runId, open] },
    });
    const real = realShape("retention-pass") as { results: Record<string, unknown>[] };
    expect(keys(pass.body)).toEqual(keys(real));
    const [pruned, skipped] = list(pass.body.results);
    expect(keys(pruned)).toEqual(keys(real.results[0]));
    expect(keys(pruned?.deleted)).toEqual(keys(real.results[0]?.deleted));
    expect(keys(skipped)).toEqual(keys(real.results[1]));

    const deleted = await cp(h.url, "/namespaces/billing", { ...admin, method: "DELETE" });
    expect(keys(deleted.body)).toEqual(keys(realShape("namespace-deleted")));
  });
});

describe("history retention: status and pass on the injectable clock", () => {
  beforeEach(async () => {
    h = await startCpHarness({ auth: tokenAuth(TOKENS) });
  });
  afterEach(async () => h.close());

  test("nothing expired: empty status, an empty pass", async () => {
    const s = await cp(h.url, "/system/retention", admin);
    expect(s.status).toBe(200);
    expect(s.body).toEqual({
      namespace: "default",
      retention_days: 30,
      cutoff: "2025-12-16T10:00:00+00:00",
      expired_run_count: 0,
      expired_run_ids: [],
      scan_limit: 100,
      scan_pressure: false,
    });
    const p = await cp(h.url, "/system/retention/pass", { ...admin, body: {} });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ processed: 0, pruned: 0, skipped: 0, failed: 0, results: [] });
  });

  test("a run closed longer ago than the retention is listed, then pruned: history and summary gone, run row kept", async () => {
    const runId = await completedRun("default", "order-old");
    const open = await openRun("default", "order-open");
    h.clock.advance(29 * DAY * 1000);
    expect((await cp(h.url, "/system/retention", admin)).body.expired_run_count).toBe(0);
    h.clock.advance(2 * DAY * 1000);

    const s = await cp(h.url, "/system/retention", admin);
    expect(s.body).toMatchObject({ expired_run_count: 1, expired_run_ids: [runId], scan_pressure: false });
    expect(typesOf(h.db, runId).length).toBeGreaterThan(0);

    const p = await cp(h.url, "/system/retention/pass", { ...admin, body: {} });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ processed: 1, pruned: 1, skipped: 0, failed: 0 });
    const result = list(p.body.results)[0];
    expect(result).toMatchObject({ run_id: runId, outcome: "pruned", external_payloads_deleted: 0 });
    expect(Number(result?.history_events_deleted)).toBe(Number(result?.deleted?.history_events_deleted));
    expect(Number(result?.history_events_deleted)).toBeGreaterThan(0);
    expect(result?.deleted).toMatchObject({ run_summary_deleted: 1, run_deleted: 0 });

    expect(typesOf(h.db, runId)).toEqual([]);
    expect(h.db.prepare("SELECT id FROM workflow_run_summaries WHERE id = ?").get(runId)).toBeUndefined();
    expect(h.db.prepare("SELECT id FROM workflow_runs WHERE id = ?").get(runId)).toBeDefined();
    const listed = await cp(h.url, "/workflows", admin);
    expect(list(listed.body.workflows).map((w) => w.workflow_id)).toEqual(["order-open"]);
    expect(typesOf(h.db, open).length).toBeGreaterThan(0);
    expect((await cp(h.url, "/system/retention", admin)).body.expired_run_count).toBe(0);
  });

  test("the namespace's own retention days decide; namespaces are scoped; named runs skip with the engine's reasons", async () => {
    await createNs("short", { retention_days: 7 });
    const shortRun = await completedRun("short", "s-1");
    const defaultRun = await completedRun("default", "d-1");
    const open = await openRun("short", "s-open");
    h.clock.advance(10 * DAY * 1000);

    const short = await cp(h.url, "/system/retention", { ...admin, namespace: "short" });
    expect(short.body).toMatchObject({ namespace: "short", retention_days: 7, expired_run_ids: [shortRun] });
    expect((await cp(h.url, "/system/retention", admin)).body.expired_run_count).toBe(0);

    const named = await cp(h.url, "/system/retention/pass", {
      ...admin,
      namespace: "short",
      body: { run_ids: [defaultRun, open, " nope "] },
    });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ processed: 3, pruned: 0, skipped: 3, failed: 0 });
    expect(list(named.body.results).map((r) => [r.run_id, r.reason])).toEqual([
      [defaultRun, "run_not_found"],
      [open, "run_not_terminal"],
      ["nope", "run_not_found"],
    ]);
    expect(typesOf(h.db, defaultRun).length).toBeGreaterThan(0);

    // Shortening a namespace's retention makes more runs expire at once.
    await cp(h.url, "/namespaces/default", { ...admin, method: "PUT", body: { retention_days: 5 } });
    expect((await cp(h.url, "/system/retention", admin)).body.expired_run_ids).toEqual([defaultRun]);
  });

  test("limit bounds the scan: scan_pressure when it is full; the pass takes the oldest closed first", async () => {
    const first = await completedRun("default", "a");
    h.clock.advance(1000);
    const second = await completedRun("default", "b");
    h.clock.advance(40 * DAY * 1000);
    const s = await cp(h.url, "/system/retention?limit=1", admin);
    expect(s.body).toMatchObject({
      expired_run_count: 1,
      expired_run_ids: [first],
      scan_limit: 1,
      scan_pressure: true,
    });
    const big = await cp(h.url, "/system/retention?limit=1000", admin);
    expect(big.body).toMatchObject({ scan_limit: 100, expired_run_count: 2 });
    expect((await cp(h.url, "/system/retention?limit=0", admin)).status).toBe(422);

    const p = await cp(h.url, "/system/retention/pass", { ...admin, body: { limit: 1 } });
    expect(list(p.body.results).map((r) => r.run_id)).toEqual([first]);
    expect((await cp(h.url, "/system/retention", admin)).body.expired_run_ids).toEqual([second]);
  });
});
