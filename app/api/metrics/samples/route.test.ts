import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/server/process/config";
import { metricsHistoryResponse, metricsReadFor } from "@/lib/server/metrics/history";
import { MetricsSampler } from "@/lib/server/metrics/sampler";
import { personKey, personLimiter } from "@/lib/server/proxy/person-limits";
import type { MetricsHistory } from "@/lib/views/metrics-samples";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * GET /api/metrics/samples against the embedded server: the route's own metrics read gates the
 * answer, a passing read registers the namespace, and a poll of a server that is gone is a gap.
 */

let server: EmbeddedServer;
let GET: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startEmbeddedServer({
    clock: systemClock,
    auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token", DW_OPERATOR_TOKEN: "op-token" }),
  });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  GET = (await import("@/app/api/metrics/samples/route")).GET;
});

afterAll(() => server.close());

function request(namespace: string | null, search = ""): NextRequest {
  return new NextRequest(`http://console.test/api/metrics/samples${search}`, {
    headers: namespace === null ? {} : { "x-namespace": namespace },
  });
}

describe("GET /api/metrics/samples", () => {
  it("answers the console's samples once the request's own metrics read passes", async () => {
    const response = await GET(request("default"));
    expect(response.status).toBe(200);
    const history = (await response.json()) as MetricsHistory;
    expect(history).toMatchObject({ sampling: true, intervalMs: 15_000 });
    expect(history.points.length).toBeGreaterThanOrEqual(1);
    expect(history.since).toBe(history.points[0]?.at);
    const later = (await (
      await GET(request("default", `?since=${history.points.at(-1)?.at}`))
    ).json()) as MetricsHistory;
    expect(later.points.every((p) => p.at > (history.points.at(-1)?.at ?? 0))).toBe(true);
  });

  it("refuses without a namespace or with a bad since", async () => {
    expect((await GET(request(null))).status).toBe(400);
    expect((await GET(request("default", "?since=soon"))).status).toBe(400);
  });

  it("relays the server's 403 to a token that may not read metrics, and registers nothing", async () => {
    const config = parseConfig({ DW_SERVER_URL: server.url, DW_TOKEN: "op-token" });
    const sampler = new MetricsSampler({ read: metricsReadFor(config), timer: () => () => undefined });
    const response = await metricsHistoryResponse(config, sampler, request("default"));
    expect(response.status).toBe(403);
    expect(sampler.stats().namespaces).toBe(0);
  });

  it("polls the real server and records a gap once it is gone", async () => {
    const other = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token" }) });
    const config = parseConfig({ DW_SERVER_URL: other.url, DW_TOKEN: "adm-token", DW_REQUEST_TIMEOUT_MS: "2000" });
    const sampler = new MetricsSampler({ read: metricsReadFor(config), timer: () => () => undefined });
    expect((await metricsHistoryResponse(config, sampler, request("default"))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sampler.tick();
    await other.close();
    await sampler.tick();
    const points = sampler.history("default", null).points;
    expect(points.length).toBeGreaterThanOrEqual(2);
    expect(points.at(-1)).toMatchObject({ gap: true });
    expect(points.slice(0, -1).every((p) => !("gap" in p))).toBe(true);
    sampler.stop();
  });

  it("is one of the person's reads: refused with 429 while they hold every place, answered once one is free", async () => {
    const config = parseConfig(process.env);
    const person = personKey(config, request("default").headers);
    // Every place this person has left (earlier tests' unread answers may hold some).
    const held = [];
    for (let lease; (lease = await personLimiter().acquire("reads", person, config.personLimits.reads));)
      held.push(lease);
    try {
      const refused = await GET(request("default"));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ reason: "too_many_in_flight" });
      held.pop()?.release();
      expect((await GET(request("default"))).status).toBe(200);
    } finally {
      for (const lease of held) lease.release();
    }
  });
});
