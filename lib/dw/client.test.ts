import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createDwClient, historyResumeToken, historyTokenAfter, type DwCommandClient } from "./client";
import { DwInvalidArgumentError } from "./errors";
import { fixture, fixtureFetch, type RecordedRequest } from "./fixtures/fixture-fetch";

const BASE = "http://dw.test:8080";
const TOKEN = "operator-token-123";

interface EndpointCase {
  name: string;
  call: (client: DwCommandClient) => Promise<unknown>;
  method: "GET" | "POST";
  /** Expected path and query after the base URL. */
  url: string;
  fixture: string;
  status?: number;
  body?: unknown;
  /** Discovery routes need no version header but the client sends it anyway (the server tolerates it). */
  check: (result: unknown) => void;
}

const ID = "order-42";
const RUN = "01jrv0k8d3m6y0x7q9c2n4b5za";

const cases: EndpointCase[] = [
  {
    name: "GET /health",
    call: (c) => c.health(),
    method: "GET",
    url: "/api/health",
    fixture: "health",
    check: (r) => expect(r).toMatchObject({ status: "serving", checks: { database: "ok" } }),
  },
  {
    name: "GET /health (503 degraded is an answer)",
    call: (c) => c.health(),
    method: "GET",
    url: "/api/health",
    fixture: "health-degraded",
    status: 503,
    check: (r) => expect(r).toMatchObject({ status: "degraded" }),
  },
  {
    name: "GET /ready",
    call: (c) => c.ready(),
    method: "GET",
    url: "/api/ready",
    fixture: "ready",
    check: (r) => expect(r).toMatchObject({ status: "ready", checks: { auth: { status: "ok", driver: "token" } } }),
  },
  {
    name: "GET /cluster/info",
    call: (c) => c.clusterInfo(),
    method: "GET",
    url: "/api/cluster/info",
    fixture: "cluster-info",
    check: (r) =>
      expect(r).toMatchObject({
        control_plane: { version: "2" },
        capabilities: { payload_codecs: ["avro"], response_compression: ["gzip", "deflate"] },
        worker_protocol: { version: "1.0" },
      }),
  },
  {
    name: "GET /namespaces",
    call: (c) => c.listNamespaces(),
    method: "GET",
    url: "/api/namespaces",
    fixture: "namespaces",
    check: (r) =>
      expect(r).toMatchObject({
        namespaces: [{ name: "default", retention_days: 30, created_at: "2026-04-13T11:00:00+00:00" }],
      }),
  },
  {
    name: "GET /workflows with every filter",
    call: (c) =>
      c.listWorkflows({
        status: "running",
        workflowType: "orders.process",
        query: "order 4",
        pageSize: 25,
        nextPageToken: "NTA=",
      }),
    method: "GET",
    url: "/api/workflows?status=running&workflow_type=orders.process&query=order+4&page_size=25&next_page_token=NTA%3D",
    fixture: "workflow-list",
    check: (r) =>
      expect(r).toMatchObject({
        workflow_count: 1,
        next_page_token: null,
        workflows: [{ workflow_id: "order-42", status: "waiting", status_bucket: "running", search_attributes: {} }],
        control_plane: { operation: "list" },
      }),
  },
  {
    name: "GET /workflows without filters sends no query",
    call: (c) => c.listWorkflows(),
    method: "GET",
    url: "/api/workflows",
    fixture: "workflow-list",
    check: (r) => expect(r).toMatchObject({ workflow_count: 1 }),
  },
  {
    name: "GET /workflows/{id}",
    call: (c) => c.describeWorkflow("wf-read-describe"),
    method: "GET",
    url: "/api/workflows/wf-read-describe",
    fixture: "workflow-describe",
    check: (r) =>
      expect(r).toMatchObject({
        run_id: RUN,
        status: "waiting",
        wait_kind: "signal",
        memo: {},
        last_progress_at: "2026-04-13T12:00:01+00:00",
        actions: { can_repair: true, can_archive: false },
      }),
  },
  {
    name: "GET /workflows/{id}/runs",
    call: (c) => c.listRuns(ID),
    method: "GET",
    url: "/api/workflows/order-42/runs",
    fixture: "workflow-runs",
    check: (r) =>
      expect(r).toMatchObject({
        run_count: 2,
        runs: [
          { run_number: 1, status: "completed" },
          { run_number: 2, closed_at: null },
        ],
      }),
  },
  {
    name: "GET /workflows/{id}/runs/{runId}",
    call: (c) => c.describeRun("wf-read-describe", RUN),
    method: "GET",
    url: `/api/workflows/wf-read-describe/runs/${RUN}`,
    fixture: "workflow-describe",
    check: (r) => expect(r).toMatchObject({ workflow_id: "wf-read-describe", run_number: 1 }),
  },
  {
    name: "GET /workflows/{id}/debug",
    call: (c) => c.debugWorkflow("wf-debug"),
    method: "GET",
    url: "/api/workflows/wf-debug/debug",
    fixture: "workflow-debug",
    check: (r) =>
      expect(r).toMatchObject({
        diagnostic_status: "pending_work",
        execution: {
          liveness_state: "workflow_task_leased",
          last_event: { sequence: 2, event_type: "WorkflowStarted" },
        },
        pending_workflow_tasks: [{ lease_owner: "debug-worker", status: "leased" }],
        recent_failures: [{ failure_category: "task_failure", non_retryable: false }],
        task_queue: { name: "debug-queue" },
      }),
  },
  {
    name: "GET /workflows/{id}/runs/{runId}/debug?include_last_event_payload=true",
    call: (c) => c.debugRun("wf-debug", "01jrvdbg0000000000000000aa", { includeLastEventPayload: true }),
    method: "GET",
    url: "/api/workflows/wf-debug/runs/01jrvdbg0000000000000000aa/debug?include_last_event_payload=true",
    fixture: "workflow-debug",
    check: (r) => expect(r).toMatchObject({ run_id: "01jrvdbg0000000000000000aa" }),
  },
  {
    name: "GET …/history with paging",
    call: (c) => c.getHistory(ID, RUN, { pageSize: 2, nextPageToken: historyTokenAfter(0) }),
    method: "GET",
    url: `/api/workflows/order-42/runs/${RUN}/history?page_size=2&next_page_token=MA%3D%3D`,
    fixture: "history-page",
    check: (r) =>
      expect(r).toMatchObject({
        next_page_token: "Mg==",
        events: [
          { sequence: 1, event_type: "StartAccepted", payload: { outcome: "started_new" } },
          { sequence: 2, event_type: "WorkflowStarted" },
        ],
      }),
  },
  {
    name: "GET …/history long-poll sends wait_new_event=1",
    call: (c) => c.getHistory(ID, RUN, { nextPageToken: "Mg==", waitNewEvent: true }),
    method: "GET",
    url: `/api/workflows/order-42/runs/${RUN}/history?next_page_token=Mg%3D%3D&wait_new_event=1`,
    fixture: "history-page",
    check: (r) => expect(r).toMatchObject({ run_id: RUN }),
  },
  {
    name: "GET …/history/export",
    call: (c) => c.exportHistory(ID, RUN),
    method: "GET",
    url: `/api/workflows/order-42/runs/${RUN}/history/export`,
    fixture: "history-export",
    check: (r) =>
      expect(r).toMatchObject({
        schema_version: 1,
        history_complete: true,
        workflow: { status: "failed", memo: {} },
        summary: { liveness_state: "closed", exception_count: 2 },
        activities: [{ attempt_count: 2, attempts: [{ attempt_number: 1, status: "failed" }, { attempt_number: 2 }] }],
        failures: [{ non_retryable: true, failure_category: "activity" }, { propagation_kind: "terminal" }],
        history_events: [{ type: "StartAccepted" }, { type: "ActivityRetryScheduled" }, { type: "ActivityFailed" }],
        integrity: { checksum_algorithm: "sha256" },
      }),
  },
  {
    name: "POST /workflows (start)",
    call: (c) =>
      c.startWorkflow({
        workflow_type: "orders.process",
        workflow_id: "order-43",
        input: ["order-43"],
        duplicate_policy: "fail",
      }),
    method: "POST",
    url: "/api/workflows",
    fixture: "start-workflow",
    status: 201,
    body: { workflow_type: "orders.process", workflow_id: "order-43", input: ["order-43"], duplicate_policy: "fail" },
    check: (r) =>
      expect(r).toMatchObject({
        kind: "accepted",
        httpStatus: 201,
        body: { outcome: "started_new", run_id: "01jrvrun0000000000000000st" },
      }),
  },
  {
    name: "POST …/cancel",
    call: (c) => c.cancelWorkflow(ID, { reason: "operator requested cancel", requestId: "req-1" }),
    method: "POST",
    url: "/api/workflows/order-42/cancel",
    fixture: "command-cancel",
    body: { reason: "operator requested cancel", request_id: "req-1" },
    check: (r) =>
      expect(r).toMatchObject({
        kind: "accepted",
        httpStatus: 200,
        body: { outcome: "cancelled", command_status: "accepted" },
      }),
  },
  {
    name: "POST …/runs/{runId}/terminate (run-targeted)",
    call: (c) => c.terminateWorkflow(ID, { runId: RUN, reason: "stuck" }),
    method: "POST",
    url: `/api/workflows/order-42/runs/${RUN}/terminate`,
    fixture: "command-cancel",
    body: { reason: "stuck" },
    check: (r) => expect(r).toMatchObject({ kind: "accepted" }),
  },
  {
    name: "POST …/repair",
    call: (c) => c.repairWorkflow("wf-control-plane-repair", { requestId: "req-repair-1" }),
    method: "POST",
    url: "/api/workflows/wf-control-plane-repair/repair",
    fixture: "command-repair",
    body: { request_id: "req-repair-1" },
    check: (r) =>
      expect(r).toMatchObject({
        kind: "accepted",
        body: {
          outcome: "repair_not_needed",
          command_id: "01jrvcmd0000000000000000rp",
          command_sequence: 2,
          validation_errors: {},
        },
      }),
  },
  {
    name: "POST …/repair without a body",
    call: (c) => c.repairWorkflow("wf-control-plane-repair"),
    method: "POST",
    url: "/api/workflows/wf-control-plane-repair/repair",
    fixture: "command-repair",
    body: undefined,
    check: (r) => expect(r).toMatchObject({ kind: "accepted" }),
  },
  {
    name: "POST …/archive (409 rejection is a result)",
    call: (c) => c.archiveWorkflow(ID, { reason: "cleanup" }),
    method: "POST",
    url: "/api/workflows/order-42/archive",
    fixture: "command-archive-rejected",
    status: 409,
    body: { reason: "cleanup" },
    check: (r) =>
      expect(r).toMatchObject({
        kind: "rejected",
        httpStatus: 409,
        body: { outcome: "rejected_run_not_closed", rejection_reason: "run_not_closed", command_status: "rejected" },
      }),
  },
  {
    name: "POST …/signal/{name}",
    call: (c) => c.signalWorkflow(ID, "approved", { input: [true], requestId: "req-sig" }),
    method: "POST",
    url: "/api/workflows/order-42/signal/approved",
    fixture: "command-signal",
    status: 202,
    body: { input: [true], request_id: "req-sig" },
    check: (r) =>
      expect(r).toMatchObject({
        kind: "accepted",
        httpStatus: 202,
        body: { outcome: "signal_received", signal_name: "approved" },
      }),
  },
  {
    name: "GET /system/operator-metrics",
    call: (c) => c.operatorMetrics(),
    method: "GET",
    url: "/api/system/operator-metrics",
    fixture: "operator-metrics",
    check: (r) =>
      expect(r).toMatchObject({
        namespace: "default",
        operator_metrics: {
          runs: { repair_needed: 1, max_repair_needed_age_ms: 118000 },
          activities: { retrying: 1, failed_attempts: 3 },
          backlog: { retrying_activities: 1 },
          sticky_execution: { hit_rate_last_minute: 0 },
        },
      }),
  },
  {
    name: "GET /system/metrics",
    call: (c) => c.systemMetrics(),
    method: "GET",
    url: "/api/system/metrics",
    fixture: "system-metrics",
    check: (r) =>
      expect(r).toMatchObject({
        metrics: {
          dw_workflow_task_consecutive_failures: {
            max_consecutive_failures: 3,
            by_workflow_type: [{ workflow_type: "orders.process" }, {}],
          },
          dw_projection_drift_total: { total: 0, scope: "server" },
        },
      }),
  },
  {
    name: "GET /system/repair",
    call: (c) => c.repairStatus(),
    method: "GET",
    url: "/api/system/repair",
    fixture: "system-repair",
    check: (r) =>
      expect(r).toMatchObject({
        policy: { redispatch_after_seconds: 3 },
        candidates: { total_candidates: 1, scopes: [{ queue: "order-workers", max_task_candidate_age_ms: 120000 }] },
      }),
  },
  {
    name: "POST /system/repair/pass",
    call: (c) => c.runRepairPass({ runIds: [RUN] }),
    method: "POST",
    url: "/api/system/repair/pass",
    fixture: "repair-pass",
    body: { run_ids: [RUN] },
    check: (r) =>
      expect(r).toMatchObject({
        httpStatus: 200,
        partial: false,
        report: { repaired_existing_tasks: 1, dispatched_tasks: 1 },
      }),
  },
  {
    name: "POST /system/repair/pass (207 partial)",
    call: (c) => c.runRepairPass(),
    method: "POST",
    url: "/api/system/repair/pass",
    fixture: "repair-pass-partial",
    status: 207,
    body: undefined,
    check: (r) =>
      expect(r).toMatchObject({
        httpStatus: 207,
        partial: true,
        report: { missing_run_failures: [{ message: "Run summary is stale." }] },
      }),
  },
  {
    name: "GET /system/activity-timeouts",
    call: (c) => c.activityTimeouts({ limit: 50 }),
    method: "GET",
    url: "/api/system/activity-timeouts?limit=50",
    fixture: "activity-timeouts",
    check: (r) =>
      expect(r).toEqual({ expired_count: 0, expired_execution_ids: [], scan_limit: 100, scan_pressure: false }),
  },
  {
    name: "POST /system/activity-timeouts/pass",
    call: (c) => c.runActivityTimeoutPass({ executionIds: ["01jrvact00000000000000000b"] }),
    method: "POST",
    url: "/api/system/activity-timeouts/pass",
    fixture: "activity-timeouts-pass",
    body: { execution_ids: ["01jrvact00000000000000000b"] },
    check: (r) =>
      expect(r).toMatchObject({
        partial: false,
        report: { enforced: 1, results: [{ outcome: "enforced", has_retry: true }, { outcome: "skipped" }] },
      }),
  },
  {
    name: "GET /workers",
    call: (c) => c.listWorkers({ taskQueue: "order-workers", status: "active" }),
    method: "GET",
    url: "/api/workers?task_queue=order-workers&status=active",
    fixture: "workers",
    check: (r) =>
      expect(r).toMatchObject({ workers: [{ worker_id: "worker-1", runtime: "python", status: "active" }] }),
  },
  {
    name: "GET /workers/{id}",
    call: (c) => c.getWorker("worker-1"),
    method: "GET",
    url: "/api/workers/worker-1",
    fixture: "worker",
    check: (r) => expect(r).toMatchObject({ worker_id: "worker-1", updated_at: "2026-04-13T12:00:00.000000Z" }),
  },
  {
    name: "GET /task-queues",
    call: (c) => c.listTaskQueues(),
    method: "GET",
    url: "/api/task-queues",
    fixture: "task-queues",
    check: (r) =>
      expect(r).toMatchObject({ task_queues: [{ name: "order-workers", stats: { approximate_backlog_count: 1 } }] }),
  },
  {
    name: "GET /task-queues/{name}",
    call: (c) => c.getTaskQueue("order-workers"),
    method: "GET",
    url: "/api/task-queues/order-workers",
    fixture: "task-queue",
    check: (r) =>
      expect(r).toMatchObject({
        pollers: [{ worker_id: "worker-1", is_stale: false }],
        current_leases: [{ task_type: "workflow", workflow_task_attempt: 1 }],
        admission: { query_tasks: { status: "accepting" } },
      }),
  },
];

