import { describe, expect, it } from "vitest";
import type { AcceptedCommand, ObservedEvent, Observation } from "./confirm";
import { evaluateConfirmation, mergeEvents, openTaskIdsOf, pollDelayMs } from "./confirm";

const clock = (now: number) => ({ startedAt: 1_000, now, timeoutMs: 10_000 });

function event(sequence: number, event_type: string, payload: Record<string, unknown> = {}): ObservedEvent {
  return { sequence, event_type, payload };
}

const repair: AcceptedCommand = { action: "repair", commandId: "cmd-1", outcome: "repair_dispatched" };

describe("repair confirmation", () => {
  it("waits for the RepairRequested event of this command, not of another one", () => {
    const observation: Observation = {
      events: [
        event(7, "RepairRequested", { workflow_command_id: "cmd-0", outcome: "repair_dispatched", task_id: "t-0" }),
      ],
      livenessState: "repair_needed",
    };
    const result = evaluateConfirmation(repair, observation, clock(2_000));
    expect(result.phase).toBe("awaiting");
    expect(result.pending).toEqual(["command_recorded", "task_recreated", "left_repair_needed"]);
  });

  it("confirms step by step: event, recreated task, run leaves repair_needed", () => {
    const recorded = event(9, "RepairRequested", {
      workflow_command_id: "cmd-1",
      outcome: "repair_dispatched",
      task_id: "t-9",
      task_type: "timer",
    });
    const first = evaluateConfirmation(
      repair,
      { events: [recorded], livenessState: "repair_needed", openTaskIds: [] },
      clock(1_500),
    );
    expect(first.steps.map((s) => [s.id, s.status])).toEqual([
      ["command_recorded", "done"],
      ["task_recreated", "pending"],
      ["left_repair_needed", "pending"],
    ]);
    expect(first.steps[0]!.sequence).toBe(9);

    const second = evaluateConfirmation(
      repair,
      { events: [recorded], livenessState: "repair_needed", openTaskIds: ["t-9"] },
      clock(1_700),
    );
    expect(second.pending).toEqual(["left_repair_needed"]);
    expect(second.steps[1]!.facts).toEqual({ taskId: "t-9", taskType: "timer" });

    const third = evaluateConfirmation(
      repair,
      { events: [recorded], livenessState: "timer_scheduled", openTaskIds: ["t-9"] },
      clock(1_900),
    );
    expect(third.phase).toBe("confirmed");
    expect(third.elapsedMs).toBe(900);
  });

  it("skips the task steps when the server recorded repair_not_needed", () => {
    const command: AcceptedCommand = { action: "repair", commandId: "cmd-2", outcome: "repair_not_needed" };
    const result = evaluateConfirmation(
      command,
      {
        events: [event(3, "RepairRequested", { workflow_command_id: "cmd-2", outcome: "repair_not_needed" })],
        livenessState: "timer_scheduled",
      },
      clock(1_100),
    );
    expect(result.phase).toBe("confirmed");
    expect(result.steps.map((s) => s.status)).toEqual(["done", "skipped", "skipped"]);
  });

  it("fails when history records a different outcome than the answer", () => {
    const result = evaluateConfirmation(
      repair,
      { events: [event(3, "RepairRequested", { workflow_command_id: "cmd-1", outcome: "repair_not_needed" })] },
      clock(1_100),
    );
    expect(result.phase).toBe("failed");
    expect(result.steps[0]!.facts).toMatchObject({
      outcome: "repair_not_needed",
      answeredOutcome: "repair_dispatched",
    });
  });

  it("times out naming what is still pending", () => {
    const result = evaluateConfirmation(repair, { events: [], livenessState: "repair_needed" }, clock(11_000));
    expect(result.phase).toBe("timed_out");
    expect(result.pending).toContain("command_recorded");
  });
});

describe("cancel / terminate confirmation", () => {
  const cancel: AcceptedCommand = { action: "cancel", commandId: "c-1", outcome: "cancelled" };

  it("needs CancelRequested, WorkflowCancelled and the cancelled status", () => {
    const events = [
      event(4, "CancelRequested", { workflow_command_id: "c-1", reason: "stop" }),
      event(5, "WorkflowCancelled", { workflow_command_id: "c-1" }),
    ];
    expect(
      evaluateConfirmation(cancel, { events: events.slice(0, 1), status: "running" }, clock(1_200)).pending,
    ).toEqual(["run_closed", "status_final"]);
    expect(evaluateConfirmation(cancel, { events, status: "cancelled", isTerminal: true }, clock(1_300)).phase).toBe(
      "confirmed",
    );
  });

  it("fails when the run closed some other way first", () => {
    const result = evaluateConfirmation(
      { action: "terminate", commandId: "x", outcome: "terminated" },
      { events: [event(2, "TerminateRequested", { workflow_command_id: "x" })], status: "completed", isTerminal: true },
      clock(1_300),
    );
    expect(result.phase).toBe("failed");
  });
});

