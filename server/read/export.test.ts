import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness, JsonTree } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { blob, ScriptedWorker } from "../http/test-support";
import { canonicalJson } from "./canonical-json";

const CONTRACTS = fileURLToPath(new URL("../../../shared/contracts", import.meta.url));
const haveContracts = existsSync(CONTRACTS);
if (!haveContracts) console.warn(`[export.test] ${CONTRACTS} not found: schema validation tests are skipped.`);

function contract(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${CONTRACTS}/${name}`, "utf8")) as Record<string, unknown>;
}

/** An independent json-recursive-ksort-v1 encoder, so the checksum is not checked against itself. */
function referenceCanonical(value: unknown): string {
  const sortDeep = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortDeep);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as Record<string, unknown>)
          .sort()
          .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  let out = "";
  for (const ch of JSON.stringify(sortDeep(value))) {
    const code = ch.charCodeAt(0);
    out += code > 0x7f ? `\\u${code.toString(16).padStart(4, "0")}` : ch;
  }
  return out;
}

describe("history export and debug of a run with a retried then non-retryable activity", () => {
  let h: CpHarness;
  let runId: string;
  let bundle: JsonTree;
  const workflowId = "export-ü-1";

  beforeAll(async () => {
    h = await startCpHarness();
    const w = new ScriptedWorker(h.url, "export-worker");
    await w.register();
    h.engine.startWorkflow({ namespace: "default", workflow_id: workflowId, workflow_type: "orders.process", task_queue: "default", business_key: "ordér" });
    const t1 = await w.mustPollWorkflow();
    runId = t1.run_id;
    await w.completeWorkflow(t1, [
      { type: "schedule_activity", activity_type: "orders.charge", arguments: blob([42]), retry_policy: { max_attempts: 3, backoff_seconds: [5], non_retryable_error_types: ["CardDeclined"] } },
    ]);
    const a1 = await w.mustPollActivity();
    await w.failActivity(a1, { message: "gateway timeout", type: "GatewayTimeout" });
    h.clock.advance(5_000);
    h.engine.sweep();
    const a2 = await w.mustPollActivity();
    expect(a2.attempt_number).toBe(2);
    await w.failActivity(a2, { message: "card declined", type: "CardDeclined" });
    const t2 = await w.mustPollWorkflow();
    await w.completeWorkflow(t2, [{ type: "fail_workflow", message: "charge failed", exception_type: "CardDeclined" }]);
    const r = await cp(h.url, `/workflows/${encodeURIComponent(workflowId)}/runs/${runId}/history/export`);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    bundle = r.body;
  });

  afterAll(async () => {
    await h.close();
  });

  test.skipIf(!haveContracts)("the bundle validates against history-export-bundle.schema.json", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const payloads = contract("history-event-payloads.schema.json");
    ajv.addSchema({ ...payloads, $id: "history-event-payloads.schema.json" });
    const validate = ajv.compile(contract("history-export-bundle.schema.json"));
    const ok = validate(bundle);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test("integrity.checksum is sha256 of the canonical bundle without integrity", () => {
    const { integrity, ...rest } = bundle as Record<string, unknown>;
    const i = integrity as Record<string, unknown>;
    expect(i.canonicalization).toBe("json-recursive-ksort-v1");
    expect(i.checksum_algorithm).toBe("sha256");
    expect(i.signature).toBeNull();
    const reference = referenceCanonical(rest);
    expect(canonicalJson(rest)).toBe(reference);
    expect(reference).toContain("export-\\u00fc-1");
    expect(i.checksum).toBe(createHash("sha256").update(reference).digest("hex"));
  });

  test("activities carry both attempts; failures, timeline and tasks tell the retry story", () => {
    expect(bundle.schema).toBe("durable-workflow.v2.history-export");
    expect(bundle.history_complete).toBe(true);
    expect(bundle.workflow.instance_id).toBe(workflowId);
    expect(bundle.workflow.status).toBe("failed");
    expect(String(bundle.dedupe_key).startsWith(`${runId}:`)).toBe(true);
    const activity = list(bundle.activities)[0];
    expect(activity.status).toBe("failed");
    expect(activity.attempt_count).toBe(2);
    expect(activity.retry_policy.max_attempts).toBe(3);
    expect(list(activity.attempts).map((a) => [a.attempt_number, a.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
    ]);
    expect(list(activity.history_event_types)).toEqual(expect.arrayContaining(["ActivityScheduled", "ActivityStarted", "ActivityRetryScheduled", "ActivityFailed"]));
    const failures = list(bundle.failures);
    expect(failures.map((f) => [f.source_kind, f.propagation_kind, f.failure_category, f.non_retryable])).toEqual([
      ["activity_execution", "activity", "activity", true],
      ["workflow_run", "terminal", "application", false],
    ]);
    expect(failures[0].history_authority).toBe("typed_history");
    const retry = list(bundle.timeline).find((e) => String(e.type) === "ActivityRetryScheduled");
    expect(retry?.summary).toBe("Scheduled retry 2 for orders.charge.");
    expect(retry?.kind).toBe("activity");
    expect(retry?.failure.failure_category).toBeNull();
    expect(retry?.retry_after_attempt).toBe(1);
    const failed = list(bundle.timeline).find((e) => String(e.type) === "ActivityFailed");
    expect(failed?.summary).toBe("Failed orders.charge: card declined.");
    expect(failed?.failure.non_retryable).toBe(true);
    expect(failed?.failure.failure_category).toBe("activity");
    expect(list(bundle.timeline)).toHaveLength(list(bundle.history_events).length);
    expect(list(bundle.timeline).flatMap((e) => Object.keys(e).filter((k) => e[k] === null))).toEqual([]);
    expect(list(bundle.tasks).length).toBeGreaterThanOrEqual(4);
    expect(list(bundle.commands).map((c) => c.type)).toEqual(["start"]);
    expect(bundle.summary.liveness_state).toBe("closed");
    expect(bundle.summary.exception_count).toBe(2);
    expect(bundle.payloads.arguments.available).toBe(false);
    expect(list(bundle.payload_manifest.entries).find((e) => String(e.path) === "activities.0.arguments")?.encoding).toBe("opaque-string");
  });

  test("debug of the closed run: terminal, recent failures newest first", async () => {
    const r = await cp(h.url, `/workflows/${encodeURIComponent(workflowId)}/runs/${runId}/debug`);
    expect(r.status).toBe(200);
    expect(r.body.diagnostic_status).toBe("terminal");
    expect(r.body.control_plane.operation).toBe("debug_workflow");
    expect(r.body.control_plane.diagnostic_status).toBe("terminal");
    expect(r.body.execution.liveness_state).toBe("closed");
    expect(list(r.body.recent_failures).map((f) => f.propagation_kind)).toEqual(["terminal", "activity"]);
    expect(r.body.recent_failures[1].non_retryable).toBe(true);
    expect(list(r.body.pending_workflow_tasks)).toHaveLength(0);
  });
});
