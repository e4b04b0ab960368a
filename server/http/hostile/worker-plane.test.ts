import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness } from "../control-plane/test-support";
import { startCpHarness } from "../control-plane/test-support";
import type { ActivityTaskWire, WorkflowTaskWire } from "../test-support";
import { blob, ScriptedWorker } from "../test-support";
import { fillPath, hostileJson, hostileString, WORKER_ENDPOINTS } from "./endpoints";
import { expectAnswered, expectWorkerError, propertyParams, rawRequest, WORKER_HEADERS } from "./raw-client";

/**
 * Property-based hostile input against every worker-plane route (server-api.md §5): hostile task
 * ids, arbitrary and half-valid bodies aimed at real leased tasks, wrong protocol versions and
 * unknown namespaces all answer 2xx or the worker envelope's documented 4xx — never 5xx or a hang.
 */
let h: CpHarness;
let wfTask: WorkflowTaskWire;
let actTask: ActivityTaskWire;

beforeAll(async () => {
  h = await startCpHarness();
  const w = new ScriptedWorker(h.url, "w1", "q1");
  await w.register();
  h.engine.startWorkflow({ namespace: "default", workflow_id: "hostile-act", workflow_type: "t", task_queue: "q1" });
  const first = await w.mustPollWorkflow();
  await w.completeWorkflow(first, [
    {
      type: "schedule_activity",
      activity_type: "charge",
      arguments: blob(["x"]),
      retry_policy: { max_attempts: 1000 },
    },
  ]);
  actTask = await w.mustPollActivity();
  h.engine.startWorkflow({ namespace: "default", workflow_id: "hostile-wf", workflow_type: "t", task_queue: "q1" });
  wfTask = await w.mustPollWorkflow();
});
afterAll(async () => {
  await h.close();
});

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return rawRequest(h.url, { method: "POST", path, headers: { ...WORKER_HEADERS, ...headers }, body });
}

function expectDocumented(res: Awaited<ReturnType<typeof rawRequest>>, context: string): Record<string, unknown> {
  if (res.status >= 200 && res.status < 300) {
    const body = expectAnswered(res, context);
    expect(body.protocol_version, context).toBe("1.20");
    return body;
  }
  return expectWorkerError(res, context);
}

const COMMAND_TYPES = [
  "complete_workflow",
  "fail_workflow",
  "continue_as_new",
  "schedule_activity",
  "start_timer",
  "start_child_workflow",
  "open_signal_wait",
  "record_side_effect",
  "nope",
];
const command = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...COMMAND_TYPES), hostileString),
    activity_type: fc.oneof(hostileString, hostileJson),
    arguments: fc.oneof(fc.constant(blob(1)), hostileJson),
    result: fc.oneof(fc.constant(blob("r")), hostileJson),
    message: fc.oneof(hostileString, hostileJson),
    delay_seconds: fc.oneof(fc.integer(), fc.double(), hostileJson),
    start_to_close_timeout: fc.oneof(fc.integer(), hostileJson),
    workflow_type: fc.oneof(hostileString, hostileJson),
    workflow_id: fc.oneof(hostileString, hostileJson),
    signal_name: fc.oneof(hostileString, hostileJson),
    non_retryable: fc.oneof(fc.boolean(), hostileJson),
    retry_policy: fc.oneof(
      fc.record({ max_attempts: fc.integer(), backoff_seconds: fc.array(fc.integer()) }),
      hostileJson,
    ),
  },
  { requiredKeys: ["type"] },
);

