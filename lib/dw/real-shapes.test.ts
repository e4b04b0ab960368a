import { describe, expect, it } from "vitest";
import { REAL_ENDPOINTS, REAL_VERSIONS, goldenCases, realFixture } from "@/contracts/fixtures/load";
import type { RealEndpoint, RealVersion } from "@/contracts/fixtures/load";
import { SCHEMA_DECODERS, createDwClient } from "./client";
import type { DwCommandClient } from "./client";
import { decodeBlob, payloadValueToJson } from "./codec";
import { fixtureFetch } from "./fixtures/fixture-fetch";

/**
 * The console's decoders on answers in the real server's shapes, April 2026 and current
 * (contracts/fixtures/NOTES.md names the PHP each follows). Every call goes through the real client
 * over an injected fetch, so the path, the status handling and the zod decoder are all exercised.
 */

function clientFor(version: RealVersion, endpoint: RealEndpoint): DwCommandClient {
  const { fetch } = fixtureFetch({ json: realFixture(version, endpoint) });
  return createDwClient({ baseUrl: "http://127.0.0.1:9", fetch });
}

const CALLS: Record<RealEndpoint, (client: DwCommandClient) => Promise<unknown>> = {
  health: (c) => c.health(),
  ready: (c) => c.ready(),
  "cluster-info": (c) => c.clusterInfo(),
  namespaces: (c) => c.listNamespaces(),
  "workflows-list": (c) => c.listWorkflows(),
  describe: (c) => c.describeWorkflow("order-42"),
  runs: (c) => c.listRuns("order-42"),
  debug: (c) => c.debugWorkflow("order-42"),
  "history-page": (c) => c.getHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za"),
  "history-export": (c) => c.exportHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za"),
  "operator-metrics": (c) => c.operatorMetrics(),
  "system-repair": (c) => c.repairStatus(),
  "activity-timeouts": (c) => c.activityTimeouts(),
  workers: (c) => c.listWorkers(),
  "task-queues": (c) => c.listTaskQueues(),
  "task-queue": (c) => c.getTaskQueue("orders"),
  start: async (c) => (await c.startWorkflow({ workflow_type: "orders.process" })).body,
  "command-cancel": async (c) => (await c.cancelWorkflow("order-42")).body,
  "command-signal": async (c) => (await c.signalWorkflow("order-42", "approved")).body,
};

describe.each(REAL_VERSIONS)("real %s answers", (version) => {
  it.each(REAL_ENDPOINTS)("%s decodes", async (endpoint) => {
    await expect(CALLS[endpoint](clientFor(version, endpoint))).resolves.toBeTypeOf("object");
  });

  it("the export's timeline entry for a retried attempt carries failure.handled = null and id = null, and the bundle still decodes", async () => {
    const raw = realFixture(version, "history-export");
    const retry = (raw.timeline as { type: string; failure: Record<string, unknown> | null }[]).find(
      (entry) => entry.type === "ActivityRetryScheduled",
    );
    expect(retry?.failure).toMatchObject({ handled: null, id: null });
    const bundle = await clientFor(version, "history-export").exportHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za");
    expect(bundle.history_events.map((event) => event.type)).toContain("ActivityRetryScheduled");
  });

  it("export attempt rows with attempt_number and status null decode", async () => {
    const bundle = await clientFor(version, "history-export").exportHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za");
    const attempts = bundle.activities?.[0]?.attempts ?? [];
    expect(attempts.map((attempt) => [attempt.attempt_number ?? null, attempt.status ?? null])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [null, null],
    ]);
  });

  it("a failure's integer code survives in the history payload", async () => {
    const bundle = await clientFor(version, "history-export").exportHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za");
    const retry = bundle.history_events.find((event) => event.type === "ActivityRetryScheduled");
    expect(retry?.payload.code).toBe(504);
  });

  it("describe keeps a JSON-list memo as a list", async () => {
    const run = await clientFor(version, "describe").describeWorkflow("order-42");
    expect(run.memo).toEqual(["priority", "vip"]);
  });

  it("the export's Avro payloads decode to the values the golden histories record", async () => {
    const bundle = await clientFor(version, "history-export").exportHistory("order-42", "01jrv0k8d3m6y0x7q9c2n4b5za");
    const args = bundle.payloads.arguments?.data;
    expect(typeof args).toBe("string");
    const decoded = decodeBlob("avro", args as string);
    expect(decoded.decodable && payloadValueToJson(decoded.value)).toEqual(["alice"]);
  });
});

