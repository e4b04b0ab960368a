import { describe, expect, it } from "vitest";
import { createDwClient, queryWorkflow } from "./client";
import { ENDPOINTS, endpointKey, endpointPath, matchEndpoint } from "./endpoints";
import type { EndpointName } from "./endpoints";
import { DwInvalidArgumentError } from "./errors";
import { fixture, fixtureFetch } from "./fixtures/fixture-fetch";

const NAMES = Object.keys(ENDPOINTS) as EndpointName[];
const SAMPLE = {
  workflowId: "a b/c",
  runId: "r-1",
  queryName: "stage",
  namespace: "n",
  workerId: "w",
  name: "q",
  scheduleId: "nightly/1",
};

describe("the endpoint table", () => {
  it.each(NAMES)("%s: its own path matches it and no other entry, params decoded back", (name) => {
    const segments = endpointPath(name, SAMPLE, encodeURIComponent).split("/").slice(1).map(decodeURIComponent);
    const match = matchEndpoint(ENDPOINTS[name].method, segments);
    expect(match?.name).toBe(name);
    for (const [param, value] of Object.entries(match?.params ?? {})) expect(value).toBe(SAMPLE[param as "runId"]);
  });

  it("matches nothing with an empty, `.` or `..` segment, nor with another method", () => {
    expect(matchEndpoint("GET", ["workflows", ".."])).toBeNull();
    expect(matchEndpoint("GET", ["workflows", "."])).toBeNull();
    expect(matchEndpoint("GET", ["workflows", ""])).toBeNull();
    expect(matchEndpoint("DELETE", ["workers", "w-1"])).toBeNull();
    expect(matchEndpoint("POST", ["workflows", "a", "debug"])).toBeNull();
  });

  it("fills query keys from the params, so one run's keys share the prefix an action invalidates", () => {
    expect(endpointKey("describeRun", { workflowId: "w", runId: "r" })).toEqual(["run", "w", "r", "describe"]);
    expect(endpointKey("getTaskQueue", { name: "orders" })).toEqual(["task-queue", "orders"]);
  });

  it("declares both workflow queries as POSTs that read, with a request schema, for any viewer's query", () => {
    for (const name of ["queryWorkflow", "queryRun"] as const) {
      expect(ENDPOINTS[name]).toMatchObject({ method: "POST", request: "workflowQuery", proxy: "validated" });
    }
  });
});

describe("the client's reads come from the table", () => {
  it("reads any GET entry by name, ids encoded as one segment each", async () => {
    const recorded = fixtureFetch({ json: fixture("task-queue") });
    const client = createDwClient({ baseUrl: "http://dw.test", fetch: recorded.fetch, namespace: "n" });
    const queue = await client.read("getTaskQueue", { name: "orders/eu" }, { limit: 5 });
    expect(queue).toMatchObject(fixture("task-queue") as object);
    expect(recorded.requests.map((r) => [r.method, r.url])).toEqual([
      ["GET", "http://dw.test/api/task-queues/orders%2Feu?limit=5"],
    ]);
  });

  it("sends a query as a POST to the workflow, or to the run when one is named, and decodes the answer", async () => {
    const recorded = fixtureFetch({ json: fixture("query-answered") });
    const client = createDwClient({ baseUrl: "http://dw.test", fetch: recorded.fetch, namespace: "n" });
    expect(await queryWorkflow(client, "order-42", "stage")).toMatchObject({ result: { stage: "charging" } });
    await queryWorkflow(client, "order-42", "stage", { runId: "r-1", input: ["eu"] });
    expect(recorded.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "http://dw.test/api/workflows/order-42/query/stage", undefined],
      ["POST", "http://dw.test/api/workflows/order-42/runs/r-1/query/stage", { input: ["eu"] }],
    ]);
  });

  it("turns a refused query into a typed error, and refuses an id that cannot be a segment", async () => {
    const refused = fixtureFetch({ status: 409, json: fixture("query-failed") });
    const client = createDwClient({ baseUrl: "http://dw.test", fetch: refused.fetch });
    await expect(queryWorkflow(client, "order-42", "stage")).rejects.toMatchObject({
      httpStatus: 409,
      serverReason: "query_rejected",
    });
    await expect(queryWorkflow(client, "..", "stage")).rejects.toBeInstanceOf(DwInvalidArgumentError);
  });
});
