import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness } from "../control-plane/test-support";
import { startCpHarness } from "../control-plane/test-support";
import { blob, ScriptedWorker } from "../test-support";
import { encodePayload } from "../../codec/codec";
import { hostileString } from "./endpoints";
import { CP_HEADERS, expectAnswered, expectCpError, propertyParams, rawRequest } from "./raw-client";
import type { RawResponse } from "./raw-client";

/**
 * Identifiers and texts survive the whole HTTP surface unchanged: workflow ids with `/`, `%`,
 * `..`, spaces and unicode (one URL-encoded segment each), and HTML/script in payloads and
 * exception messages, which come back as the same JSON strings — never escaped, stripped or
 * executed server-side.
 */
let h: CpHarness;
beforeAll(async () => {
  h = await startCpHarness();
});
afterAll(async () => {
  await h.close();
});

/** One path segment: percent-encodes everything, dots too, so no client or proxy can read `..` as a parent step. */
function seg(id: string): string {
  return encodeURIComponent(id).replace(/\./g, "%2E");
}

const get = (path: string): Promise<RawResponse> => rawRequest(h.url, { path: `/api${path}`, headers: CP_HEADERS });
const post = (path: string, body: unknown): Promise<RawResponse> =>
  rawRequest(h.url, {
    method: "POST",
    path: `/api${path}`,
    headers: { ...CP_HEADERS, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

function ok(res: RawResponse, context: string, status = 200): Record<string, unknown> {
  expect(res.status, `${context} → ${res.text.slice(0, 300)}`).toBe(status);
  return expectAnswered(res, context);
}

function strings(tree: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof tree === "string") out.add(tree);
  else if (Array.isArray(tree)) for (const v of tree) strings(v, out);
  else if (tree !== null && typeof tree === "object")
    for (const [k, v] of Object.entries(tree)) strings(v, strings(k, out));
  return out;
}

/** describe → runs → debug → history → export → signal → cancel, every call naming the workflow by `seg(id)`. */
async function roundTrip(id: string, runId: string): Promise<void> {
  const s = seg(id);
  const d = ok(await get(`/workflows/${s}`), `describe ${JSON.stringify(id)}`);
  expect(d.workflow_id).toBe(id);
  expect((d.control_plane as Record<string, unknown>).workflow_id).toBe(id);
  expect(d.run_id).toBe(runId);
  const runs = ok(await get(`/workflows/${s}/runs`), "runs");
  expect(runs.workflow_id).toBe(id);
  expect(ok(await get(`/workflows/${s}/runs/${runId}`), "describe_run").workflow_id).toBe(id);
  expect(ok(await get(`/workflows/${s}/debug`), "debug").workflow_id).toBe(id);
  expect(ok(await get(`/workflows/${s}/runs/${runId}/debug`), "run debug").workflow_id).toBe(id);
  const hist = ok(await get(`/workflows/${s}/runs/${runId}/history`), "history");
  expect(hist.workflow_id).toBe(id);
  expect((hist.events as unknown[]).length).toBeGreaterThan(0);
  const exported = ok(await get(`/workflows/${s}/runs/${runId}/history/export`), "export");
  expect(strings(exported).has(id)).toBe(true);
  expect(
    ok(await post(`/workflows/${s}/signal/${seg("approve/now ✓")}`, { input: ["yes"] }), "signal", 202).workflow_id,
  ).toBe(id);
  const cancel = ok(await post(`/workflows/${s}/cancel`, { reason: "round trip" }), "cancel");
  expect([cancel.workflow_id, cancel.outcome, (cancel.control_plane as Record<string, unknown>).workflow_id]).toEqual([
    id,
    "cancelled",
    id,
  ]);
  expect(ok(await get(`/workflows/${s}`), "describe after cancel").status).toBe("cancelled");
}

describe("workflow ids round-trip as one URL-encoded segment", () => {
  test("ids inside the start contract (dots, '..', colons, 128 characters) start over HTTP and round-trip", async () => {
    for (const id of ["..", ".", "a..b", "....", "orders:2026.q1-_x", "v".repeat(128), "A.B:C-D_E"]) {
      const started = ok(
        await post("/workflows", { workflow_id: id, workflow_type: "orders.process", input: [id] }),
        `start ${id}`,
        201,
      );
      expect(started.workflow_id).toBe(id);
      const listed = ok(await get(`/workflows?query=${encodeURIComponent(id)}&page_size=200`), "list");
      expect((listed.workflows as { workflow_id: string }[]).map((w) => w.workflow_id)).toContain(id);
      await roundTrip(id, String(started.run_id));
    }
    // Unencoded dots reach the same workflow when the client does not normalise the path.
    expect(ok(await get("/workflows/../runs"), "raw ..").workflow_id).toBe("..");
  });

  test("ids outside it ('/', '%', spaces, unicode, HTML, NUL) are refused by POST /workflows with 422, yet round-trip when an SDK created them", async () => {
    const ids = [
      "orders/2026 ünï%41",
      "a b",
      "../..",
      "%2F%2e%2e",
      "<script>alert(1)</script>",
      "🚀 launch",
      "tab\there",
      "nul\u0000byte",
      "ü".repeat(128),
    ];
    for (const id of ids) {
      const refused = await post("/workflows", { workflow_id: id, workflow_type: "orders.process" });
      expect(expectCpError(refused, `start ${JSON.stringify(id)}`, { operation: "start" }).errors).toHaveProperty(
        "workflow_id",
      );
      const started = h.engine.startWorkflow({
        namespace: "default",
        workflow_id: id,
        workflow_type: "orders.process",
        task_queue: "default",
        input: encodePayload([id]),
      });
      // A word followed by `<`/`>` reads as a visibility query (WorkflowVisibilityQuery@ca70b5e), so such
      // an id is searched by its longest stretch without them, as the substring search it still is.
      const term = /[<>=]/.test(id) ? id.split(/[<>=!]/).reduce((a, b) => (b.length > a.length ? b : a), "") : id;
      const listed = ok(await get(`/workflows?query=${encodeURIComponent(term)}&page_size=200`), "list");
      expect((listed.workflows as { workflow_id: string }[]).map((w) => w.workflow_id)).toContain(id);
      await roundTrip(id, String(started.run_id));
    }
  });

  test("property: any hostile id the engine holds is addressable by its encoded segment", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostileString, async (raw) => {
        n += 1;
        // A suffix keeps ids unique across runs; shrinking then still reports the hostile part.
        const id = `${raw}#${n}`;
        const started = h.engine.startWorkflow({
          namespace: "default",
          workflow_id: id,
          workflow_type: "t",
          task_queue: "default",
        });
        const d = ok(await get(`/workflows/${seg(id)}`), `describe ${JSON.stringify(id)}`);
        expect(d.workflow_id).toBe(id);
        const hist = ok(await get(`/workflows/${seg(id)}/runs/${started.run_id}/history`), "history");
        expect(hist.workflow_id).toBe(id);
        expect(ok(await post(`/workflows/${seg(id)}/terminate`, {}), "terminate").workflow_id).toBe(id);
      }),
      propertyParams(40),
    );
  });
});