describe("what differs between the versions", () => {
  it("only the current engine reports history_fan_out and history_budget_pressure; neither reports repair_blocked_reason", async () => {
    const april = await clientFor("2026-04", "history-export").exportHistory("w", "r");
    const current = await clientFor("2026-08", "history-export").exportHistory("w", "r");
    expect(april.summary).not.toHaveProperty("history_fan_out");
    expect(april.summary).not.toHaveProperty("history_budget_pressure");
    expect(current.summary).toMatchObject({ history_fan_out: 1, history_budget_pressure: "ok" });
    for (const bundle of [april, current]) expect(bundle.summary).not.toHaveProperty("repair_blocked_reason");
  });

  it("cluster/info advertises the worker protocol and the long-poll timeout the console follows", async () => {
    const april = await clientFor("2026-04", "cluster-info").clusterInfo();
    const current = await clientFor("2026-08", "cluster-info").clusterInfo();
    expect(april.worker_protocol?.version).toBe("1.0");
    expect(current.worker_protocol?.version).toBe("1.15");
    expect(april.worker_protocol?.server_capabilities?.long_poll_timeout).toBe(30);
    expect(current.worker_protocol?.server_capabilities?.long_poll_timeout).toBe(60);
  });
});

describe("golden histories of the official repositories", () => {
  const cases = goldenCases();

  it("are all there (sdk-python and the PHP engine)", () => {
    expect(cases.filter((c) => c.runtime === "sdk-python").length).toBeGreaterThanOrEqual(9);
    expect(cases.filter((c) => c.runtime === "workflow-php").length).toBeGreaterThanOrEqual(4);
  });

  it.each(cases.map((c) => [c.id, c] as const))("%s decodes as a history page", (_id, golden) => {
    const page = {
      workflow_id: "golden",
      run_id: "golden-run",
      // The recorded files carry no timestamps: the real history endpoint then sends `timestamp: null`.
      events: golden.history.map((event, index) => ({
        sequence: index + 1,
        event_type: event.event_type,
        timestamp: null,
        payload: event.payload,
      })),
      next_page_token: null,
      control_plane: { operation: "history" },
    };
    const decoded = SCHEMA_DECODERS.historyPage(page);
    expect(decoded.ok).toBe(true);
  });

  it.each(cases.filter((c) => c.payloadCodec === "avro").map((c) => [c.id, c] as const))(
    "%s: every Avro blob in it decodes",
    (_id, golden) => {
      const blobs = golden.history.flatMap((event) =>
        ["result", "arguments"]
          .map((key) => event.payload[key])
          .filter((value): value is string => typeof value === "string"),
      );
      for (const blob of blobs)
        expect(decodeBlob("avro", blob)).toMatchObject({ decodable: true, framing: "avro-single-object" });
    },
  );

  it("the single-activity golden run's activity result is the workflow's recorded result", () => {
    const golden = cases.find((c) => c.id === "sdk-python/python-sdk-2.0.0-rc.30-avro.json#single_activity_completion");
    const completed = golden?.history.find((event) => event.event_type === "ActivityCompleted");
    const decoded = decodeBlob("avro", completed?.payload.result as string);
    expect(golden?.expectedResult).toBe("hello Ada");
    expect(decoded.decodable && payloadValueToJson(decoded.value)).toBe("hello Ada");
  });
});
