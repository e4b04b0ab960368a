import { describe, expect, it } from "vitest";
import { failedExecutionEvents } from "./events";
import { historyEventListSchema } from "./schemas";

/** kiki-fatal's outbox as the real engine answered it (payload keys as recorded; trace shortened). */
const events = historyEventListSchema.parse([
  {
    id: "e1",
    eventType: "FLOW_NODE_FINISHED",
    payload: { flowNodeDefinitionId: "START", nodeExecutionStatus: "SUCCESS", errorType: null, errorStackTrace: null },
  },
  { id: "e2", eventType: "PROCESS_INSTANCE_STARTED", payload: {} },
  {
    id: "e3",
    eventType: "FLOW_NODE_FINISHED",
    timestamp: "2026-12-03T12:12:40.100Z",
    payload: {
      flowNodeDefinitionId: "POST_LEDGER",
      flowNodeType: "EXECUTABLE_TASK",
      nodeExecutionStatus: "ERROR",
      finishedAt: "2026-12-03T12:12:40.090Z",
      errorType: "io.breakwater.kikwiflowhost.handlers.LedgerCorruptedException",
      errorMessage: "Ledger entry checksum mismatch",
      errorStackTrace:
        "io.breakwater.kikwiflowhost.handlers.LedgerCorruptedException: Ledger entry checksum mismatch\n\tat x.y(Z.java:1)",
    },
  },
  // A reshaped payload from a newer engine is skipped, not a failure.
  { id: "e4", eventType: "FLOW_NODE_FINISHED", payload: { nodeExecutionStatus: "ERROR", errorStackTrace: 42 } },
  { id: "e5", eventType: "INCIDENT_CREATED", payload: { incidentId: "i1", type: "FAILED_JOB" } },
]);

describe("failed executions from the outbox", () => {
  it("keeps FLOW_NODE_FINISHED events with status ERROR, with their exception and stack trace", () => {
    const failed = failedExecutionEvents(events);
    expect(failed.map((f) => f.event.id)).toEqual(["e3"]);
    expect(failed[0]?.payload).toMatchObject({
      flowNodeDefinitionId: "POST_LEDGER",
      errorMessage: "Ledger entry checksum mismatch",
      errorStackTrace: expect.stringContaining("\tat x.y(Z.java:1)"),
    });
  });
});
