import { describe, expect, it } from "vitest";
import { createKikwiflowClient, type KikwiflowClientOptions } from "./client";
import {
  KikwiflowAbortedError,
  KikwiflowBadRequestError,
  KikwiflowConflictError,
  KikwiflowInvalidArgumentError,
  KikwiflowMalformedResponseError,
  KikwiflowNotFoundError,
  KikwiflowNotImplementedError,
  KikwiflowRouteNotFoundError,
  KikwiflowServerError,
  KikwiflowUnavailableError,
  type KikwiflowError,
} from "./errors";
import { retryScheduledEvents } from "./events";

/**
 * The client's wire handling with a scripted fetch: what it sends, and how each failure the engine
 * (or the network) can produce becomes a typed error. The answers are shaped like the engine's
 * (KikwiflowExceptionHandler@3b62f35, Spring's default error body); engine.test.ts checks them for real.
 */

const BASE = "http://kiki.test:8095";

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function scripted(respond: (sent: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request: Sent = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    };
    sent.push(request);
    return respond(request);
  };
  return { sent, fetchImpl };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function client(respond: (sent: Sent) => Response | Promise<Response>, options: Partial<KikwiflowClientOptions> = {}) {
  const { sent, fetchImpl } = scripted(respond);
  return { sent, kiki: createKikwiflowClient({ baseUrl: `${BASE}/`, fetch: fetchImpl, ...options }) };
}

async function rejection(promise: Promise<unknown>): Promise<KikwiflowError> {
  try {
    await promise;
  } catch (error) {
    return error as KikwiflowError;
  }
  throw new Error("expected the call to fail");
}

const INCIDENT = {
  id: "inc-1",
  type: "FAILED_JOB",
  message: "boom",
  stackTrace: null,
  processDefinitionId: "def-1",
  processInstanceId: "pi-1",
  executionId: "task-1",
  createdAt: "2026-12-02T16:45:55.448707369Z",
  status: "OPEN",
  taskDefinitionId: "POST_LEDGER",
};

describe("Kikwiflow client: requests", () => {
  it("posts a compact search to the default base path with the tenant header", async () => {
    const page = { content: [], totalElements: 0, totalPages: 0, page: 1, size: 10 };
    const { sent, kiki } = client(() => json(200, page), { tenantId: "acme" });
    await kiki.searchProcessInstances({ statuses: ["ACTIVE"], page: 1, size: 10, businessKey: undefined });
    expect(sent[0]).toMatchObject({
      url: `${BASE}/kikwiflow/api/v1/process-instances/search`,
      method: "POST",
      headers: { "X-Tenant-Id": "acme", "Content-Type": "application/json" },
      body: { statuses: ["ACTIVE"], page: 1, size: 10 },
    });
  });

  it("encodes ids as one path segment, honours a custom base path and a per-call tenant", async () => {
    const { sent, kiki } = client(() => json(200, INCIDENT), { basePath: "/engine/api", tenantId: "acme" });
    await kiki.getIncident("a/b c", { tenantId: "other" });
    expect(sent[0]!.url).toBe(`${BASE}/engine/api/incidents/a%2Fb%20c`);
    expect(sent[0]!.headers["X-Tenant-Id"]).toBe("other");
    await expect(kiki.getIncident("..")).rejects.toBeInstanceOf(KikwiflowInvalidArgumentError);
    expect(sent).toHaveLength(1);
  });

  it("reads a process definition by its id (what instances name), keeping the key and version", async () => {
    const definition = { id: "e011-uuid", key: "kiki-fatal", name: "Post ledger entry", version: 1, flowNodes: {} };
    const { sent, kiki } = client(() => json(200, definition));
    expect(await kiki.getProcessDefinition("e011-uuid")).toMatchObject({ key: "kiki-fatal", version: 1 });
    expect(sent[0]).toMatchObject({ method: "GET", url: `${BASE}/kikwiflow/api/v1/process-definitions/e011-uuid` });
  });

  it("keeps unknown fields and unknown enum members (open schemas)", async () => {
    const { kiki } = client(() => json(200, { ...INCIDENT, type: "SOMETHING_NEW", status: "ARCHIVED", extra: 1 }));
    expect(await kiki.getIncident("inc-1")).toMatchObject({ type: "SOMETHING_NEW", status: "ARCHIVED", extra: 1 });
  });

  it("reads RETRY_SCHEDULED payloads and skips events whose payload does not match", async () => {
    const base = { processInstanceId: "pi-1", timestamp: "2026-12-02T16:46:02.979831111Z" };
    const { kiki } = client(() =>
      json(200, [
        { ...base, id: "e1", eventType: "RETRY_SCHEDULED", payload: { executionsSoFar: 1, retriesLeft: 3 } },
        { ...base, id: "e2", eventType: "RETRY_SCHEDULED", payload: { retriesLeft: "three" } },
        { ...base, id: "e3", eventType: "INCIDENT_CREATED", payload: { incidentId: "inc-1", type: "FAILED_JOB" } },
      ]),
    );
    const trail = retryScheduledEvents(await kiki.getEvents("pi-1"));
    expect(trail.map((t) => [t.event.id, t.payload.retriesLeft])).toEqual([["e1", 3]]);
  });
});

