import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_VIEW_HEADER } from "@/lib/run-view/wire";
import type { RunViewExtras, RunViewLine } from "@/lib/run-view/wire";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * The three run-view routes as Next runs them (the process-wide service from the environment),
 * against the embedded server: a run's lines, the stats any signed-in person may read, the extras.
 * The service's behaviour is proven in lib/server/run-view/service.test.ts.
 */

let server: EmbeddedServer;
let runId: string;
let routes: {
  view: (request: NextRequest) => Promise<Response>;
  stats: () => Response;
  extras: (request: NextRequest) => Promise<Response>;
};

beforeAll(async () => {
  server = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token" }) });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  const started = server.engine.startWorkflow({
    namespace: "default",
    workflow_id: "wf-route",
    workflow_type: "RouteTest",
    task_queue: "q",
    input: { codec: "avro", blob: "" },
  });
  runId = started.run_id ?? "";
  routes = {
    view: (await import("@/app/api/run-view/route")).GET,
    stats: (await import("@/app/api/run-view/stats/route")).GET,
    extras: (await import("@/app/api/run-view/extras/route")).GET,
  };
});

afterAll(() => server.close());

function request(path: string): NextRequest {
  return new NextRequest(`http://console.test${path}?workflow_id=wf-route&run_id=${runId}`, {
    headers: { "x-namespace": "default" },
  });
}

describe("run-view routes", () => {
  it("stream the run's lines, count the walk in the stats, and answer the extras", async () => {
    const response = await routes.view(request("/api/run-view"));
    expect(response.headers.get(RUN_VIEW_HEADER)).toBe("miss");
    const lines = (await response.text())
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as RunViewLine);
    expect(lines[0]).toMatchObject({ t: "meta", closed: false });
    expect(lines.at(-1)?.t).toBe("done");
    const stats = (await routes.stats().json()) as Record<string, number>;
    expect(stats).toMatchObject({ walks: 0, cacheEntries: 0, upstreamLongPolls: 0 });
    expect(stats.cacheMaxBytes).toBe(256 * 1024 * 1024);
    const extras = await routes.extras(request("/api/run-view/extras"));
    expect(extras.status).toBe(200);
    expect(((await extras.json()) as RunViewExtras).exportBytes).toBeGreaterThan(0);
  });
});