describe("archive, signal, start again", () => {
  it("archive needs the archived event and the server saying the run is archived", () => {
    const command: AcceptedCommand = { action: "archive", commandId: "a", outcome: "archived" };
    const events = [
      event(10, "ArchiveRequested", { workflow_command_id: "a", outcome: "archived" }),
      event(11, "WorkflowArchived", { workflow_command_id: "a" }),
    ];
    expect(evaluateConfirmation(command, { events, archived: false }, clock(1_100)).pending).toEqual(["run_archived"]);
    expect(evaluateConfirmation(command, { events, archived: true }, clock(1_100)).phase).toBe("confirmed");
  });

  it("signal is confirmed by its SignalReceived event", () => {
    const command: AcceptedCommand = { action: "signal", commandId: "s", outcome: "signal_received" };
    expect(evaluateConfirmation(command, { events: [] }, clock(1_100)).phase).toBe("awaiting");
    expect(
      evaluateConfirmation(
        command,
        { events: [event(3, "SignalReceived", { workflow_command_id: "s" })] },
        clock(1_100),
      ).phase,
    ).toBe("confirmed");
  });

  it("start again is confirmed once the new run exists", () => {
    const command: AcceptedCommand = { action: "startAgain", commandId: null, outcome: "started_new" };
    expect(evaluateConfirmation(command, { events: [], runExists: false }, clock(1_100)).phase).toBe("awaiting");
    expect(evaluateConfirmation(command, { events: [], runExists: true }, clock(1_100)).phase).toBe("confirmed");
  });
});

describe("helpers", () => {
  it("mergeEvents dedupes by sequence and sorts", () => {
    const merged = mergeEvents([event(3, "A"), event(1, "B")], [event(2, "C"), event(3, "A2")]);
    expect(merged.map((e) => [e.sequence, e.event_type])).toEqual([
      [1, "B"],
      [2, "C"],
      [3, "A2"],
    ]);
  });

  it("pollDelayMs slows down over time", () => {
    expect(pollDelayMs(0)).toBeLessThan(pollDelayMs(5_000));
    expect(pollDelayMs(5_000)).toBeLessThan(pollDelayMs(60_000));
  });
});

describe("open tasks as a real server's debug view shows them", () => {
  it("reads workflow tasks from pending_workflow_tasks and a recreated activity task from next_scheduled_event", () => {
    const debug = {
      pending_workflow_tasks: [
        { task_id: "wt-1", status: "ready" },
        { task_id: "wt-done", status: "completed" },
      ],
      execution: {
        next_scheduled_event: { source: "run_summary", task_id: "at-7", task_type: "activity", task_status: "ready" },
      },
    };
    expect(openTaskIdsOf(debug)).toEqual(["wt-1", "at-7"]);
  });

  it("ignores a next task that is no longer open, and tolerates a debug view without either field", () => {
    expect(
      openTaskIdsOf({ execution: { next_scheduled_event: { task_id: "at-7", task_status: "completed" } } }),
    ).toEqual([]);
    expect(openTaskIdsOf({})).toEqual([]);
  });

  it("lets repair confirm the recreated activity task the real server lists only as the next event", () => {
    const command: AcceptedCommand = { action: "repair", commandId: "cmd-1", outcome: "repair_dispatched" };
    const events: ObservedEvent[] = [
      {
        sequence: 9,
        event_type: "RepairRequested",
        payload: { workflow_command_id: "cmd-1", outcome: "repair_dispatched", task_id: "at-7", task_type: "activity" },
      },
    ];
    const observation: Observation = {
      events,
      livenessState: "repair_needed",
      openTaskIds: openTaskIdsOf({
        pending_workflow_tasks: [],
        execution: { next_scheduled_event: { task_id: "at-7", task_status: "ready" } },
      }),
    };
    const steps = evaluateConfirmation(command, observation, { startedAt: 0, now: 1_000, timeoutMs: 30_000 }).steps;
    expect(steps.find((s) => s.id === "task_recreated")?.status).toBe("done");
  });
});