describe("Kikwiflow client: retry incident", () => {
  it("sends PUT and reads 204 as accepted", async () => {
    const { sent, kiki } = client(() => new Response(null, { status: 204 }));
    expect(await kiki.retryIncident("inc-1")).toEqual({ kind: "accepted", httpStatus: 204 });
    expect(sent[0]).toMatchObject({ method: "PUT", url: `${BASE}/kikwiflow/api/v1/incidents/inc-1/retry` });
  });

  it("reads 409 CONFLICT as a rejection with the engine's message", async () => {
    const { kiki } = client(() => json(409, { code: "CONFLICT", message: "Only OPEN incidents can be retried." }));
    expect(await kiki.retryIncident("inc-1")).toEqual({
      kind: "rejected",
      httpStatus: 409,
      code: "CONFLICT",
      message: "Only OPEN incidents can be retried.",
    });
  });

  it("throws NOT_FOUND for an unknown incident", async () => {
    const { kiki } = client(() => json(404, { code: "NOT_FOUND", message: "Incident not found with id: x" }));
    const error = await rejection(kiki.retryIncident("x"));
    expect(error).toBeInstanceOf(KikwiflowNotFoundError);
    expect(error).toMatchObject({ code: "NOT_FOUND", httpStatus: 404, message: "Incident not found with id: x" });
  });
});

