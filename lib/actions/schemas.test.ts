import { describe, expect, it } from "vitest";
import { runActionRequestSchema } from "@/lib/actions/commands";
import { jsonDepth, MAX_INPUT_DEPTH } from "@/lib/actions/schemas";

describe("runActionRequestSchema", () => {
  const target = { workflowId: "wf", runId: "run", requestId: "bw-12345678" };

  it("requires a reason for cancel and terminate but not for archive", () => {
    expect(runActionRequestSchema.safeParse({ action: "cancel", ...target }).success).toBe(false);
    expect(runActionRequestSchema.safeParse({ action: "terminate", ...target, reason: " " }).success).toBe(false);
    expect(runActionRequestSchema.safeParse({ action: "archive", ...target }).success).toBe(true);
  });

  it("validates signal arguments and new workflow ids", () => {
    expect(runActionRequestSchema.safeParse({ action: "signal", ...target, signalName: "go", input: {} }).success).toBe(
      false,
    );
    expect(runActionRequestSchema.safeParse({ action: "signal", ...target, signalName: "go", input: [] }).success).toBe(
      true,
    );
    expect(runActionRequestSchema.safeParse({ action: "startAgain", ...target, newWorkflowId: "bad id" }).success).toBe(
      false,
    );
    expect(
      runActionRequestSchema.safeParse({ action: "startAgain", ...target, newWorkflowId: "ok:id-1" }).success,
    ).toBe(true);
  });

  it("refuses unknown actions and short request ids", () => {
    expect(runActionRequestSchema.safeParse({ action: "delete", ...target }).success).toBe(false);
    expect(runActionRequestSchema.safeParse({ action: "repair", ...target, requestId: "x" }).success).toBe(false);
  });

  it("refuses a signal input nested deeper than the limit, counting without recursion", () => {
    const nested = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);
    expect(jsonDepth(nested(100_000), 10)).toBe(11);
    expect(jsonDepth({ a: [{ b: 1 }] })).toBe(3);
    expect(
      runActionRequestSchema.safeParse({
        action: "signal",
        ...target,
        signalName: "go",
        input: [nested(MAX_INPUT_DEPTH - 1)],
      }).success,
    ).toBe(true);
    expect(
      runActionRequestSchema.safeParse({ action: "signal", ...target, signalName: "go", input: [nested(5_000)] })
        .success,
    ).toBe(false);
  });
});
