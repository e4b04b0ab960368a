import { describe, expect, it } from "vitest";
import type { ObservedEvent } from "./confirm";
import { confirmUpdate } from "./update";

const clock = { startedAt: 1_000, now: 1_500, timeoutMs: 30_000 };
const ev = (sequence: number, event_type: string, payload: Record<string, unknown> = {}): ObservedEvent => ({
  sequence,
  event_type,
  payload: { update_id: "u1", ...payload },
});

describe("confirmUpdate", () => {
  it("an accepted update is confirmed by its UpdateAccepted, read by update id, not by another update's", () => {
    const sent = { updateId: "u1", answeredStatus: "accepted" };
    expect(confirmUpdate(sent, [ev(5, "UpdateAccepted", { update_id: "u0" })], clock).phase).toBe("awaiting");
    const confirmed = confirmUpdate(sent, [ev(6, "UpdateAccepted")], clock);
    expect(confirmed).toMatchObject({
      phase: "confirmed",
      recorded: { eventType: "UpdateAccepted", sequence: 6 },
      closed: null,
      historyStatus: "accepted",
    });
    // Completing afterwards agrees with an answer that only said accepted.
    expect(
      confirmUpdate(sent, [ev(6, "UpdateAccepted"), ev(8, "UpdateCompleted", { result: "x" })], clock),
    ).toMatchObject({ phase: "confirmed", historyStatus: "completed", closed: { sequence: 8 } });
  });

  it("a completed or failed answer waits for its UpdateCompleted, and a failure is told from a result", () => {
    const completed = { updateId: "u1", answeredStatus: "completed" };
    expect(confirmUpdate(completed, [ev(6, "UpdateAccepted")], clock).phase).toBe("awaiting");
    expect(
      confirmUpdate(completed, [ev(6, "UpdateAccepted"), ev(7, "UpdateCompleted", { result: "r" })], clock).phase,
    ).toBe("confirmed");
    const failedAnswer = { updateId: "u1", answeredStatus: "failed" };
    const failure = ev(7, "UpdateCompleted", { failure_id: "f1", message: "no" });
    expect(confirmUpdate(failedAnswer, [ev(6, "UpdateAccepted"), failure], clock)).toMatchObject({
      phase: "confirmed",
      historyStatus: "failed",
    });
    // The answer said completed, history recorded a failure: history wins and says so.
    expect(confirmUpdate(completed, [ev(6, "UpdateAccepted"), failure], clock).phase).toBe("contradicted");
  });

  it("a refusal is confirmed by its UpdateRejected; an accepted answer that history recorded as refused is a contradiction", () => {
    expect(
      confirmUpdate({ updateId: "u1", answeredStatus: "rejected" }, [ev(9, "UpdateRejected")], clock),
    ).toMatchObject({
      phase: "confirmed",
      historyStatus: "rejected",
      recorded: { eventType: "UpdateRejected" },
    });
    expect(confirmUpdate({ updateId: "u1", answeredStatus: "accepted" }, [ev(9, "UpdateRejected")], clock).phase).toBe(
      "contradicted",
    );
  });

  it("says timed out once the bound passes with nothing recorded", () => {
    const late = { ...clock, now: clock.startedAt + 30_000 };
    expect(confirmUpdate({ updateId: "u1", answeredStatus: "accepted" }, [], late)).toMatchObject({
      phase: "timed_out",
      recorded: null,
      historyStatus: null,
      elapsedMs: 30_000,
    });
  });
});
