import { describe, expect, it } from "vitest";
import { HistoryBuffer } from "@/components/run-detail/history-buffer";

const at = (second: number) => `2026-04-13T12:00:${String(second).padStart(2, "0")}.000000Z`;

describe("HistoryBuffer", () => {
  it("keeps one row per sequence whatever order and overlap pages arrive in", () => {
    const buffer = new HistoryBuffer();
    expect(buffer.add([{ sequence: 3, event_type: "ActivityStarted", timestamp: at(3), payload: {} }])).toBe(1);
    expect(
      buffer.add([
        { sequence: 1, event_type: "WorkflowStarted", timestamp: at(1), payload: [] },
        { sequence: 2, event_type: "ActivityScheduled", timestamp: at(2), payload: {} },
        { sequence: 3, event_type: "ActivityStarted", timestamp: at(3), payload: {} },
      ]),
    ).toBe(2);
    expect(buffer.events().map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(buffer.lastSequence).toBe(3);
    expect(buffer.eventTypes()).toEqual(["ActivityScheduled", "ActivityStarted", "WorkflowStarted"]);
  });

  it("filters by type and by failures, retried attempts included", () => {
    const buffer = new HistoryBuffer();
    buffer.add([
      { sequence: 1, event_type: "WorkflowStarted", timestamp: at(1), payload: {} },
      {
        sequence: 2,
        event_type: "ActivityRetryScheduled",
        timestamp: at(2),
        payload: { activity_execution_id: "a", message: "busy" },
      },
      {
        sequence: 3,
        event_type: "ActivityFailed",
        timestamp: at(3),
        payload: { activity_execution_id: "a", failure_id: "f", non_retryable: true },
      },
      { sequence: 4, event_type: "ActivityCompleted", timestamp: at(4), payload: { activity_execution_id: "b" } },
    ]);
    expect(buffer.filter([], true).map((e) => e.sequence)).toEqual([2, 3]);
    expect(buffer.filter(["ActivityCompleted", "WorkflowStarted"], false).map((e) => e.sequence)).toEqual([1, 4]);
    expect(buffer.filter(["ActivityCompleted"], true)).toEqual([]);
  });

  it("holds 50,000 events and filters them quickly", () => {
    const buffer = new HistoryBuffer();
    const page = Array.from({ length: 50_000 }, (_, i) => ({
      sequence: i + 1,
      event_type: i % 100 === 0 ? "ActivityRetryScheduled" : "ActivityHeartbeatRecorded",
      timestamp: at(i % 60),
      payload: { activity_execution_id: "a" },
    }));
    const started = performance.now();
    buffer.add(page);
    expect(buffer.filter([], true)).toHaveLength(500);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
