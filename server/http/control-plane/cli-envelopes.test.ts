import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ScriptedWorker } from "../test-support";
import { blob, startWorkerHarness } from "../test-support";
import type { CpHarness, CpResponse } from "./test-support";
import { cp, list, startCpHarness } from "./test-support";

const CONTRACTS = fileURLToPath(new URL("../../../contracts", import.meta.url));

describe("activity timeouts and CLI output envelopes", () => {
  let h: CpHarness;
  let w: ScriptedWorker;
  let runId: string;
  let activityId: string;

  beforeAll(async () => {
    ({ h, worker: w } = await startWorkerHarness({ workerId: "cli-worker", start: startCpHarness }));
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cli-1",
      workflow_type: "orders.process",
      task_queue: "default",
    });
    const t = await w.mustPollWorkflow();
    runId = t.run_id;
    await w.completeWorkflow(t, [
      {
        type: "schedule_activity",
        activity_type: "slow",
        start_to_close_timeout: 10,
        retry_policy: { max_attempts: 1 },
      },
    ]);
    activityId = (await w.mustPollActivity()).activity_execution_id;
  });

  afterAll(async () => {
    await h.close();
  });

  test("activity-timeouts lists expired deadlines; the pass enforces them through the engine", async () => {
    let status = await cp(h.url, "/system/activity-timeouts");
    expect(status.body).toEqual({ expired_count: 0, expired_execution_ids: [], scan_limit: 100, scan_pressure: false });
    h.clock.advance(11_000);
    status = await cp(h.url, "/system/activity-timeouts?limit=500");
    expect(status.body).toEqual({
      expired_count: 1,
      expired_execution_ids: [activityId],
      scan_limit: 100,
      scan_pressure: false,
    });
    const pass = await cp(h.url, "/system/activity-timeouts/pass", { body: {} });
    expect(pass.status).toBe(200);
    expect(pass.body).toEqual({
      processed: 1,
      enforced: 1,
      skipped: 0,
      failed: 0,
      results: [{ execution_id: activityId, outcome: "enforced", has_retry: false }],
    });
    const history = await cp(h.url, `/workflows/cli-1/runs/${runId}/history`);
    expect(list(history.body.events).map((e) => e.event_type)).toContain("ActivityTimedOut");
    expect((await cp(h.url, "/system/activity-timeouts")).body.expired_count).toBe(0);
    const t = await w.mustPollWorkflow();
    await w.completeWorkflow(t, [{ type: "complete_workflow", result: blob("late") }]);
  });

  test("responses validate against the CLI JSON envelopes (with the namespace the CLI adds)", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const f of readdirSync(`${CONTRACTS}/cli-json-envelopes`)) {
      const schema = JSON.parse(readFileSync(`${CONTRACTS}/cli-json-envelopes/${f}`, "utf8")) as { $id?: string };
      ajv.addSchema(schema, schema.$id ? undefined : f);
    }
    // The CLI prints server bodies with the namespace it targeted added to the envelope and to each record.
    const cliShape = (body: Record<string, unknown>, namespace: string | null): Record<string, unknown> => {
      if (Array.isArray(body.namespaces))
        return {
          ...body,
          namespaces: body.namespaces.map((row: Record<string, unknown>) => ({ namespace: row.name, ...row })),
        };
      if (namespace === null) return body;
      const out: Record<string, unknown> = { namespace, ...body };
      for (const key of ["workflows", "runs", "events", "workers", "task_queues"]) {
        const rows = out[key];
        if (Array.isArray(rows)) out[key] = rows.map((row: Record<string, unknown>) => ({ namespace, ...row }));
      }
      return out;
    };
    const validate = (name: string, r: CpResponse, namespace: string | null = "default"): void => {
      expect(r.status).toBeLessThan(300);
      const schema = JSON.parse(readFileSync(`${CONTRACTS}/cli-json-envelopes/${name}.schema.json`, "utf8")) as {
        $id: string;
      };
      const v = ajv.getSchema(schema.$id);
      if (!v) throw new Error(`schema ${name} not loaded`);
      // The schemas are synchronous, so the result is a boolean (a Promise here would fail the equality).
      const valid = v(cliShape(r.body as Record<string, unknown>, namespace));
      expect({ name, valid, errors: v.errors ?? [] }).toEqual({ name, valid: true, errors: [] });
    };
    validate("workflow-list", await cp(h.url, "/workflows"));
    validate("workflow-run", await cp(h.url, "/workflows/cli-1"));
    validate("workflow-runs", await cp(h.url, "/workflows/cli-1/runs"));
    validate("workflow-history", await cp(h.url, `/workflows/cli-1/runs/${runId}/history`));
    validate("workflow-debug", await cp(h.url, "/workflows/cli-1/debug"));
    validate("workflow-history-export", await cp(h.url, `/workflows/cli-1/runs/${runId}/history/export`));
    validate(
      "workflow-start",
      await cp(h.url, "/workflows", { body: { workflow_id: "cli-2", workflow_type: "orders.process" } }),
    );
    validate("workflow-signal", await cp(h.url, "/workflows/cli-2/signal/go", { body: {} }));
    validate("workflow-operation", await cp(h.url, "/workflows/cli-2/repair", { body: {} }));
    validate("workflow-operation", await cp(h.url, "/workflows/cli-2/terminate", { body: { reason: "done" } }));
    validate("repair-status", await cp(h.url, "/system/repair"));
    validate("repair-pass", await cp(h.url, "/system/repair/pass", { body: {} }));
    validate("activity-timeout-status", await cp(h.url, "/system/activity-timeouts"));
    validate("activity-timeout-pass", await cp(h.url, "/system/activity-timeouts/pass", { body: {} }));
    validate("operator-metrics", await cp(h.url, "/system/operator-metrics"));
    validate("worker-list", await cp(h.url, "/workers"));
    validate("worker", await cp(h.url, "/workers/cli-worker"));
    validate("task-queue-list", await cp(h.url, "/task-queues"));
    validate("task-queue", await cp(h.url, "/task-queues/default"));
    validate("namespace-list", await cp(h.url, "/namespaces"), null);
    validate("namespace", await cp(h.url, "/namespaces/default"));
    validate("server-health", await cp(h.url, "/health", { version: null }), null);
    validate("server-info", await cp(h.url, "/cluster/info", { version: null }), null);
  });
});
