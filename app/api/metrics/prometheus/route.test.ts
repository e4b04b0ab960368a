import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * GET /api/metrics/prometheus: refused without the scrape token, and with it the counters move after
 * a real upstream read, an action sent to the embedded server and a closed-run cache lookup.
 */

const SCRAPE_TOKEN = "scrape-token-0123456789abcdef";
const CONSOLE = "http://console.test:3000";
let server: EmbeddedServer;
let GET: (request: NextRequest) => Promise<Response>;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token" }) });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  process.env.DW_NAMESPACE = "default";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  process.env.BREAKWATER_METRICS_TOKEN = SCRAPE_TOKEN;
  ({ GET } = await import("@/app/api/metrics/prometheus/route"));
  ({ POST } = await import("@/app/api/actions/runs/route"));
});

afterAll(async () => {
  delete process.env.BREAKWATER_METRICS_TOKEN;
  await server.close();
});

function scrape(authorization?: string): Promise<Response> {
  return GET(new NextRequest(`${CONSOLE}/api/metrics/prometheus`, { headers: authorization ? { authorization } : {} }));
}

async function text(): Promise<string> {
  const response = await scrape(`Bearer ${SCRAPE_TOKEN}`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The sample of `name` whose labels include every one of `labels`; 0 when there is none yet. */
function sample(body: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = body
    .split("\n")
    .find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.slice(0, l.lastIndexOf("}")).includes(w)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("GET /api/metrics/prometheus", () => {
  it("is refused without the scrape token, or with a wrong one", async () => {
    expect((await scrape()).status).toBe(401);
    const wrong = await scrape(`Bearer ${SCRAPE_TOKEN.slice(1)}`);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("breakwater_");
  });

  it("counts upstream calls by endpoint pattern, actions by kind and outcome, and cache lookups", async () => {
    const before = await text();
    const upstream = { endpoint: "GET /workflows/{workflowId}/runs/{runId}", outcome: "4xx" };
    const action = { kind: "runs.cancel", outcome: "rejected" };
    const refused = { kind: "runs", outcome: "refused" };

    const { getDwClient } = await import("@/lib/server/proxy/dw-client");
    await expect(getDwClient("default").describeRun("no-such-workflow", "no-such-run")).rejects.toThrow();
    const send = (body: unknown, headers: Record<string, string>) =>
      POST(
        new NextRequest(`${CONSOLE}/api/actions/runs`, {
          method: "POST",
          headers: {
            host: "console.test:3000",
            "x-breakwater-host": "console.test:3000",
            "content-type": "application/json",
            "x-namespace": "default",
            ...headers,
          },
          body: JSON.stringify(body),
        }),
      );
    const same = { origin: CONSOLE, "sec-fetch-site": "same-origin" };
    const cancel = {
      action: "cancel",
      workflowId: "no-such-workflow",
      runId: "r",
      requestId: "req-metrics-1",
      reason: "x",
    };
    expect((await send(cancel, same)).status).toBeGreaterThanOrEqual(400);
    expect((await send(cancel, { origin: "http://elsewhere.test", "sec-fetch-site": "cross-site" })).status).toBe(403);
    const { closedRunCache } = await import("@/lib/server/proxy/closed-run-cache");
    expect(closedRunCache().get("not-cached")).toBeUndefined();

    const after = await text();
    expect(sample(after, "breakwater_upstream_request_duration_seconds_count", upstream)).toBe(
      sample(before, "breakwater_upstream_request_duration_seconds_count", upstream) + 1,
    );
    expect(sample(after, "breakwater_actions_total", action)).toBe(
      sample(before, "breakwater_actions_total", action) + 1,
    );
    expect(sample(after, "breakwater_actions_total", refused)).toBe(
      sample(before, "breakwater_actions_total", refused) + 1,
    );
    const miss = { cache: "closed_run", result: "miss" };
    expect(sample(after, "breakwater_cache_lookups_total", miss)).toBe(
      sample(before, "breakwater_cache_lookups_total", miss) + 1,
    );
    expect(after).toContain("breakwater_upstream_long_poll_slots 2");
    // No label carries an id the caller chose.
    expect(after).not.toContain("no-such-workflow");
  });
});
