import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { attentionScanQuery } from "@/lib/queries/attention";
import { isSeedFailure, SEED_FAILED } from "@/lib/queries/seed-failure";
import { actionContextQuery, healthProbeQuery, namespacesQuery } from "@/lib/queries/connection";
import { taskQueueQuery, taskQueuesQuery, workersQuery } from "@/lib/queries/fleet";
import {
  invalidateAfterBulkRepair,
  invalidateAfterRunAction,
  invalidateAfterSystemPass,
} from "@/lib/queries/invalidate";
import { clusterInfoQuery, operatorMetricsQuery } from "@/lib/queries/metrics";
import { runDebugQuery, runDescribeQuery, runHistoryHeadQuery } from "@/lib/queries/run";
import { runViewExtrasQuery } from "@/lib/run-view/stream";
import { runViewQuery } from "@/lib/run-view/store";
import { runsListQuery, runsListRequest } from "@/lib/queries/runs";
import { workflowRunsQuery } from "@/lib/queries/workflow-runs";
import type { RunsListFilter } from "@/lib/queries/runs";
import { activityTimeoutsQuery, repairStatusQuery } from "@/lib/queries/system";

const filter: RunsListFilter = { status: "failed", workflowType: "Order", search: "", pageSize: 50, cursor: null };

/** Every namespaced factory, for one namespace. */
const namespaced = (ns: string) => ({
  runsList: runsListQuery(ns, filter).queryKey,
  workflowRuns: workflowRunsQuery(ns, "wf", true).queryKey,
  describe: runDescribeQuery(ns, "wf", "run").queryKey,
  debug: runDebugQuery(ns, "wf", "run", true).queryKey,
  view: runViewQuery(ns, "wf", "run").queryKey,
  viewExtras: runViewExtrasQuery(ns, "wf", "run", true).queryKey,
  historyHead: runHistoryHeadQuery(ns, "wf", "run").queryKey,
  workers: workersQuery(ns).queryKey,
  taskQueues: taskQueuesQuery(ns).queryKey,
  taskQueue: taskQueueQuery(ns, "q").queryKey,
  metrics: operatorMetricsQuery(ns).queryKey,
  clusterInfo: clusterInfoQuery(ns).queryKey,
  repair: repairStatusQuery(ns).queryKey,
  timeouts: activityTimeoutsQuery(ns).queryKey,
  attention: attentionScanQuery(ns, () => undefined).queryKey,
});

describe("query keys", () => {
  it("start with the namespace for every namespaced resource", () => {
    for (const [name, key] of Object.entries(namespaced("billing")))
      expect(key.slice(0, 2), name).toEqual(["ns", "billing"]);
  });

  it("differ between namespaces and between resources", () => {
    const a = Object.values(namespaced("a")).map((key) => JSON.stringify(key));
    const b = Object.values(namespaced("b")).map((key) => JSON.stringify(key));
    expect(new Set([...a, ...b]).size).toBe(a.length + b.length);
  });

  it("differ per parameter: run, workflow, queue and list filters", () => {
    const key = (value: readonly unknown[]) => JSON.stringify(value);
    expect(key(runDescribeQuery("a", "wf", "r1").queryKey)).not.toBe(key(runDescribeQuery("a", "wf", "r2").queryKey));
    expect(key(runDescribeQuery("a", "w1", "r").queryKey)).not.toBe(key(runDescribeQuery("a", "w2", "r").queryKey));
    expect(key(taskQueueQuery("a", "q1").queryKey)).not.toBe(key(taskQueueQuery("a", "q2").queryKey));
    for (const change of [{ status: "all" }, { workflowType: "x" }, { search: "s" }, { pageSize: 25 }, { cursor: "c" }])
      expect(key(runsListQuery("a", { ...filter, ...change } as RunsListFilter).queryKey)).not.toBe(
        key(runsListQuery("a", filter).queryKey),
      );
  });

  it("keep the server-wide reads apart from every namespace", () => {
    for (const key of [healthProbeQuery().queryKey, namespacesQuery().queryKey, actionContextQuery().queryKey])
      expect(key[0]).toBe("server");
  });
});

