import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The Kikwiflow routes' own answers, with KIKWIFLOW_URL on a closed port (no engine): the retry
 * passes the action guard first, and an engine that cannot be reached is a 502 naming its host.
 * The answers from a live engine are checked in lib/server/kikwiflow/retry.engine.test.ts and e2e.
 */

const CONSOLE = "http://console.test:3000";
type Handler = (request: NextRequest, context: { params: Promise<{ id: string }> }) => Promise<Response>;
let retry: Handler;
let cancel: Handler;
let search: (request: NextRequest) => Promise<Response>;
let attention: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  process.env.KIKWIFLOW_URL = "http://127.0.0.1:9";
  process.env.DW_TOKEN = "adm-token";
  process.env.DW_REQUEST_TIMEOUT_MS = "2000";
  ({ POST: retry } = await import("@/app/api/kikwiflow/incidents/[id]/retry/route"));
  ({ POST: cancel } = await import("@/app/api/kikwiflow/instances/[id]/cancel/route"));
  ({ GET: search } = await import("@/app/api/kikwiflow/instances/route"));
  ({ GET: attention } = await import("@/app/api/kikwiflow/attention/route"));
});

function request(
  path: string,
  method: "GET" | "POST",
  headers: Record<string, string> = {},
  body?: unknown,
): NextRequest {
  return new NextRequest(`${CONSOLE}${path}`, {
    method,
    headers: { host: "console.test:3000", "x-breakwater-host": "console.test:3000", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const params = (id: string) => ({ params: Promise.resolve({ id }) });
const sameOrigin = { origin: CONSOLE, "sec-fetch-site": "same-origin" };

describe("Kikwiflow routes", () => {
  it("refuses a cross-site retry before anything reaches the engine", async () => {
    const answer = await retry(
      request("/api/kikwiflow/incidents/i1/retry", "POST", {
        origin: "http://evil.test",
        "sec-fetch-site": "cross-site",
      }),
      params("i1"),
    );
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({ reason: "cross_origin" });
  });

  it("says an unreachable engine is a 502 naming its host, for a retry and for a read", async () => {
    const retried = await retry(request("/api/kikwiflow/incidents/i1/retry", "POST", sameOrigin), params("i1"));
    expect(retried.status).toBe(502);
    expect(await retried.json()).toMatchObject({
      reason: "server_unavailable",
      message: expect.stringContaining("engine at 127.0.0.1:9 did not answer"),
    });
    const listed = await search(request("/api/kikwiflow/instances?page=0&size=20", "GET"));
    expect(listed.status).toBe(502);
    const scanned = await attention(request("/api/kikwiflow/attention", "GET"));
    expect(scanned.status).toBe(502);
    expect(await scanned.json()).toMatchObject({ reason: "server_unavailable" });
  });

  it("refuses a cross-site cancel, and a cancel without a reason, before anything reaches the engine", async () => {
    const path = "/api/kikwiflow/instances/p1/cancel";
    const crossSite = { origin: "http://evil.test", "sec-fetch-site": "cross-site" };
    const refused = await cancel(request(path, "POST", crossSite, { reason: "stop" }), params("p1"));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ reason: "cross_origin" });
    for (const body of [{}, { reason: "   " }, undefined]) {
      const answer = await cancel(request(path, "POST", sameOrigin, body), params("p1"));
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ message: "A reason is required to cancel an instance." });
    }
    // With a reason it goes on to the engine, which is down here.
    const sent = await cancel(request(path, "POST", sameOrigin, { reason: "customer asked" }), params("p1"));
    expect(sent.status).toBe(502);
  });

  it("refuses a page size over the engine's 100 as a 400", async () => {
    const answer = await search(request("/api/kikwiflow/instances?size=500", "GET"));
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ message: "size must be between 1 and 100" });
  });
});
