import { describe, expect, it } from "vitest";
import type { AcceptedCommand, ObservedEvent, Observation } from "./confirm";
import { evaluateConfirmation } from "./confirm";

/** Cooperative cancellation confirmed from history (the twin's events; docs/contract.md). */

const clock = (now: number) => ({ startedAt: 0, now, timeoutMs: 10_000 });
const REQUEST = "01jrv0q4w7e2r5t8y1u3i6o9pa";
const DEADLINE = "2026-04-14T09:31:00.000000Z";
const request: AcceptedCommand = {
  action: "requestCancellation",
  commandId: REQUEST,
  outcome: "cancellation_requested",
};

function event(sequence: number, event_type: string, payload: Record<string, unknown>): ObservedEvent {
  return { sequence, event_type, payload };
}
const requested = (id = REQUEST) =>
  event(5, "CooperativeCancellationRequested", {
    workflow_command_id: id,
    command_type: "request_cancellation",
    cleanup_deadline_at: DEADLINE,
  });
const delivered = event(7, "CooperativeCancellationDelivered", {
  workflow_command_id: REQUEST,
  sequence: 1,
  call_kind: "timer",
});
const cancelled = (outcome: string) =>
  event(11, "WorkflowCancelled", {
    workflow_command_id: REQUEST,
    cancellation_cleanup: { request_id: REQUEST, outcome, cleanup_deadline_at: DEADLINE },
  });

const statuses = (observation: Observation) =>
  evaluateConfirmation(request, observation, clock(1_000)).steps.map((s) => [s.id, s.status]);

describe("request cancellation confirmation", () => {
  it("waits for the request of this id, not another request's", () => {
    const result = evaluateConfirmation(request, { events: [requested("other")], status: "waiting" }, clock(1_000));
    expect(result.phase).toBe("awaiting");
    expect(result.pending).toEqual(["command_recorded", "cancellation_delivered", "run_closed", "status_final"]);
  });

  it("never claims delivery before CooperativeCancellationDelivered is read", () => {
    const result = evaluateConfirmation(request, { events: [requested()], status: "waiting" }, clock(1_000));
    expect(result.steps[0]).toMatchObject({
      id: "command_recorded",
      status: "done",
      sequence: 5,
      facts: { eventType: "CooperativeCancellationRequested", cleanupDeadlineAt: DEADLINE },
    });
    expect(result.steps[1]).toMatchObject({ id: "cancellation_delivered", status: "pending" });
    expect(result.phase).toBe("awaiting");
  });

  it("is confirmed once delivered, closed by WorkflowCancelled and cancelled", () => {
    const result = evaluateConfirmation(
      request,
      { events: [requested(), delivered, cancelled("completed")], status: "cancelled", isTerminal: true },
      clock(2_000),
    );
    expect(result.phase).toBe("confirmed");
    expect(result.steps[1]).toMatchObject({
      status: "done",
      sequence: 7,
      facts: { callKind: "timer", callSequence: "1" },
    });
    expect(result.steps[2]).toMatchObject({ id: "run_closed", status: "done", facts: { cleanupOutcome: "completed" } });
  });

  it("a run closed at the deadline without delivery says so instead of claiming it", () => {
    const result = evaluateConfirmation(
      request,
      { events: [requested(), cancelled("deadline_expired")], status: "cancelled", isTerminal: true },
      clock(2_000),
    );
    expect(result.phase).toBe("confirmed");
    expect(result.steps[1]).toMatchObject({ status: "skipped", facts: { cleanupOutcome: "deadline_expired" } });
  });

  it("fails when the run closed some other way (the workflow completed first)", () => {
    expect(statuses({ events: [requested()], status: "completed", isTerminal: true })).toEqual([
      ["command_recorded", "done"],
      ["cancellation_delivered", "skipped"],
      ["run_closed", "pending"],
      ["status_final", "failed"],
    ]);
  });

  it("times out naming what is still pending", () => {
    const result = evaluateConfirmation(
      request,
      { events: [requested(), delivered], status: "waiting" },
      clock(10_000),
    );
    expect(result.phase).toBe("timed_out");
    expect(result.pending).toEqual(["run_closed", "status_final"]);
  });
});