describe("HTML and script in payloads and exception messages come back as the same JSON strings", () => {
  const XSS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(document.cookie)>',
    "</textarea><svg/onload=alert(1)>",
    "javascript:alert(1)",
    "&lt;b&gt; & <b>bold</b> \u2028\u2029",
  ] as const;

  function expectVerbatim(res: RawResponse, values: readonly string[], context: string): void {
    const body = expectAnswered(res, context);
    expect(String(res.headers["content-type"])).toMatch(/^application\/json/);
    const seen = strings(body);
    for (const v of values) {
      expect(seen.has(v), `${context} lacks ${JSON.stringify(v)}`).toBe(true);
      // JSON string escaping only: no HTML entity encoding, no stripping.
      expect(res.text.includes(JSON.stringify(v).slice(1, -1)), `${context} raw text of ${v}`).toBe(true);
    }
  }

  test("start fields, signal names and inputs, cancel reasons, activity and workflow failures", async () => {
    const [a, b, c, d, e] = XSS;
    const started = ok(
      await post("/workflows", {
        workflow_id: "xss-1",
        workflow_type: "orders.process",
        task_queue: "xss",
        business_key: a,
        memo: { note: b, [c]: d },
        input: [a, { k: b }],
        search_attributes: { Customer: e },
      }),
      "start",
      201,
    );
    const runId = String(started.run_id);
    ok(await post(`/workflows/xss-1/signal/${seg(b)}`, { input: [c] }), "signal", 202);

    const w = new ScriptedWorker(h.url, "xss-worker", "xss");
    await w.register();
    const t1 = await w.mustPollWorkflow();
    expect(
      (await w.completeWorkflow(t1, [{ type: "schedule_activity", activity_type: "charge", arguments: blob([a]) }]))
        .status,
    ).toBe(200);
    const act = await w.mustPollActivity();
    expect(
      (
        await w.failActivity(act, {
          message: a,
          type: b,
          stack_trace: `${c}\n    at charge (${d})`,
          non_retryable: true,
        })
      ).status,
    ).toBe(200);
    const t2 = await w.mustPollWorkflow();
    expect(
      (
        await w.completeWorkflow(t2, [
          { type: "fail_workflow", message: e, exception_type: c, stack_trace: `${a}\n${b}` },
        ])
      ).status,
    ).toBe(200);

    expectVerbatim(await get("/workflows/xss-1"), [a, b, c, d, e], "describe");
    expectVerbatim(await get(`/workflows?query=xss-1`), [a], "list");
    // The activity failure's type (b) is its exception_type; its class is the engine's RuntimeException
    // for a worker failure (DefaultActivityTaskBridge::throwable @8dc90d64), and debug shows the class.
    expectVerbatim(await get("/workflows/xss-1/debug"), [a, e], "debug");
    expectVerbatim(await get(`/workflows/xss-1/runs/${runId}/history`), [a, b, e], "history");
    expectVerbatim(await get(`/workflows/xss-1/runs/${runId}/history/export`), [a, b, c, e], "export");

    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "xss-2",
      workflow_type: "orders.process",
      task_queue: "xss",
    });
    const cancel = await post("/workflows/xss-2/cancel", { reason: d });
    expectVerbatim(cancel, [d], "cancel");
    const xss2 = ok(await get("/workflows/xss-2"), "describe xss-2");
    expectVerbatim(await get(`/workflows/xss-2/runs/${String(xss2.run_id)}/history`), [d], "history xss-2");
  });
});