describe("hostile worker-plane input", () => {
  test("task ids with '/', '%', '..', NUL and unicode, URL-encoded, on every task route", async () => {
    const taskRoutes = WORKER_ENDPOINTS.filter((e) => e.path.includes(":id"));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...taskRoutes), hostileString, async (ep, raw) => {
        const path = fillPath(ep.path, { id: encodeURIComponent(raw) });
        const body = {
          lease_owner: "w1",
          workflow_task_attempt: 1,
          activity_attempt_id: actTask.activity_attempt_id,
          commands: [{ type: "complete_workflow" }],
          failure: { message: "m" },
        };
        const res = await post(path, JSON.stringify(body));
        const out = expectDocumented(res, `POST ${path}`);
        expect(res.status, `POST ${path}`).toBeGreaterThanOrEqual(400);
        if (out.reason === "task_not_found") expect(out.task_id, path).toBe(raw);
      }),
      propertyParams(80),
    );
  });

  test("arbitrary and half-valid bodies aimed at real leased tasks, on every route", async () => {
    const good = (): Record<string, fc.Arbitrary<unknown>> => ({
      worker_id: fc.oneof(fc.constant("w1"), hostileString, hostileJson),
      task_queue: fc.oneof(fc.constant("q1"), hostileString, hostileJson),
      runtime: fc.oneof(fc.constantFrom("typescript", "php", "cobol"), hostileJson),
      lease_owner: fc.oneof(fc.constant("w1"), hostileString, hostileJson),
      workflow_task_attempt: fc.oneof(
        fc.constant(wfTask.workflow_task_attempt),
        fc.integer(),
        fc.double(),
        hostileJson,
      ),
      activity_attempt_id: fc.oneof(fc.constant(actTask.activity_attempt_id), hostileString, hostileJson),
      commands: fc.oneof(fc.array(command, { maxLength: 3 }), hostileJson),
      failure: fc.oneof(
        fc.record(
          {
            message: fc.oneof(hostileString, hostileJson),
            type: hostileJson,
            non_retryable: hostileJson,
            details: hostileJson,
            kind: hostileJson,
          },
          { requiredKeys: [] },
        ),
        hostileJson,
      ),
      result: fc.oneof(fc.constant(blob("ok")), hostileJson),
      next_history_page_token: fc.oneof(hostileString, hostileJson),
      history_page_size: fc.oneof(fc.integer(), hostileJson),
      poll_request_id: fc.oneof(hostileString, hostileJson),
      details: hostileJson,
      current: fc.oneof(fc.double(), hostileJson),
      message: fc.oneof(hostileString, hostileJson),
      supported_workflow_types: fc.oneof(fc.array(hostileString), hostileJson),
      max_concurrent_workflow_tasks: fc.oneof(fc.integer(), hostileJson),
    });
    const body = fc.oneof(fc.record(good(), { requiredKeys: [] }), hostileJson);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WORKER_ENDPOINTS), body, async (ep, value) => {
        const id = ep.path.includes("activity-tasks") ? actTask.task_id : wfTask.task_id;
        const path = fillPath(ep.path, { id });
        const res = await post(path, JSON.stringify(value));
        expectDocumented(res, `POST ${path} ${JSON.stringify(value).slice(0, 300)}`);
      }),
      propertyParams(150),
    );
  });

  test("regression: durations whose deadline has no ISO-8601 form are 422, not a 500 on the next read", async () => {
    const w = new ScriptedWorker(h.url, "w-durations", "q-durations");
    await w.register();
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "hostile-durations",
      workflow_type: "t",
      task_queue: "q-durations",
    });
    const task = await w.mustPollWorkflow();
    const huge = Number.MAX_SAFE_INTEGER;
    const commands: Record<string, unknown>[] = [
      { type: "start_timer", delay_seconds: huge },
      { type: "schedule_activity", activity_type: "a", start_to_close_timeout: huge },
      { type: "schedule_activity", activity_type: "a", retry_policy: { max_attempts: 2, backoff_seconds: [huge] } },
      { type: "open_signal_wait", signal_name: "s", timeout_seconds: huge },
      { type: "start_child_workflow", workflow_type: "c", run_timeout_seconds: huge },
    ];
    for (const command of commands) {
      const res = await post(
        `/api/worker/workflow-tasks/${task.task_id}/complete`,
        JSON.stringify({
          lease_owner: task.lease_owner,
          workflow_task_attempt: task.workflow_task_attempt,
          commands: [command],
        }),
      );
      const body = expectWorkerError(res, JSON.stringify(command));
      expect([res.status, body.reason], JSON.stringify(command)).toEqual([422, "validation_failed"]);
    }
    // The task is still usable, and a century-scale timer is accepted and rendered.
    const ok = await w.completeWorkflow(task, [{ type: "start_timer", delay_seconds: 3_000_000_000 }]);
    expect(ok.status).toBe(200);
    const debug = await rawRequest(h.url, {
      path: "/api/workflows/hostile-durations/debug",
      headers: { accept: "application/json", "x-durable-workflow-control-plane-version": "2" },
    });
    expect(debug.status).toBe(200);
  });

  test("protocol version: anything but 1.0–1.20 is the documented 400, message under `error`", async () => {
    const value = fc.oneof(
      fc.string({ unit: "grapheme-ascii", maxLength: 10 }),
      fc.constantFrom("", " ", "1", "1.0", "1.1", "1.20", "1.21", "1.190", "2.0", "v1.19", "1.19.0", "01.20"),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WORKER_ENDPOINTS), value, async (ep, v) => {
        const path = fillPath(ep.path, { id: wfTask.task_id });
        const res = await post(path, "{}", { "x-durable-workflow-protocol-version": v });
        const trimmed = v.trim();
        // The real rule: same major, minor ≤ 20 (leading zeros parse as numbers there too).
        if (/^\d+\.\d+$/.test(trimmed) && Number(trimmed.split(".")[0]) === 1 && Number(trimmed.split(".")[1]) <= 20)
          return;
        const body = expectWorkerError(res, `${path} version ${JSON.stringify(v)}`);
        expect(res.status).toBe(400);
        expect(body.reason).toBe(trimmed === "" ? "missing_protocol_version" : "unsupported_protocol_version");
        expect(body.requested_version).toBe(trimmed === "" ? null : trimmed);
        expect(typeof body.error).toBe("string");
      }),
      propertyParams(60),
    );
  });

  test("unknown namespaces are 404 namespace_not_found in the worker envelope", async () => {
    const header = fc
      .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 })
      .filter((v) => v.trim() !== "" && v.trim().toLowerCase() !== "default");
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WORKER_ENDPOINTS), header, async (ep, ns) => {
        const res = await post(fillPath(ep.path, { id: wfTask.task_id }), "{}", { "x-namespace": ns });
        const body = expectWorkerError(res, `${ep.path} ns ${JSON.stringify(ns)}`);
        expect([res.status, body.reason, body.namespace]).toEqual([
          404,
          "namespace_not_found",
          ns.trim().toLowerCase(),
        ]);
      }),
      propertyParams(40),
    );
  });
});