describe("Kikwiflow client: typed errors", () => {
  const cases: [string, () => Response, new (...args: never[]) => KikwiflowError, Record<string, unknown>][] = [
    [
      "400 BAD_REQUEST",
      () => json(400, { code: "BAD_REQUEST", message: "bad orderBy" }),
      KikwiflowBadRequestError,
      { code: "BAD_REQUEST" },
    ],
    [
      "404 NOT_FOUND",
      () => json(404, { code: "NOT_FOUND", message: "gone" }),
      KikwiflowNotFoundError,
      { code: "NOT_FOUND" },
    ],
    [
      "Spring's 404 without an envelope (route)",
      () => json(404, { timestamp: "t", status: 404, error: "Not Found", path: "/x" }),
      KikwiflowRouteNotFoundError,
      { code: null, message: "Not Found (/x)" },
    ],
    ["405", () => json(405, { status: 405, error: "Method Not Allowed" }), KikwiflowRouteNotFoundError, {}],
    [
      "409 CONFLICT on a read",
      () => json(409, { code: "CONFLICT", message: "x" }),
      KikwiflowConflictError,
      { code: "CONFLICT" },
    ],
    [
      "501 NOT_IMPLEMENTED",
      () => json(501, { code: "NOT_IMPLEMENTED", message: "" }),
      KikwiflowNotImplementedError,
      {},
    ],
    [
      "Spring's 500",
      () => json(500, { status: 500, error: "Internal Server Error", path: "/kikwiflow/api/v1/incidents/x" }),
      KikwiflowServerError,
      { httpStatus: 500 },
    ],
    [
      "502 from a proxy",
      () => new Response("<html>bad gateway</html>", { status: 502 }),
      KikwiflowUnavailableError,
      { unavailableCause: "http_5xx" },
    ],
    ["429", () => new Response("", { status: 429 }), KikwiflowUnavailableError, { unavailableCause: "throttled" }],
    [
      "200 that is not JSON",
      () => new Response("<html>login</html>", { status: 200 }),
      KikwiflowMalformedResponseError,
      { issuePath: "$" },
    ],
    [
      "200 with a wrong shape",
      () => json(200, { ...INCIDENT, id: 7 }),
      KikwiflowMalformedResponseError,
      { issuePath: "$.id" },
    ],
  ];

  it.each(cases)("%s", async (_name, respond, type, fields) => {
    const { kiki } = client(respond);
    const error = await rejection(kiki.getIncident("inc-1"));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject(fields);
  });

  it("network down → server_unavailable (network)", async () => {
    const { kiki } = client(() => {
      throw new TypeError("fetch failed");
    });
    const error = await rejection(kiki.getSnapshot("pi-1"));
    expect(error).toBeInstanceOf(KikwiflowUnavailableError);
    expect(error).toMatchObject({ unavailableCause: "network" });
  });

  /** A fetch that never answers, like a hung engine; it settles only when its signal aborts. */
  function hangingClient(timeoutMs: number) {
    const fetchImpl: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    return createKikwiflowClient({ baseUrl: BASE, fetch: fetchImpl, timeoutMs });
  }

  it("no answer within the timeout → server_unavailable (timeout)", async () => {
    const error = await rejection(hangingClient(30).getSnapshot("pi-1"));
    expect(error).toBeInstanceOf(KikwiflowUnavailableError);
    expect(error).toMatchObject({ unavailableCause: "timeout" });
  });

  it("the caller's abort → aborted", async () => {
    const controller = new AbortController();
    const pending = rejection(hangingClient(10_000).getSnapshot("pi-1", { signal: controller.signal }));
    controller.abort();
    expect(await pending).toBeInstanceOf(KikwiflowAbortedError);
  });
});

describe("Kikwiflow client: pulse stream (SSE)", () => {
  const PULSE = { id: "def-1", key: "kiki-fatal", metrics: { running: 2, sla: 100, fail: 1 }, flowNodes: {} };

  function sse(chunks: string[]) {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  }

  async function collect(stream: AsyncIterable<unknown>) {
    const seen: unknown[] = [];
    for await (const item of stream) seen.push(item);
    return seen;
  }

  it("yields one snapshot per data frame, across chunk boundaries, CRLF and comments", async () => {
    const frame = JSON.stringify(PULSE);
    const { sent, kiki } = client(
      () =>
        sse([
          ": keep-alive\n\n",
          `data:${frame.slice(0, 10)}`,
          `${frame.slice(10)}\n\n`,
          `event: ignored\r\ndata: ${JSON.stringify({ ...PULSE, metrics: { fail: 2 } })}\r\n\r\n`,
        ]),
      { tenantId: "acme" },
    );
    const seen = await collect(kiki.pulseStream("def-1"));
    expect(seen).toEqual([PULSE, { ...PULSE, metrics: { fail: 2 } }]);
    expect(sent[0]).toMatchObject({
      url: `${BASE}/kikwiflow/api/v1/pulse/process-definition/def-1/snapshot/stream`,
      headers: { Accept: "text/event-stream", "X-Tenant-Id": "acme" },
    });
  });

  it("a frame that is not a snapshot is a malformed response", async () => {
    const { kiki } = client(() => sse([`data: ${JSON.stringify({ key: "no id" })}\n\n`]));
    const error = await rejection(collect(kiki.pulseStream("def-1")));
    expect(error).toBeInstanceOf(KikwiflowMalformedResponseError);
    expect(error).toMatchObject({ issuePath: "$.id" });
    const notJson = client(() => sse(["data: {oops\n\n"]));
    expect(await rejection(collect(notJson.kiki.pulseStream("def-1")))).toBeInstanceOf(KikwiflowMalformedResponseError);
  });

  it("maps a refused stream to the typed error", async () => {
    const { kiki } = client(() => json(404, { code: "NOT_FOUND", message: "no such definition" }));
    expect(await rejection(collect(kiki.pulseStream("nope")))).toBeInstanceOf(KikwiflowNotFoundError);
  });
});
