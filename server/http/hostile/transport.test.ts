import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness } from "../control-plane/test-support";
import { startCpHarness } from "../control-plane/test-support";
import { MAX_PAYLOAD_BYTES } from "../worker-plane";
import { fillPath, POST_ENDPOINTS } from "./endpoints";
import type { Endpoint } from "./endpoints";
import { CP_HEADERS, expectCpError, expectWorkerError, propertyParams, rawRequest, WORKER_HEADERS } from "./raw-client";
import type { RawResponse } from "./raw-client";

/**
 * Body guards on every POST route of both planes (server-api.md §1.5): malformed JSON is 400
 * `malformed_json`, a non-JSON media type 415 `unsupported_media_type`, a body over
 * DW_MAX_PAYLOAD_BYTES 413 `payload_too_large` — each in its plane's envelope.
 */
let h: CpHarness;
beforeAll(async () => {
  h = await startCpHarness();
});
afterAll(async () => {
  await h.close();
});

function post(ep: Endpoint, body: string | Buffer, headers: Record<string, string | number>): Promise<RawResponse> {
  const base = ep.plane === "worker" ? WORKER_HEADERS : CP_HEADERS;
  return rawRequest(h.url, {
    method: "POST",
    path: fillPath(ep.path, { id: "t", runId: "r", name: "n" }),
    headers: { ...base, ...headers },
    body,
  });
}