describe("refresh policy", () => {
  it("stops refreshing a closed run and keeps an open one live", () => {
    expect(runDebugQuery("a", "wf", "r", true).refetchInterval).toBeGreaterThan(0);
    expect(runDebugQuery("a", "wf", "r", false).refetchInterval).toBe(false);
    expect(runViewExtrasQuery("a", "wf", "r", false).staleTime).toBe(Infinity);
    expect(workflowRunsQuery("a", "wf", false).refetchInterval).toBe(false);
  });

  it("lets a screen that only counts workers ask less often", () => {
    expect(workersQuery("a", 10_000).refetchInterval).toBe(10_000);
    expect(workersQuery("a").refetchInterval).toBe(5_000);
  });
});

describe("runsListRequest", () => {
  it("is the server request of the URL's filters, with defaults left out", () => {
    expect(runsListRequest(filter)).toEqual({
      status: "failed",
      workflowType: "Order",
      query: undefined,
      pageSize: 50,
      nextPageToken: null,
    });
    expect(runsListRequest({ ...filter, status: "all", search: "42", cursor: "t" })).toMatchObject({
      status: undefined,
      query: "42",
      nextPageToken: "t",
    });
  });
});

/** A cache holding one of every namespaced query in two namespaces; returns the keys left valid. */
function seeded() {
  const client = new QueryClient();
  for (const ns of ["a", "b"])
    for (const key of Object.values(namespaced(ns))) client.setQueryData(key as readonly unknown[], { seeded: true });
  client.setQueryData([...runDescribeQuery("a", "wf", "other").queryKey] as readonly unknown[], { seeded: true });
  const fresh = () =>
    client
      .getQueryCache()
      .getAll()
      .filter((query) => !query.state.isInvalidated)
      .map((query) => JSON.stringify(query.queryKey));
  return { client, fresh };
}

const json = (key: readonly unknown[]) => JSON.stringify(key);

describe("targeted invalidation", () => {
  it("after a run action: that run, its workflow's runs and the runs lists of its namespace, nothing else", async () => {
    const { client, fresh } = seeded();
    await invalidateAfterRunAction(client, "a", { workflowId: "wf", runId: "run" });
    const left = fresh();
    const a = namespaced("a");
    for (const key of [a.describe, a.debug, a.view, a.viewExtras, a.historyHead, a.runsList, a.workflowRuns])
      expect(left).not.toContain(json(key));
    for (const key of [a.workers, a.metrics, a.repair, a.attention, runDescribeQuery("a", "wf", "other").queryKey])
      expect(left).toContain(json(key));
    for (const key of Object.values(namespaced("b"))) expect(left).toContain(json(key));
  });

  it("after a bulk repair: the repaired runs, the runs lists and the attention scan of that namespace", async () => {
    const { client, fresh } = seeded();
    await invalidateAfterBulkRepair(client, "a", [{ workflowId: "wf", runId: "run" }]);
    const left = fresh();
    const a = namespaced("a");
    for (const key of [a.describe, a.debug, a.runsList, a.attention]) expect(left).not.toContain(json(key));
    for (const key of [a.workers, a.repair, runDescribeQuery("a", "wf", "other").queryKey])
      expect(left).toContain(json(key));
    expect(left).toContain(json(namespaced("b").attention));
  });

  it("after a system pass: the System reads, runs and scan of that namespace, not its fleet or another namespace", async () => {
    const { client, fresh } = seeded();
    await invalidateAfterSystemPass(client, "a");
    const left = fresh();
    const a = namespaced("a");
    for (const key of [a.repair, a.timeouts, a.runsList, a.describe, a.attention])
      expect(left).not.toContain(json(key));
    for (const key of [a.workers, a.taskQueues, a.metrics]) expect(left).toContain(json(key));
    for (const key of Object.values(namespaced("b"))) expect(left).toContain(json(key));
  });
});

describe("seed failures", () => {
  it("tell the marker of a failed server read from any answer", () => {
    expect(isSeedFailure(SEED_FAILED)).toBe(true);
    expect(isSeedFailure(JSON.parse(JSON.stringify(SEED_FAILED)))).toBe(true);
    for (const answer of [null, [], "failed", { namespaces: [] }, { breakwaterSeed: "ok" }])
      expect(isSeedFailure(answer)).toBe(false);
  });
});
