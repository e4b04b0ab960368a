import { describe, expect, it } from "vitest";
import type { HistoryEventInput } from "@/lib/views/events";
import {
  batchAwaitedNames,
  recordedSignalSequence,
  runAwaitedNames,
  signalBatchOutcome,
  signalBatchPlan,
} from "@/lib/views/run-batch-signal";

// History shaped like the demo's RefundApprovalWorkflow (server/demo/seed.ts "waiting"), as in signal-names.test.ts.
const waiting: HistoryEventInput[] = [
  { sequence: 1, event_type: "WorkflowStarted", recorded_at: "2026-12-01T20:00:00.000000Z", payload: {} },
  {
    sequence: 2,
    event_type: "SignalWaitOpened",
    recorded_at: "2026-12-01T20:00:01.000000Z",
    payload: { signal_name: "approve", signal_wait_id: "wait-1", sequence: 1, timeout_seconds: null },
  },
];
const received = (name: string, commandId: string): HistoryEventInput => ({
  sequence: 3,
  event_type: "SignalReceived",
  recorded_at: "2026-12-01T20:00:05.000000Z",
  payload: { signal_name: name, workflow_command_id: commandId },
});

const open = (awaited: string[]) => ({ isTerminal: false, canSignal: true, awaited });

describe("runAwaitedNames", () => {
  it("reads open signal waits from history, and closes one when its own name is received", () => {
    expect(runAwaitedNames(waiting, null)).toEqual(["approve"]);
    expect(runAwaitedNames([...waiting, received("approve", "c1")], null)).toEqual([]);
    // A mistyped name is recorded but leaves the wait open.
    expect(runAwaitedNames([...waiting, received("aprove", "c1")], null)).toEqual(["approve"]);
    expect(runAwaitedNames([], "Waiting for signal reject or timeout")).toEqual(["reject"]);
  });
});

describe("signalBatchPlan", () => {
  const runs = [
    { workflowId: "a", runId: "1", read: open(["approve"]) },
    { workflowId: "b", runId: "2", read: open(["reject"]) },
    { workflowId: "c", runId: "3", read: { isTerminal: true, canSignal: false, awaited: [] } },
    { workflowId: "d", runId: "4", read: { isTerminal: false, canSignal: false, awaited: ["approve"] } },
    { workflowId: "e", runId: "5", read: null },
    { workflowId: "f", runId: "6", read: open(["approve", "reject"]) },
  ];

  it("says per run whether it awaits the name; closed, refused and unreadable runs are skipped", () => {
    const plan = signalBatchPlan(" approve ", runs);
    expect(plan.name).toBe("approve");
    expect(plan.runs.map((run) => run.bucket)).toEqual([
      "awaited",
      "unawaited",
      "skip_closed",
      "skip_not_allowed",
      "skip_unreadable",
      "awaited",
    ]);
    expect(plan.sendCount).toBe(3);
    expect(signalBatchPlan("aprove", runs).counts).toEqual({
      awaited: 0,
      unawaited: 3,
      skip_closed: 1,
      skip_not_allowed: 1,
      skip_unreadable: 1,
    });
  });

  it("offers the names the signal-able runs await, most-awaited first", () => {
    expect(batchAwaitedNames(runs)).toEqual([
      { name: "approve", runs: 2 },
      { name: "reject", runs: 2 },
    ]);
    expect(batchAwaitedNames(runs.slice(0, 1))).toEqual([{ name: "approve", runs: 1 }]);
  });
});

describe("recordedSignalSequence", () => {
  const events = [{ sequence: 3, event_type: "SignalReceived", payload: { workflow_command_id: "c1" } }];
  it("finds the SignalReceived of this command only", () => {
    expect(recordedSignalSequence("c1", events)).toBe(3);
    expect(recordedSignalSequence("c2", events)).toBeNull();
    expect(recordedSignalSequence("c1", [])).toBeNull();
  });
});

describe("signalBatchOutcome", () => {
  it("counts recorded signals, runs still awaiting the name, and what is not seen yet", () => {
    const sends = [
      { kind: "accepted", outcome: "signal_received" },
      { kind: "accepted", outcome: "signal_received" },
      { kind: "accepted", outcome: "signal_received" },
      { kind: "rejected", reason: "run_not_active" },
      { kind: "error", reason: "console_unreachable" },
    ] as const;
    const outcome = signalBatchOutcome("approve", sends, [
      { recorded: true, awaited: [] },
      { recorded: true, awaited: ["approve"] },
      { recorded: false, awaited: ["approve"] },
      null,
      null,
    ]);
    expect(outcome).toEqual({
      sent: 5,
      accepted: 3,
      rejected: 1,
      errors: 1,
      recordedDone: 1,
      recordedStillWaiting: 1,
      pending: 1,
      settled: false,
    });
    expect(signalBatchOutcome("approve", sends.slice(0, 1), [{ recorded: true, awaited: [] }]).settled).toBe(true);
  });
});