function expectEnvelope(ep: Endpoint, res: RawResponse, context: string): Record<string, unknown> {
  return ep.plane === "worker"
    ? expectWorkerError(res, context)
    : expectCpError(res, context, { operation: ep.operation });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("body guards on every POST route", () => {
  test("malformed JSON is 400 malformed_json", async () => {
    const malformed = fc
      .oneof(
        fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
        fc.jsonValue({ maxDepth: 3 }).chain((v) => {
          const text = JSON.stringify(v);
          return fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((cut) => text.slice(0, cut));
        }),
        fc.constantFrom(
          "{",
          '{"a":}',
          "[1,]",
          "{'a':1}",
          "NaN",
          "undefined",
          "\ufeff{}",
          '{"a":1}}',
          '{"a":"\u0000"',
          "0x10",
          "01",
        ),
      )
      .filter((t) => t.trim() !== "" && !isJson(t));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_ENDPOINTS), malformed, async (ep, text) => {
        const res = await post(ep, text, { "content-type": "application/json" });
        const body = expectEnvelope(ep, res, `${ep.path} ${JSON.stringify(text)}`);
        expect(res.status).toBe(400);
        expect(body.reason).toBe("malformed_json");
        expect(body.json_error).toBe("Syntax error");
      }),
      propertyParams(100),
    );
  });

  test("non-JSON media types, and bodies without one, are 415 unsupported_media_type", async () => {
    const token = fc.stringMatching(/^[a-z][a-z0-9.+-]{0,12}$/);
    const mediaType = fc.oneof(
      fc.constantFrom(
        "text/plain",
        "text/html",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/jsonp",
        "application/json-patch",
        "json",
        "*/*",
        ";;;",
        "application/",
      ),
      fc
        .tuple(token, token, fc.option(token))
        .map(([t, s, p]) => `${t}/${s}${p ? `; charset=${p}` : ""}`)
        .filter((m) => !/^application\/([a-z0-9.!#$&^_-]+\+)?json(;|$)/i.test(m)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_ENDPOINTS), mediaType, async (ep, type) => {
        const res = await post(ep, "{}", { "content-type": type });
        const body = expectEnvelope(ep, res, `${ep.path} content-type ${type}`);
        expect(res.status).toBe(415);
        expect(body.reason).toBe("unsupported_media_type");
        expect(body.accepted_content_types).toEqual(["application/json", "application/*+json"]);
      }),
      propertyParams(80),
    );
    for (const ep of POST_ENDPOINTS) {
      const base: Record<string, string> =
        ep.plane === "worker"
          ? { "x-durable-workflow-protocol-version": "1.19" }
          : { "x-durable-workflow-control-plane-version": "2" };
      const res = await rawRequest(h.url, {
        method: "POST",
        path: fillPath(ep.path, { id: "t", runId: "r", name: "n" }),
        headers: base,
        body: "{}",
      });
      expect(expectEnvelope(ep, res, `${ep.path} without content-type`).reason).toBe("unsupported_media_type");
    }
  });

  test("JSON media types with parameters and *+json are parsed, not refused", async () => {
    for (const type of [
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/vnd.api+json",
      "application/problem+json; charset=utf-8",
    ]) {
      const res = await rawRequest(h.url, {
        method: "POST",
        path: "/api/workflows/none/cancel",
        headers: { ...CP_HEADERS, "content-type": type },
        body: "{}",
      });
      expect(expectCpError(res, type, { operation: "cancel" }).reason, type).toBe("instance_not_found");
    }
  });

  test("bodies over DW_MAX_PAYLOAD_BYTES are 413 payload_too_large, by actual size or declared length", async () => {
    const big = Buffer.from(JSON.stringify({ pad: "x".repeat(MAX_PAYLOAD_BYTES) }));
    for (const ep of POST_ENDPOINTS) {
      const actual = await post(ep, big, { "content-type": "application/json" });
      const body = expectEnvelope(ep, actual, `${ep.path} ${big.length} bytes`);
      expect([actual.status, body.reason, body.limit]).toEqual([413, "payload_too_large", MAX_PAYLOAD_BYTES]);
      // A declared length over the limit is refused from the header, before any byte of the body:
      // the request must not wait for a body that never comes.
      const declared = await post(ep, "{}", {
        "content-type": "application/json",
        "content-length": MAX_PAYLOAD_BYTES + 1,
      });
      expect([declared.status, expectEnvelope(ep, declared, `${ep.path} declared`).reason]).toEqual([
        413,
        "payload_too_large",
      ]);
    }
    const exactly = Buffer.from(JSON.stringify({ note: "y".repeat(MAX_PAYLOAD_BYTES - 20) }));
    expect(exactly.length).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const atLimit = await rawRequest(h.url, {
      method: "POST",
      path: "/api/workflows/none/cancel",
      headers: { ...CP_HEADERS, "content-type": "application/json" },
      body: exactly,
    });
    expect(expectCpError(atLimit, "at the limit", { operation: "cancel" }).reason).toBe("instance_not_found");
  });

  test("regression: nesting deeper than 512 levels is malformed_json, not a stack overflow 500", async () => {
    const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
    for (const ep of POST_ENDPOINTS) {
      const res = await post(ep, `{"input":${nested(100_000)}}`, { "content-type": "application/json" });
      const body = expectEnvelope(ep, res, `${ep.path} nested 100000`);
      expect([res.status, body.reason, body.json_error]).toEqual([
        400,
        "malformed_json",
        "Maximum stack depth exceeded",
      ]);
    }
    // Brackets inside strings are text, not nesting.
    const text = await rawRequest(h.url, {
      method: "POST",
      path: "/api/workflows",
      headers: { ...CP_HEADERS, "content-type": "application/json" },
      body: JSON.stringify({
        workflow_id: "brackets",
        workflow_type: "t",
        input: ["[".repeat(5000)],
        memo: { note: '{"['.repeat(1000) },
      }),
    });
    expect(text.status).toBe(201);
    // 512 levels (PHP json_decode's default depth) are accepted and read back intact.
    const deepest = `{"workflow_id":"deep-512","workflow_type":"t","input":[${nested(510)}]}`;
    const start = await rawRequest(h.url, {
      method: "POST",
      path: "/api/workflows",
      headers: { ...CP_HEADERS, "content-type": "application/json" },
      body: deepest,
    });
    expect(start.status).toBe(201);
    const describe = await rawRequest(h.url, { path: "/api/workflows/deep-512", headers: CP_HEADERS });
    expect(describe.status).toBe(200);
    expect(JSON.stringify((describe.json as { input: unknown }).input)).toBe(`[${nested(510)}]`);
    const tooDeep = await rawRequest(h.url, {
      method: "POST",
      path: "/api/workflows",
      headers: { ...CP_HEADERS, "content-type": "application/json" },
      body: `{"workflow_type":"t","input":[${nested(512)}]}`,
    });
    expect((tooDeep.json as { json_error: string }).json_error).toBe("Maximum stack depth exceeded");
  });

  test("an empty body with a JSON media type reads as {}", async () => {
    const res = await rawRequest(h.url, {
      method: "POST",
      path: "/api/workflows",
      headers: { ...CP_HEADERS, "content-type": "application/json" },
      body: "",
    });
    expect(expectCpError(res, "empty start", { operation: "start" }).errors).toHaveProperty("workflow_type");
  });
});
