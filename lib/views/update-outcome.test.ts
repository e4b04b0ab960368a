import { describe, expect, it } from "vitest";
import type { UpdateActionAnswer } from "@/lib/actions/update-action";
import { answerOutcome, errorOutcome } from "./update-outcome";

const base: UpdateActionAnswer = {
  result: "accepted",
  httpStatus: 202,
  workflowId: "order-42",
  runId: "run-1",
  commandId: "cmd-1",
  updateId: "u1",
  updateName: "approve",
  outcome: null,
  updateStatus: "accepted",
  waitFor: "accepted",
  waitTimedOut: false,
  rejectionReason: null,
  failureMessage: null,
};

describe("answerOutcome", () => {
  it("words each answer of lib/dw/fixtures/update-*.json by its status", () => {
    expect(answerOutcome(base)).toEqual({ kind: "accepted", ok: true, detail: null, httpStatus: 202 });
    expect(
      answerOutcome({ ...base, httpStatus: 200, updateStatus: "completed", outcome: "update_completed" }).kind,
    ).toBe("completed");
    expect(answerOutcome({ ...base, waitFor: "completed", waitTimedOut: true }).kind).toBe("wait_timed_out");
    expect(
      answerOutcome({
        ...base,
        result: "rejected",
        httpStatus: 422,
        updateStatus: "failed",
        outcome: "update_failed",
        failureMessage: "update handler failed: cannot approve above the limit",
      }),
    ).toEqual({
      kind: "failed",
      ok: false,
      detail: "update handler failed: cannot approve above the limit",
      httpStatus: 422,
    });
  });

  it("a refusal is worded by its reason, and a failed handler is never read as one", () => {
    const refused = { ...base, result: "rejected" as const, updateStatus: "rejected" };
    expect(answerOutcome({ ...refused, httpStatus: 409, rejectionReason: "run_not_active" }).kind).toBe(
      "run_not_active",
    );
    expect(answerOutcome({ ...refused, httpStatus: 404, rejectionReason: "unknown_update" }).kind).toBe(
      "unknown_update",
    );
    expect(answerOutcome({ ...refused, httpStatus: 409, outcome: "rejected_not_active" }).kind).toBe("run_not_active");
    expect(answerOutcome({ ...refused, rejectionReason: "selected_run_not_current" }).kind).toBe("not_current_run");
    expect(answerOutcome({ ...refused, rejectionReason: "something_new" })).toMatchObject({
      kind: "rejected",
      ok: false,
      detail: "something_new",
    });
  });
});

describe("errorOutcome", () => {
  it("words the handler's error envelopes: the server's reason first, then the console's", () => {
    expect(
      errorOutcome({ reason: "conflict", serverReason: "request_id_conflict", message: "used", httpStatus: 409 }),
    ).toEqual({ kind: "request_id_conflict", ok: false, detail: "used", httpStatus: 409 });
    expect(errorOutcome({ reason: "instance_not_found", serverReason: "instance_not_found", message: "x" }).kind).toBe(
      "workflow_not_found",
    );
    expect(errorOutcome({ reason: "read_only", message: "Refused: read-only", httpStatus: 403 })).toMatchObject({
      kind: "read_only",
      detail: null,
    });
    expect(errorOutcome({ reason: "role", message: "viewer", httpStatus: 403 }).kind).toBe("not_allowed");
    expect(errorOutcome({ reason: "server_unavailable", message: "ECONNREFUSED", httpStatus: 502 })).toMatchObject({
      kind: "server_down",
      detail: null,
    });
    expect(errorOutcome({ reason: "weird", message: "teapot", httpStatus: 418 })).toEqual({
      kind: "other",
      ok: false,
      detail: "teapot",
      httpStatus: 418,
    });
  });
});
