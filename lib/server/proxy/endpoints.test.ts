import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENDPOINTS, endpointPath } from "@/lib/dw/endpoints";
import type { EndpointName, EndpointSpec } from "@/lib/dw/endpoints";
import { fixture } from "@/lib/dw/fixtures/fixture-fetch";
import type { DwDecoders } from "@/lib/dw/transport";
import { parseConfig } from "@/lib/server/process/config";
import { proxyGet, proxyPost } from "@/lib/server/proxy/read-proxy";

/**
 * The read proxy's allow-list, namespace rule and validation come from lib/dw/endpoints.ts and from
 * nowhere else: every entry is reachable through `/api/dw` with its method (its answer validated and
 * relayed), and a read the table does not declare is refused before the server is asked.
 */

/** A recorded real-shape answer per decoder (lib/dw/fixtures, each cited there). */
const ANSWERS: Record<keyof DwDecoders, unknown> = {
  health: fixture("health"),
  ready: fixture("ready"),
  clusterInfo: fixture("cluster-info"),
  namespaceList: fixture("namespaces"),
  workflowList: fixture("workflow-list"),
  runDescription: fixture("workflow-describe"),
  runList: fixture("workflow-runs"),
  workflowDebug: fixture("workflow-debug"),
  historyPage: fixture("history-page"),
  historyExport: fixture("history-export"),
  operatorMetrics: fixture("operator-metrics"),
  systemMetrics: fixture("system-metrics"),
  repairStatus: fixture("system-repair"),
  activityTimeoutStatus: fixture("activity-timeouts"),
  workerList: fixture("workers"),
  worker: fixture("worker"),
  workerRemoved: fixture("worker-removed"),
  taskQueueList: fixture("task-queues"),
  taskQueueDetail: fixture("task-queue"),
  startResponse: fixture("start-workflow"),
  commandResponse: fixture("command-cancel"),
  repairPassReport: fixture("repair-pass"),
  activityTimeoutPassReport: fixture("activity-timeouts-pass"),
  retentionStatus: fixture("retention-status"),
  retentionPassReport: fixture("retention-pass"),
  namespaceAnswer: fixture("namespace-created"),
  namespaceDeleted: fixture("namespace-deleted"),
  workflowQueryResult: fixture("query-answered"),
  cancellationReceipt: fixture("cancellation-accepted"),
  updateResponse: fixture("update-completed"),
  scheduleList: fixture("schedule-list"),
  scheduleDescription: fixture("schedule-detail"),
  scheduleHistory: fixture("schedule-history"),
  scheduleCommandAnswer: fixture("schedule-paused"),
  searchAttributeList: fixture("search-attribute-list"),
  searchAttributeAnswer: fixture("search-attribute-created"),
  taskQueueBuildIds: fixture("task-queue-build-ids"),
  buildIdRolloutState: fixture("task-queue-build-id-promoted"),
  deploymentList: fixture("deployment-list"),
};

const PARAMS = { workflowId: "order 42/a", runId: "01jrv0k8d3m6y0x7q9c2n4b5za", queryName: "status" };
const SAMPLE: Record<string, string> = {
  ...PARAMS,
  namespace: "billing",
  workerId: "w-1",
  name: "orders",
  scheduleId: "nightly report/1",
};

interface Seen {
  method: string;
  url: string;
  body: string;
  namespace: string | undefined;
}
const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        body,
        namespace: req.headers["x-namespace"] as string,
      });
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
});

function send(method: string, segments: string[], body = "") {
  const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_TOKEN: "t" });
  const request = { segments, search: "", namespace: "billing", token: config.token };
  return method === "POST" ? proxyPost(config, { ...request, body }) : proxyGet(config, request);
}

const proxied = (Object.entries(ENDPOINTS) as [EndpointName, EndpointSpec][]).filter(([, spec]) => spec.proxy);

describe("every entry of the endpoint table", () => {
  it.each(proxied)("%s is reachable through the proxy with its method and answered", async (name, spec) => {
    answer = { status: 200, body: spec.response === null ? { relayed: true } : ANSWERS[spec.response] };
    // The segments as the route hands them over: decoded, an id with a `/` still one segment.
    const upstream = endpointPath(name, SAMPLE, encodeURIComponent);
    const segments = upstream.split("/").slice(1).map(decodeURIComponent);
    const response = await send(spec.method, segments, spec.request ? '{"input":[1]}' : "");

    const body = (await response.json()) as Record<string, unknown>;
    expect({ status: response.status, reason: body.reason ?? null }).toEqual({ status: 200, reason: null });
    expect(seen).toEqual([
      expect.objectContaining({
        method: spec.method,
        url: `/api${upstream}`,
        body: spec.request ? '{"input":[1]}' : "",
        namespace: "billing",
      }),
    ]);
  });

  it("validates what it declares: an answer that breaks the entry's schema is a 502 naming the field", async () => {
    answer = { status: 200, body: { ...(ANSWERS.workflowQueryResult as object), result_envelope: { blob: 1 } } };
    const response = await send("POST", ["workflows", "order-42", "query", "status"], "{}");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      reason: "malformed_response",
      issue_path: "$.result_envelope.codec",
    });
  });
});

describe("a read the table does not declare", () => {
  it.each([
    // Real server routes (routes/api.php@11d35b7) no console screen reads, and commands.
    ["POST", "schedules/nightly/pause"],
    ["GET", "schedules/nightly/history/1"],
    ["POST", "search-attributes"],
    ["POST", "task-queues/orders/build-ids/drain"],
    ["GET", "system/retention/pass"],
    ["GET", "workflows/order-42/signal/approve"],
    ["GET", "workflows/order-42/query/status"],
    ["GET", "namespaces/billing/external-storage"],
    ["POST", "workflows"],
    ["POST", "workflows/order-42/cancel"],
    ["POST", "workflows/order-42/signal/approve"],
    ["POST", "workflows/order-42/update/approve"],
    ["POST", "workflows/order-42/runs/01j/terminate"],
    ["POST", "workflows/order-42"],
    ["POST", "worker/query-tasks/poll"],
  ])("%s %s is refused with 404 not_proxied, the server never asked", async (method, path) => {
    const response = await send(method, path.split("/"), "{}");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: "not_proxied" });
    expect(seen).toEqual([]);
  });
});

describe("a POST that reads", () => {
  it("checks its body against the entry's request schema before anything is sent", async () => {
    for (const [body, issuePath] of [
      ['{"input":"status"}', "$.input"],
      ["not json", "$"],
    ] as const) {
      const response = await send("POST", ["workflows", "order-42", "runs", PARAMS.runId, "query", "status"], body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ reason: "invalid_request", issue_path: issuePath });
    }
    expect(seen).toEqual([]);
  });

  it("relays the server's refusal as it is (the query handler raised)", async () => {
    answer = { status: 409, body: fixture("query-failed") };
    const response = await send("POST", ["workflows", "order-42", "runs", PARAMS.runId, "query", "status"], "{}");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual(answer.body);
  });

  it("is refused without a namespace, like every namespaced read", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    const segments = ["workflows", "order-42", "query", "status"];
    const response = await proxyPost(config, { segments, search: "", namespace: null, token: null, body: "{}" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ reason: "namespace_required" });
    expect(seen).toEqual([]);
  });
});
