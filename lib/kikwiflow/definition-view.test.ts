import { describe, expect, it } from "vitest";
import { definitionSummaries, mergeCounts, nodesInFlowOrder, processCounts, pulseCounts } from "./definition-view";
import { processDefinitionSchema, pulseSnapshotSchema } from "./schemas";

const edge = (targetNodeId: string) => ({ id: `to-${targetNodeId}`, targetNodeId, isDefault: false });

/** kiki-fatal as GET /process-definitions answers it (map order is the engine's hash order, not flow order). */
const fatal = processDefinitionSchema.parse({
  id: "69440164-2025-4169-afd5-f5aba2dee0e9",
  key: "kiki-fatal",
  name: "Post ledger entry (fatal exception)",
  version: 1,
  defaultStartPoint: "START",
  flowNodes: {
    END: { id: "END", name: "End", type: "DEFAULT_END_EVENT", outgoing: [] },
    POST_LEDGER: {
      id: "POST_LEDGER",
      name: "Post ledger entry",
      type: "EXECUTABLE_TASK",
      outgoing: [edge("REVIEW")],
      boundaryEventIds: null,
      layout: { x: 260.0, y: 186.0 },
      retryPolicy: { strategy: "LINEAR", maxRetries: 5, intervals: ["PT0.3S"] },
    },
    REVIEW: { id: "REVIEW", name: "Operator review", type: "EXTERNAL_TASK", outgoing: [edge("END")] },
    START: { id: "START", name: "Start", type: "DEFAULT_START_EVENT", outgoing: [edge("POST_LEDGER")] },
  },
});

describe("definition views", () => {
  it("lists definitions by key, newest version first, with their node counts", () => {
    const older = { ...fatal, id: "old", version: 0 };
    const other = { id: "x", key: "a-first", version: 3, name: null, flowNodes: {} };
    expect(definitionSummaries([older, fatal, other])).toEqual([
      { id: "x", key: "a-first", name: null, version: 3, nodeCount: 0 },
      { id: fatal.id, key: "kiki-fatal", name: fatal.name, version: 1, nodeCount: 4 },
      { id: "old", key: "kiki-fatal", name: fatal.name, version: 0, nodeCount: 4 },
    ]);
  });

  it("orders nodes along the flow from the default start point, with targets and retry policy", () => {
    const rows = nodesInFlowOrder(fatal);
    expect(rows.map((r) => r.id)).toEqual(["START", "POST_LEDGER", "REVIEW", "END"]);
    expect(rows[1]).toMatchObject({
      type: "EXECUTABLE_TASK",
      targets: ["REVIEW"],
      taskLike: true,
      reachable: true,
      retryPolicy: { strategy: "LINEAR", maxRetries: 5 },
    });
    expect(rows[0]).toMatchObject({ taskLike: false, retryPolicy: null });
    expect(rows[2]?.taskLike).toBe(true);
  });

  it("puts boundary events after their task, a gateway's branches in edge order, unreached nodes last", () => {
    const rows = nodesInFlowOrder({
      defaultStartPoint: null,
      flowNodes: {
        Z_ORPHAN: { id: "Z_ORPHAN", type: "EXECUTABLE_TASK" },
        S: { id: "S", type: "DEFAULT_START_EVENT", outgoing: [edge("T")] },
        T: { id: "T", type: "EXECUTABLE_TASK", boundaryEventIds: ["ERR"], outgoing: [edge("G")] },
        ERR: { id: "ERR", type: "BOUNDARY_ERROR_HANDLER", outgoing: [edge("E")] },
        G: { id: "G", type: "EXCLUSIVE_GATEWAY", outgoing: [edge("B"), edge("A")] },
        A: { id: "A", type: "EXTERNAL_TASK", outgoing: [edge("E")] },
        B: { id: "B", type: "EXTERNAL_TASK", outgoing: [edge("G")] },
        E: { id: "E", type: "DEFAULT_END_EVENT" },
      },
    });
    expect(rows.map((r) => r.id)).toEqual(["S", "T", "ERR", "G", "E", "B", "A", "Z_ORPHAN"]);
    expect(rows.at(-1)?.reachable).toBe(false);
    expect(rows.find((r) => r.id === "G")?.targets).toEqual(["B", "A"]);
  });

  it("merges the frame's running / fail / sla onto task-like rows only", () => {
    const frame = pulseSnapshotSchema.parse({
      id: fatal.id,
      metrics: { running: 2, sla: 100.0, fail: 1 },
      flowNodes: {
        POST_LEDGER: { id: "POST_LEDGER", type: "EXECUTABLE_TASK", metrics: { running: 2, sla: 100.0, fail: 1 } },
        REVIEW: { id: "REVIEW", type: "EXTERNAL_TASK", metrics: { running: 0, sla: null, fail: 0 } },
        START: { id: "START", type: "DEFAULT_START_EVENT" },
      },
    });
    const counts = pulseCounts(frame);
    expect(counts).toEqual({
      POST_LEDGER: { running: 2, failed: 1, sla: 100 },
      REVIEW: { running: 0, failed: 0, sla: null },
    });
    const merged = mergeCounts(nodesInFlowOrder(fatal), counts);
    expect(merged.map((r) => r.counts)).toEqual([null, counts.POST_LEDGER, counts.REVIEW, null]);
    expect(mergeCounts(nodesInFlowOrder(fatal), null).every((r) => r.counts === null)).toBe(true);
    expect(processCounts(frame)).toEqual({ running: 2, failed: 1, sla: 100 });
    expect(processCounts({ metrics: null })).toBeNull();
  });
});
