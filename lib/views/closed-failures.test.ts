import { describe, expect, it } from "vitest";
import type { ClosedRunFailure, ClosedRunInput } from "@/lib/views/closed-failures";
import { closedFailureGroups, closedVerdict, closingFailure, parseTriageWindow } from "@/lib/views/closed-failures";

// recent_failures rows as the real server writes them (WorkflowRunDiagnostics.php@11d35b70 617-637).
function failure(over: Partial<ClosedRunFailure> & { failure_id: string }): ClosedRunFailure {
  return {
    source_kind: "activity_execution",
    source_id: "01JACT",
    propagation_kind: "activity",
    failure_category: "application",
    exception_class: "App\\Exceptions\\PaymentDeclined",
    message: "card declined",
    non_retryable: false,
    handled: false,
    created_at: "2026-12-01T10:00:00.000000Z",
    ...over,
  } as ClosedRunFailure;
}

function run(id: string, over: Partial<ClosedRunInput> = {}): ClosedRunInput {
  return {
    workflowId: `wf-${id}`,
    runId: `run-${id}`,
    workflowType: "OrderWorkflow",
    status: "failed",
    closedAt: "2026-12-01T10:00:01.000000Z",
    failures: [failure({ failure_id: `f-${id}` })],
    ...over,
  };
}

const WINDOW = { from: Date.parse("2026-12-01T00:00:00Z"), to: Date.parse("2026-12-02T00:00:00Z") };

describe("closingFailure", () => {
  it("is the newest failure the workflow did not handle", () => {
    const handled = failure({ failure_id: "a", handled: true, created_at: "2026-12-01T10:00:05Z" });
    const open = failure({ failure_id: "b", created_at: "2026-12-01T10:00:01Z" });
    const older = failure({ failure_id: "c", created_at: "2026-12-01T09:00:00Z" });
    expect(closingFailure([older, handled, open])?.failure_id).toBe("b");
    expect(closingFailure([handled])?.failure_id).toBe("a");
    expect(closingFailure([])).toBeNull();
  });
});

describe("closedVerdict", () => {
  it("says why the run ended in the operator's terms", () => {
    expect(closedVerdict("failed", failure({ failure_id: "x", non_retryable: true }))).toBe("non_retryable");
    expect(closedVerdict("failed", failure({ failure_id: "x" }))).toBe("retries_exhausted");
    expect(
      closedVerdict("failed", failure({ failure_id: "x", failure_category: "timeout", source_kind: "workflow_run" })),
    ).toBe("timeout");
    expect(
      closedVerdict("failed", failure({ failure_id: "x", source_kind: "workflow_run", propagation_kind: "terminal" })),
    ).toBe("workflow_failed");
    expect(closedVerdict("terminated", null)).toBe("terminated");
    expect(closedVerdict("cancelled", null)).toBe("cancelled");
    expect(closedVerdict("failed", null)).toBe("workflow_failed");
  });
});

describe("closedFailureGroups", () => {
  it("groups by class × category × non-retryable × type × source, biggest first, newest run first", () => {
    const triage = closedFailureGroups(
      [
        run("1", { closedAt: "2026-12-01T08:00:00Z" }),
        run("2", { closedAt: "2026-12-01T12:00:00Z" }),
        run("3", { failures: [failure({ failure_id: "n", non_retryable: true })] }),
        run("4", { workflowType: "RefundWorkflow" }),
        run("5", { status: "terminated", failures: [] }),
      ],
      WINDOW,
    );
    expect(triage.inWindow).toBe(5);
    expect(triage.groups.map((group) => [group.verdict, group.workflowType, group.count])).toEqual([
      ["retries_exhausted", "OrderWorkflow", 2],
      ["non_retryable", "OrderWorkflow", 1],
      ["retries_exhausted", "RefundWorkflow", 1],
      ["terminated", "OrderWorkflow", 1],
    ]);
    const [biggest] = triage.groups;
    expect(biggest?.runs.map((ref) => ref.runId)).toEqual(["run-2", "run-1"]);
    expect(biggest?.firstSeen).toBe("2026-12-01T08:00:00Z");
    expect(biggest?.lastSeen).toBe("2026-12-01T12:00:00Z");
    expect(biggest?.exceptionClass).toBe("App\\Exceptions\\PaymentDeclined");
    expect(biggest?.message).toBe("card declined");
    expect(triage.groups[1]?.nonRetryable).toBe(true);
  });

  it("leaves out runs closed outside the window and counts unreadable ones without guessing a cause", () => {
    const triage = closedFailureGroups(
      [
        run("old", { closedAt: "2026-11-30T23:59:59Z" }),
        run("open", { closedAt: null }),
        run("unread", { failures: null }),
        run("kept"),
      ],
      WINDOW,
    );
    expect(triage.inWindow).toBe(2);
    expect(triage.unreadable).toBe(1);
    expect(triage.groups.flatMap((group) => group.runs.map((ref) => ref.runId))).toEqual(["run-kept"]);
  });

  it("keeps hostile exception text as data", () => {
    const hostile = '<img src=x onerror="alert(1)">';
    const triage = closedFailureGroups(
      [run("h", { failures: [failure({ failure_id: "h", exception_class: hostile, message: hostile })] })],
      WINDOW,
    );
    expect(triage.groups[0]?.exceptionClass).toBe(hostile);
  });
});

describe("parseTriageWindow", () => {
  it("accepts the four windows and falls back to 24 hours", () => {
    expect(parseTriageWindow("7d")).toBe("7d");
    expect(parseTriageWindow("1y")).toBe("24h");
    expect(parseTriageWindow("toString")).toBe("24h");
    expect(parseTriageWindow(null)).toBe("24h");
  });
});
