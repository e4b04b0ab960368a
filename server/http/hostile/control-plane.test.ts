import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness } from "../control-plane/test-support";
import { startCpHarness } from "../control-plane/test-support";
import { ALL_ENDPOINTS, CONTROL_ENDPOINTS, fillPath, hostileJson, hostileString, segmentsOf } from "./endpoints";
import type { Endpoint } from "./endpoints";
import { CP_HEADERS, expectAnswered, expectCpError, propertyParams, rawRequest } from "./raw-client";
import { at } from "../../invariant";

/**
 * Property-based hostile input against every control-plane route over real HTTP: whatever the
 * path segments, query string, body, version header, namespace or page token, the answer is 2xx
 * or the documented 4xx envelope (server-api.md §1.7) — never a 5xx, never a hang.
 */
const JSON_CT = { "content-type": "application/json" } as const;

let h: CpHarness;
let runId: string;
const WF = "hostile-seed";

beforeAll(async () => {
  h = await startCpHarness();
  runId =
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: WF,
      workflow_type: "orders.process",
      task_queue: "default",
    }).run_id ?? "";
  for (let i = 0; i < 3; i += 1)
    h.engine.signalWorkflow({ namespace: "default", workflow_id: WF, signal_name: `s${i}` });
});
afterAll(async () => {
  await h.close();
});

const withSegments = CONTROL_ENDPOINTS.filter((e) => segmentsOf(e.path).length > 0);
const versioned = CONTROL_ENDPOINTS.filter((e) => !e.unversioned);
const namespaced = CONTROL_ENDPOINTS.filter((e) => !e.namespaceExempt);
const posts = CONTROL_ENDPOINTS.filter((e) => e.method === "POST");

function send(ep: Endpoint, path: string, extra: { headers?: Record<string, string>; body?: string } = {}) {
  const body = extra.body ?? (ep.method === "POST" ? "{}" : undefined);
  return rawRequest(h.url, {
    method: ep.method,
    path,
    headers: { ...CP_HEADERS, ...(body !== undefined ? JSON_CT : {}), ...(extra.headers ?? {}) },
    body,
  });
}

/** 2xx, or the documented error envelope for this route. */
function expectDocumented(
  ep: Endpoint,
  res: Awaited<ReturnType<typeof rawRequest>>,
  context: string,
): Record<string, unknown> {
  if (res.status >= 200 && res.status < 300) return expectAnswered(res, context);
  return expectCpError(res, context, { operation: ep.operation });
}

