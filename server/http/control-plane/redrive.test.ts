import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runRow, ScriptedWorker, typesOf } from "../test-support";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness, wf } from "./test-support";

/**
 * Redrive as the real server serves it: not at all. durable-workflow/server@11d35b7 routes/api.php
 * has no `…/runs/{runId}/redrive` and workflow@8dc90d64 src/V2 no redrive, so the path is Laravel's
 * unrouted 404 (bootstrap/app.php) and nothing is written (lib/dw/fixtures/redrive.md). Real HTTP,
 * real SQLite file, fake clock.
 */

let h: CpHarness;
let worker: ScriptedWorker;

/** A run whose workflow task failed it, as a non-retryable activity failure left unhandled would. */
async function failedRun(id: string): Promise<string> {
  const started = await cp(h.url, "/workflows", { body: { workflow_id: id, workflow_type: "orders.charge" } });
  expect(started.status).toBe(201);
  const task = await worker.mustPollWorkflow();
  const done = await worker.completeWorkflow(task, [
    { type: "fail_workflow", message: "card declined", exception_class: "ChargeDeclined" },
  ]);
  expect(done.body).toMatchObject({ run_status: "failed" });
  return started.body.run_id as unknown as string;
}

function realShape(name: string): Record<string, unknown> {
  const url = new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

describe("redrive, which the real server does not route", () => {
  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "redrive-worker");
    await worker.register();
  });
  afterEach(async () => h.close());

  test("a failed run's redrive is the unrouted 404 in the real words and header; no continuation, history untouched", async () => {
    const runId = await failedRun("order-42");
    const before = typesOf(h.db, runId);

    const r = await cp(h.url, `/workflows/${wf("order-42")}/runs/${runId}/redrive`, { body: {} });

    expect(r.status).toBe(404);
    const real = realShape("redrive-unrouted");
    expect(Object.keys(r.body).sort()).toEqual(Object.keys(real).sort());
    expect(r.body.reason).toBe(real.reason);
    expect(r.body.message).toBe(`The route api/workflows/order-42/runs/${runId}/redrive could not be found.`);
    // ControlPlaneProtocol::json sets the version header on every control-plane answer, errors included.
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    expect(runRow(h.db, runId).status).toBe("failed");
    expect(typesOf(h.db, runId)).toEqual(before);
    const runs = await cp(h.url, `/workflows/${wf("order-42")}/runs`);
    expect(list(runs.body.runs)).toHaveLength(1);
  });

  test("with a request_id, for an unknown run and an unknown workflow, the answer is the same 404", async () => {
    const runId = await failedRun("order-43");
    for (const path of [
      `/workflows/${wf("order-43")}/runs/${runId}/redrive`,
      `/workflows/${wf("order-43")}/runs/01nosuchrun/redrive`,
      `/workflows/${wf("no-such-order")}/runs/01nosuchrun/redrive`,
    ]) {
      const r = await cp(h.url, path, { body: { request_id: "redrive-1" } });
      expect(r.status, path).toBe(404);
      expect(r.body, path).toEqual({ message: `The route api${path} could not be found.`, reason: "not_found" });
    }
  });

  test("cluster/info names no redrive operation in either control-plane contract", async () => {
    const info = await cp(h.url, "/cluster/info");
    const cpInfo = info.body.control_plane;
    expect(Object.keys(cpInfo?.request_contract?.operations ?? {})).not.toContain("redrive");
    expect(Object.keys(cpInfo?.response_contract?.operations ?? {})).not.toContain("redrive");
    expect(Object.keys(cpInfo?.response_contract?.operations ?? {})).toContain("repair");
  });
});