function expectStandardHeaders(request: RecordedRequest, namespace: string) {
  expect(request.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  expect(request.headers.get("x-namespace")).toBe(namespace);
  expect(request.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
  expect(request.headers.get("accept-encoding")).toBe("gzip");
  expect(request.headers.get("accept")).toBe("application/json");
}

describe("createDwClient — every endpoint against recorded responses", () => {
  it.each(cases)("$name", async (c) => {
    const served = fixtureFetch({ status: c.status ?? 200, json: fixture(c.fixture) });
    const client = createDwClient({ baseUrl: `${BASE}/`, token: TOKEN, namespace: "default", fetch: served.fetch });

    const result = await c.call(client);

    expect(served.requests).toHaveLength(1);
    const request = served.requests[0]!;
    expect(request.method).toBe(c.method);
    expect(request.url).toBe(`${BASE}${c.url}`);
    expectStandardHeaders(request, "default");
    if (c.method === "POST") {
      expect(request.body).toEqual(c.body);
      expect(request.headers.get("content-type")).toBe(c.body === undefined ? null : "application/json");
    }
    c.check(result);
  });
});

describe("request shaping", () => {
  it("per-call namespace overrides the client default, and no token means no Authorization", async () => {
    const served = fixtureFetch({ json: fixture("workflow-list") });
    const client = createDwClient({ baseUrl: BASE, namespace: "default", fetch: served.fetch });
    await client.listWorkflows({}, { namespace: "billing" });
    expect(served.requests[0]!.headers.get("x-namespace")).toBe("billing");
    expect(served.requests[0]!.headers.has("authorization")).toBe(false);
  });

  it("URL-encodes ids containing '/', '%', '..', spaces and unicode as single path segments", async () => {
    const served = fixtureFetch({ json: fixture("workflow-describe") });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    await client.describeRun("a/b%c..d é🚀 x", "run/../1");
    expect(served.requests[0]!.url).toBe(
      `${BASE}/api/workflows/a%2Fb%25c..d%20%C3%A9%F0%9F%9A%80%20x/runs/run%2F..%2F1`,
    );
    // The encoded URL survives WHATWG parsing without segment collapsing.
    expect(new URL(served.requests[0]!.url).pathname.split("/")).toHaveLength(6);
  });

  it("encodes signal names and task-queue names too", async () => {
    const served = fixtureFetch((request) =>
      request.url.includes("/signal/")
        ? { status: 202, json: fixture("command-signal") }
        : { json: fixture("task-queue") },
    );
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    await client.signalWorkflow("order-42", "approve/now?");
    await client.getTaskQueue("queue #1");
    expect(served.requests.map((r) => r.url)).toEqual([
      `${BASE}/api/workflows/order-42/signal/approve%2Fnow%3F`,
      `${BASE}/api/task-queues/queue%20%231`,
    ]);
  });

  it.each([".", "..", ""])("refuses the unaddressable path id %j without sending anything", async (id) => {
    const served = fixtureFetch({ json: fixture("workflow-describe") });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    await expect(client.describeWorkflow(id)).rejects.toBeInstanceOf(DwInvalidArgumentError);
    expect(served.requests).toHaveLength(0);
  });

  it("supports an empty apiPrefix for a proxy that already maps /api", async () => {
    const served = fixtureFetch({ json: fixture("health") });
    const client = createDwClient({ baseUrl: "/bw/dw", apiPrefix: "", fetch: served.fetch });
    await client.health();
    expect(served.requests[0]!.url).toBe("/bw/dw/health");
  });

  it("historyTokenAfter builds the server's base64(sequence) cursor", () => {
    expect(historyTokenAfter(2)).toBe("Mg==");
    expect(historyTokenAfter(50)).toBe("NTA=");
  });

  it("historyResumeToken follows the server token, else rebuilds it from the last event, else keeps the old one", () => {
    const event = (sequence: number) => ({
      sequence,
      event_type: "TimerFired",
      timestamp: "2026-04-13T12:00:00.000000Z",
      payload: {},
    });
    expect(historyResumeToken({ events: [event(1), event(2)], next_page_token: "Mg==" }, null)).toBe("Mg==");
    expect(historyResumeToken({ events: [event(7)], next_page_token: null }, "Ng==")).toBe(historyTokenAfter(7));
    expect(historyResumeToken({ events: [], next_page_token: null }, "Nw==")).toBe("Nw==");
    expect(historyResumeToken({ events: [], next_page_token: null }, null)).toBeNull();
  });

  it("tails a run: long-poll pages resume from the right cursor", async () => {
    const pages = [
      { ...(fixture("history-page") as Record<string, unknown>), next_page_token: null },
      { ...(fixture("history-page") as Record<string, unknown>), events: [], next_page_token: null },
    ];
    const served = fixtureFetch(() => ({ json: pages.shift() }));
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    let token: string | null = null;
    for (let i = 0; i < 2; i += 1) {
      const page = await client.getHistory(ID, RUN, { nextPageToken: token, waitNewEvent: true });
      token = historyResumeToken(page, token);
    }
    expect(served.requests.map((r) => new URL(r.url).searchParams.get("next_page_token"))).toEqual([null, "Mg=="]);
    expect(token).toBe("Mg==");
  });
});

describe("gzip over real HTTP", () => {
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
  });

  it("asks for gzip and reads a gzip-encoded body through the platform fetch", async () => {
    const seen: { encoding?: string; version?: string } = {};
    const server = createServer((req, res) => {
      seen.encoding = req.headers["accept-encoding"];
      seen.version = req.headers["x-durable-workflow-control-plane-version"] as string | undefined;
      const body = gzipSync(JSON.stringify(fixture("operator-metrics")));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip", Vary: "Accept-Encoding" });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;

    const client = createDwClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    const metrics = await client.operatorMetrics();

    expect(seen).toEqual({ encoding: "gzip", version: "2" });
    expect(metrics.operator_metrics.runs.total).toBe(120);
  });
});
