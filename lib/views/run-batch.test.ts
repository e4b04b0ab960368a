import { describe, expect, it } from "vitest";
import { batchOutcome, batchPlan } from "@/lib/views/run-batch";

// Describe answers reduced to what the plan reads: `is_terminal` and `actions` (formatRun@11d35b7).
const open = (can: boolean) => ({ is_terminal: false, actions: { can_cancel: can, can_terminate: true } });
const closed = { is_terminal: true, actions: { can_cancel: false, can_terminate: false } };

describe("batchPlan", () => {
  it("sends to open runs that allow the action and says why the others are skipped", () => {
    const runs = [
      { workflowId: "a", runId: "1", describe: open(true) },
      { workflowId: "b", runId: "2", describe: open(false) },
      { workflowId: "c", runId: "3", describe: closed },
      { workflowId: "d", runId: "4", describe: null },
    ];
    const cancel = batchPlan("cancel", runs);
    expect(cancel.runs.map((run) => run.bucket)).toEqual([
      "send",
      "skip_not_allowed",
      "skip_closed",
      "skip_unreadable",
    ]);
    expect(batchPlan("terminate", runs).counts).toEqual({
      send: 2,
      skip_closed: 1,
      skip_not_allowed: 0,
      skip_unreadable: 1,
    });
  });
});

describe("batchOutcome", () => {
  it("tallies closed runs by status and waits while any accepted run is open", () => {
    const sends = [
      { kind: "accepted" as const, outcome: "terminated" },
      { kind: "accepted" as const, outcome: "terminated" },
      { kind: "rejected" as const, reason: "run_closed" },
      { kind: "error" as const, reason: "console_unreachable" },
    ];
    const waiting = batchOutcome(sends, [{ status: "terminated", isTerminal: true }, null, null, null]);
    expect(waiting).toMatchObject({ sent: 4, accepted: 2, rejected: 1, errors: 1, stillOpen: 1, settled: false });
    const done = batchOutcome(sends, [
      { status: "terminated", isTerminal: true },
      { status: "completed", isTerminal: true },
      null,
      null,
    ]);
    expect(done).toMatchObject({ closedBy: { terminated: 1, completed: 1 }, stillOpen: 0, settled: true });
  });
});