describe("hostile control-plane input", () => {
  test("path segments with '/', '%', '..', NUL, control characters and unicode, URL-encoded, on every route", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withSegments), hostileString, async (ep, raw) => {
        const path = fillPath(ep.path, {
          id: encodeURIComponent(raw),
          runId: encodeURIComponent(raw),
          name: encodeURIComponent(raw),
          ns: encodeURIComponent(raw),
          workerId: encodeURIComponent(raw),
        });
        const res = await send(ep, path);
        const ctx = `${ep.method} ${path}`;
        const body = expectDocumented(ep, res, ctx);
        // The identifier comes back exactly as sent: decoded once, never normalised or truncated.
        if (body.reason === "instance_not_found") {
          expect(body.workflow_id, ctx).toBe(raw);
          if (ep.operation) expect((body.control_plane as Record<string, unknown>).workflow_id, ctx).toBe(raw);
        }
        if (body.reason === "namespace_not_found" && ep.path.endsWith(":ns"))
          expect(body.namespace, ctx).toBe(raw.toLowerCase());
        if (body.reason === "worker_not_found") expect(body.worker_id, ctx).toBe(raw);
        if (ep.path.endsWith("/task-queues/:name")) expect(body.name, ctx).toBe(raw);
      }),
      propertyParams(100),
    );
  });

  test("a run id that exists under another workflow, or a workflow id with a foreign run id, is 404", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withSegments.filter((e) => e.path.includes(":runId"))),
        hostileString,
        async (ep, raw) => {
          const wrongWorkflow = await send(ep, fillPath(ep.path, { id: encodeURIComponent(raw), runId, name: "sig" }));
          expect(wrongWorkflow.status, `${ep.path} with a foreign workflow id`).toBeGreaterThanOrEqual(400);
          expectCpError(wrongWorkflow, ep.path, { operation: ep.operation });
          const wrongRun = await send(ep, fillPath(ep.path, { id: WF, runId: encodeURIComponent(raw), name: "sig" }));
          const body = expectCpError(wrongRun, `${ep.path} with a hostile run id`, { operation: ep.operation });
          expect(["run_not_found", "historical_run_command_rejected", "validation_failed"]).toContain(body.reason);
        },
      ),
      propertyParams(40),
    );
  });

  test("arbitrary JSON bodies and wrong-typed fields on every POST route", async () => {
    const fieldNames = [
      "workflow_id",
      "workflow_type",
      "task_queue",
      "input",
      "business_key",
      "memo",
      "search_attributes",
      "duplicate_policy",
      "execution_timeout_seconds",
      "run_timeout_seconds",
      "reason",
      "request_id",
      "run_ids",
      "instance_id",
      "limit",
      "execution_ids",
      "__proto__",
      "constructor",
    ];
    const body = fc.oneof(
      hostileJson,
      fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), fc.oneof(hostileJson, hostileString), {
        maxKeys: 6,
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...posts), fc.boolean(), body, async (ep, seeded, value) => {
        const path = fillPath(
          ep.path,
          seeded
            ? { id: WF, runId, name: "go" }
            : { id: "hostile-missing", runId: "01JZZZZZZZZZZZZZZZZZZZZZZZ", name: "go" },
        );
        const res = await send(ep, path, { body: JSON.stringify(value) });
        expectDocumented(ep, res, `${ep.method} ${path} ${JSON.stringify(value).slice(0, 200)}`);
      }),
      propertyParams(150),
    );
  });

  test("regression: payload values Avro cannot carry and out-of-range timeouts are 422, not 500", async () => {
    const start = (extra: Record<string, unknown> | string) =>
      rawRequest(h.url, {
        method: "POST",
        path: "/api/workflows",
        headers: { ...CP_HEADERS, ...JSON_CT },
        body: typeof extra === "string" ? extra : JSON.stringify({ workflow_type: "t", ...extra }),
      });
    const infinite = await start('{"workflow_type":"t","input":[1e400]}');
    expect(expectCpError(infinite, "input 1e400", { operation: "start" }).errors).toHaveProperty("input");
    const signal = await rawRequest(h.url, {
      method: "POST",
      path: `/api/workflows/${WF}/signal/go`,
      headers: { ...CP_HEADERS, ...JSON_CT },
      body: '{"input":[-1e999]}',
    });
    expect(expectCpError(signal, "signal input -1e999", { operation: "signal" }).reason).toBe("validation_failed");
    for (const field of ["execution_timeout_seconds", "run_timeout_seconds"]) {
      const huge = await start({ [field]: Number.MAX_SAFE_INTEGER });
      expect(expectCpError(huge, field, { operation: "start" }).errors).toHaveProperty(field);
    }
  });

  test("query strings: unknown, repeated, wrong-typed and hostile parameters on every GET route", async () => {
    const keys = [
      "status",
      "workflow_type",
      "query",
      "page_size",
      "next_page_token",
      "wait_new_event",
      "include_last_event_payload",
      "namespace",
      "limit",
      "workflow_type_limit",
      "task_queue",
      "__proto__",
    ];
    const pair = fc.tuple(
      fc.oneof(fc.constantFrom(...keys), hostileString),
      fc.oneof(hostileString, fc.integer().map(String), fc.constantFrom("", "-1", "0", "1e3", "true", "[]")),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CONTROL_ENDPOINTS.filter((e) => e.method === "GET")),
        fc.array(pair, { minLength: 1, maxLength: 5 }),
        async (ep, pairs) => {
          const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
          const path = `${fillPath(ep.path, { id: WF, runId, ns: "default", workerId: "nobody", name: "default" })}?${qs}`;
          const res = await send(ep, path);
          expectDocumented(ep, res, `GET ${path}`);
        },
      ),
      propertyParams(100),
    );
  });

  test("forged, malformed and foreign page tokens never break list or history; history stays a keyset", async () => {
    const token = fc.oneof(
      hostileString,
      hostileString.map((s) => Buffer.from(s).toString("base64")),
      fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map((n) => Buffer.from(String(n)).toString("base64")),
      fc
        .record({ v: hostileJson, k: fc.oneof(hostileString, hostileJson) })
        .map((o) => Buffer.from(JSON.stringify(o)).toString("base64url")),
    );
    await fc.assert(
      fc.asyncProperty(token, fc.integer({ min: 1, max: 200 }), async (t, size) => {
        const list = await send(
          at(CONTROL_ENDPOINTS, 3, "endpoint"),
          `/api/workflows?page_size=${size}&next_page_token=${encodeURIComponent(t)}`,
        );
        expect(list.status, `list token ${t}`).toBe(200);
        expect(Array.isArray(expectAnswered(list, "list").workflows)).toBe(true);
        const hist = await send(
          at(CONTROL_ENDPOINTS, 10, "endpoint"),
          `/api/workflows/${WF}/runs/${runId}/history?page_size=${size}&next_page_token=${encodeURIComponent(t)}`,
        );
        expect(hist.status, `history token ${t}`).toBe(200);
        const events = expectAnswered(hist, "history").events as { sequence: number }[];
        const after = Number(Buffer.from(t, "base64").toString("utf8"));
        for (const [i, e] of events.entries()) {
          if (i > 0) expect(e.sequence).toBeGreaterThan(at(events, i - 1).sequence);
          // An integer cursor is a keyset bound; anything else restarts from the first event (documented).
          if (Number.isInteger(after) && after > 0) expect(e.sequence).toBeGreaterThan(after);
        }
      }),
      propertyParams(80),
    );
  });

  test("version header: anything but '2' on a versioned route is the documented 400", async () => {
    const value = fc.oneof(
      fc.string({ unit: "grapheme-ascii", maxLength: 12 }),
      fc.constantFrom("", " ", "2.0", "02", "v2", "1", "3", "2,2", " 2 "),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...versioned), value, async (ep, v) => {
        const path = fillPath(ep.path, { id: WF, runId, name: "go", ns: "default", workerId: "nobody" });
        const res = await send(ep, path, { headers: { "x-durable-workflow-control-plane-version": v } });
        const trimmed = v.trim();
        if (trimmed === "2") {
          expect(res.status, `${path} with version ${JSON.stringify(v)}`).not.toBe(400);
          return;
        }
        const body = expectCpError(res, `${path} with version ${JSON.stringify(v)}`, { operation: ep.operation });
        expect(res.status).toBe(400);
        expect(body.reason).toBe(
          trimmed === "" ? "missing_control_plane_version" : "unsupported_control_plane_version",
        );
        expect(body.requested_version).toBe(trimmed === "" ? null : trimmed);
        expect(body.supported_version).toBe("2");
      }),
      propertyParams(80),
    );
    for (const ep of versioned) {
      const res = await rawRequest(h.url, {
        method: ep.method,
        path: fillPath(ep.path, { id: WF, runId, name: "go", ns: "default" }),
        headers: { accept: "application/json" },
      });
      expect(expectCpError(res, `${ep.path} without version`, { operation: ep.operation }).reason).toBe(
        "missing_control_plane_version",
      );
    }
  });

  test("unknown namespaces, by header or query, are 404 namespace_not_found echoing the lower-cased name", async () => {
    // Header values are bytes the server reads as latin1, so headers carry printable ASCII and
    // the query string carries everything else.
    const headerValue = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...namespaced),
        fc.oneof(
          headerValue.map((v) => ({ via: "header" as const, v })),
          hostileString.map((v) => ({ via: "query" as const, v })),
        ),
        async (ep, { via, v }) => {
          const base = fillPath(ep.path, { id: WF, runId, name: "go", workerId: "nobody" });
          const path = via === "query" ? `${base}?namespace=${encodeURIComponent(v)}` : base;
          const res = await send(ep, path, via === "header" ? { headers: { "x-namespace": v } } : {});
          const expected = v.trim().toLowerCase();
          if (expected === "" || expected === "default") {
            expect(res.status, `${path} ns ${JSON.stringify(v)}`).toBeLessThan(500);
            return;
          }
          const body = expectCpError(res, `${path} ns ${JSON.stringify(v)} via ${via}`, { operation: ep.operation });
          expect(body.reason).toBe("namespace_not_found");
          expect(body.namespace).toBe(expected);
        },
      ),
      propertyParams(80),
    );
  });

  test("wrong verbs on every route are 405 method_not_allowed with Allow, unknown routes 404 not_found", async () => {
    for (const ep of ALL_ENDPOINTS) {
      const path = fillPath(ep.path, { id: WF, runId, name: "go", ns: "default", workerId: "nobody" });
      // `/workflows` takes GET and POST; any other verb there is still 405.
      // Routes are compared by shape: `/namespaces/:ns` (GET) and `/namespaces/:target` (PUT, DELETE) are one path.
      const shape = (p: string) => p.replace(/:[a-zA-Z]+/g, ":_");
      const verbs = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter(
        (m) => !ALL_ENDPOINTS.some((o) => o.method === m && shape(o.path) === shape(ep.path)),
      );
      for (const method of verbs) {
        const res = await rawRequest(h.url, {
          method,
          path,
          headers: { ...CP_HEADERS, ...JSON_CT, "x-durable-workflow-protocol-version": "1.19" },
          body: "{}",
        });
        const ctx = `${method} ${path}`;
        expect(res.status, `${ctx} → ${res.text.slice(0, 200)}`).toBe(405);
        const body = expectAnswered(res, ctx);
        expect(body.reason).toBe("method_not_allowed");
        expect(String(res.headers.allow)).toContain(ep.method);
        if (ep.plane === "worker") expect(body.protocol_version).toBe("1.20");
      }
    }
    for (const path of [
      "/api/nope",
      "/api/workflows/a/b/c/d/e/f",
      "/api/system",
      "/api/worker/nope",
      "/api/%zz",
      "/api/workflows/%zz",
      "/api/worker/workflow-tasks/%E0%A4%A/fail",
    ]) {
      const res = await rawRequest(h.url, {
        method: "POST",
        path,
        headers: { ...CP_HEADERS, ...JSON_CT, "x-durable-workflow-protocol-version": "1.19" },
        body: "{}",
      });
      expect(res.status, `${path} → ${res.text.slice(0, 200)}`).toBe(404);
      expect(expectAnswered(res, path).reason).toBe("not_found");
    }
  });
});
