import { describe, expect, it } from "vitest";
import { runRowMarks } from "@/lib/views/run-row";

// Rows as `GET /workflows` lists them and details as `formatRun` (describe) and debug's `execution`
// carry them (WorkflowController@index and @formatRun, durable-workflow/server@11d35b7).
const closed = (status: string) => ({ status, is_terminal: true });
const open = { status: "waiting", is_terminal: false };

describe("runRowMarks", () => {
  it("badges a closed reason the status does not say, and only then", () => {
    const detail = (closedReason: string) => ({ closedReason, runNumber: 1, runCount: 1, execution: null });
    expect(runRowMarks(closed("failed"), detail("timed_out")).closedReason).toBe("timed_out");
    expect(runRowMarks(closed("completed"), detail("continued")).closedReason).toBe("continued");
    expect(runRowMarks(closed("cancelled"), detail("cancelled")).closedReason).toBeNull();
    expect(runRowMarks(closed("failed"), detail("failed")).closedReason).toBeNull();
    expect(runRowMarks(closed("failed"), detail("some_future_reason")).closedReason).toBeNull();
    expect(runRowMarks(closed("failed"), undefined)).toEqual({ closedReason: null, attention: null, chain: null });
  });

  it("marks a stuck open run with the time of its last progress, and leaves a healthy one alone", () => {
    const stuck = runRowMarks(open, {
      closedReason: null,
      runNumber: 1,
      runCount: null,
      execution: {
        status: "waiting",
        is_terminal: false,
        liveness_state: "repair_needed",
        last_progress_at: "2026-12-02T10:00:00.000000Z",
      },
    });
    expect(stuck.attention).toMatchObject({ stuck: true, tone: "danger", since: "2026-12-02T10:00:00.000000Z" });
    expect(stuck.attention?.label.id).toBe("views.liveness.repair_needed");
    const healthy = runRowMarks(open, {
      closedReason: null,
      runNumber: 1,
      runCount: null,
      execution: { status: "waiting", is_terminal: false, liveness_state: "waiting_for_signal" },
    });
    expect(healthy.attention).toBeNull();
  });

  it("places a run in its continue-as-new chain, and says nothing for a single run", () => {
    expect(
      runRowMarks(closed("completed"), { closedReason: "continued", runNumber: 3, runCount: 4, execution: null }).chain,
    ).toEqual({ number: 3, count: 4 });
    // Debug gives an open run's number only; the open run of a chain is its newest.
    expect(runRowMarks(open, { closedReason: null, runNumber: 4, runCount: null, execution: {} }).chain).toEqual({
      number: 4,
      count: 4,
    });
    expect(
      runRowMarks(closed("completed"), { closedReason: "completed", runNumber: 1, runCount: 1, execution: null }).chain,
    ).toBeNull();
  });
});
