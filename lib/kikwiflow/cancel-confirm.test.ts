import { describe, expect, it } from "vitest";
import { CANCEL_REASON_MAX, cancellable, cancelReasonProblem, judgeCancel } from "./cancel-confirm";

describe("cancel instance confirmation", () => {
  it("requires a reason that is not blank, and bounds its length", () => {
    expect(cancelReasonProblem(undefined)).toBe("required");
    expect(cancelReasonProblem("   \n")).toBe("required");
    expect(cancelReasonProblem("bad ledger data, customer asked to stop")).toBeNull();
    expect(cancelReasonProblem("x".repeat(CANCEL_REASON_MAX))).toBeNull();
    expect(cancelReasonProblem("x".repeat(CANCEL_REASON_MAX + 1))).toBe("too_long");
  });

  it("is confirmed only by the engine's 404, never while the instance is still readable", () => {
    expect(judgeCancel({ kind: "gone" })).toEqual({ phase: "confirmed" });
    expect(judgeCancel({ kind: "present", status: "ACTIVE" })).toEqual({ phase: "awaiting", status: "ACTIVE" });
  });

  it("offers cancel only on a running instance", () => {
    expect(cancellable("ACTIVE")).toBe(true);
    expect(cancellable("COMPLETED")).toBe(false);
    expect(cancellable("CANCELLED")).toBe(false);
    expect(cancellable(null)).toBe(false);
  });
});
