import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_VERSIONS, realFixture } from "@/contracts/fixtures/load";
import type { RealEndpoint, RealVersion } from "@/contracts/fixtures/load";
import { parseConfig } from "@/lib/server/process/config";
import { proxyGet } from "@/lib/server/proxy/read-proxy";

/**
 * The browser reads through the read proxy, which validates each body before relaying it (decision
 * 0010). A loopback server answers every read path with the real-shape fixture of one version: the
 * proxy must relay each with 200, never the 502 `malformed_response` a refused field would give —
 * the failure a real export's `timeline[].failure.handled: null` used to cause on the run page.
 */

const RUN = "01jrv0k8d3m6y0x7q9c2n4b5za";
const READ_PATHS: Record<string, RealEndpoint> = {
  "/api/health": "health",
  "/api/ready": "ready",
  "/api/cluster/info": "cluster-info",
  "/api/namespaces": "namespaces",
  "/api/workflows": "workflows-list",
  "/api/workflows/order-42": "describe",
  "/api/workflows/order-42/runs": "runs",
  "/api/workflows/order-42/debug": "debug",
  [`/api/workflows/order-42/runs/${RUN}/history`]: "history-page",
  [`/api/workflows/order-42/runs/${RUN}/history/export`]: "history-export",
  "/api/system/operator-metrics": "operator-metrics",
  "/api/system/repair": "system-repair",
  "/api/system/activity-timeouts": "activity-timeouts",
  "/api/workers": "workers",
  "/api/task-queues": "task-queues",
  "/api/task-queues/orders": "task-queue",
};

let server: Server;
let baseUrl: string;
let version: RealVersion = "2026-04";

beforeAll(async () => {
  server = createServer((req, res) => {
    const endpoint = READ_PATHS[(req.url ?? "").split("?")[0]!];
    res.writeHead(endpoint ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(endpoint ? realFixture(version, endpoint) : { reason: "not_found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe.each(REAL_VERSIONS)("read proxy on real %s answers", (v) => {
  it.each(Object.entries(READ_PATHS))("%s is relayed, validated, with 200", async (path, endpoint) => {
    version = v;
    const segments = path.replace(/^\/api\//, "").split("/");
    const response = await proxyGet(parseConfig({ DW_SERVER_URL: baseUrl }), {
      segments,
      search: "",
      namespace: "default",
      token: null,
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect({ status: response.status, reason: body.reason ?? null }).toEqual({ status: 200, reason: null });
    if (endpoint === "history-export") {
      // Not validated, still relayed: the export's own timeline keeps the real nulls.
      const retry = (body.timeline as { type: string; failure: { handled: unknown } }[]).find(
        (entry) => entry.type === "ActivityRetryScheduled",
      );
      expect(retry?.failure.handled).toBeNull();
    }
  });
});
