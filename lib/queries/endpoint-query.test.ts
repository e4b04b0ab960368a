import { describe, expect, it } from "vitest";
import { healthProbeQuery } from "@/lib/queries/connection";
import { endpointQueryKey } from "@/lib/queries/endpoint-query";
import { taskQueueQuery, taskQueuesQuery, workersQuery } from "@/lib/queries/fleet";
import { runKey } from "@/lib/queries/keys";
import { operatorMetricsQuery } from "@/lib/queries/metrics";
import { runDebugQuery, runDescribeQuery, runHistoryHeadQuery } from "@/lib/queries/run";
import { activityTimeoutsQuery, repairStatusQuery, systemKey } from "@/lib/queries/system";
import { workflowRunsQuery } from "@/lib/queries/workflow-runs";

/**
 * The factories built from the endpoint table keep the keys every invalidation and server seed
 * aims at (lib/queries/invalidate.ts, lib/server/pages/query-seeds.ts) and the refresh each screen had.
 */
describe("queries from the endpoint table", () => {
  it("keep their keys under the prefixes the invalidations use", () => {
    const run = runKey("ns", "wf", "r");
    expect(runDescribeQuery("ns", "wf", "r").queryKey).toEqual([...run, "describe"]);
    expect(runDebugQuery("ns", "wf", "r", true).queryKey).toEqual([...run, "debug"]);
    expect(runHistoryHeadQuery("ns", "wf", "r").queryKey).toEqual([...run, "history-head"]);
    expect(repairStatusQuery("ns").queryKey).toEqual([...systemKey("ns"), "repair"]);
    expect(activityTimeoutsQuery("ns").queryKey).toEqual([...systemKey("ns"), "activity-timeouts"]);
    expect(workersQuery("ns").queryKey).toEqual(["ns", "ns", "workers"]);
    expect(taskQueuesQuery("ns").queryKey).toEqual(["ns", "ns", "task-queues"]);
    expect(taskQueueQuery("ns", "q").queryKey).toEqual(["ns", "ns", "task-queue", "q"]);
    expect(operatorMetricsQuery("ns").queryKey).toEqual(["ns", "ns", "operator-metrics"]);
    expect(workflowRunsQuery("ns", "wf", true).queryKey).toEqual(["ns", "ns", "workflow-runs", "wf"]);
  });

  it("give the server render's seeds the key of the browser's query, server-wide reads under the server", () => {
    expect(endpointQueryKey("ns", "listRuns", { workflowId: "wf" })).toEqual(
      workflowRunsQuery("ns", "wf", false).queryKey,
    );
    expect(endpointQueryKey("ns", "operatorMetrics", {})).toEqual(operatorMetricsQuery("ns").queryKey);
    expect(endpointQueryKey("ns", "health", {})).toEqual(healthProbeQuery().queryKey);
  });

  it("keep each screen's refresh", () => {
    expect(workersQuery("ns").refetchInterval).toBe(5_000);
    expect(workersQuery("ns", 10_000).refetchInterval).toBe(10_000);
    expect(taskQueueQuery("ns", "q").refetchInterval).toBe(5_000);
    expect(repairStatusQuery("ns").refetchInterval).toBe(5_000);
    expect(operatorMetricsQuery("ns").refetchInterval).toBe(5_000);
    expect(runHistoryHeadQuery("ns", "wf", "r").refetchInterval).toBe(10_000);
    expect(runDebugQuery("ns", "wf", "r", false).refetchInterval).toBe(false);
    expect(workflowRunsQuery("ns", "wf", true).refetchInterval).toBe(30_000);
    expect(workflowRunsQuery("ns", "wf", false).refetchInterval).toBe(false);
  });
});
