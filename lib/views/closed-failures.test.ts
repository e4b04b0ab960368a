import { describe, expect, it } from "vitest";
import type { ClosedRunFailure, ClosedRunInput } from "@/lib/views/closed-failures";
import {
  closedFailureGroups,
  closedVerdict,
  closingFailure,
  failureReason,
  lastEventInput,
  parseTriageWindow,
} from "@/lib/views/closed-failures";

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
    expect(biggest?.exceptionType).toBe("App\\Exceptions\\PaymentDeclined");
    expect(biggest?.messages).toEqual([{ message: "card declined", count: 2 }]);
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
    expect(triage.groups[0]?.exceptionType).toBe(hostile);
  });
});

// Two runs of the demo fleet as the embedded server reports them (debug with include_last_event_payload):
// the worker's exception type is only in the closing event; both terminal rows say RuntimeException.
function workflowFailedEvent(failureId: string, type: string, message: string) {
  const payload = {
    failure_id: failureId,
    source_kind: "workflow_run",
    failure_category: "application",
    non_retryable: false,
    exception_type: type,
    exception_class: "RuntimeException",
    message,
    exception: { class: "RuntimeException", type, message, trace: [] },
  };
  return {
    sequence: 17,
    event_type: "WorkflowFailed",
    payload_preview: { truncated: false, data: JSON.stringify(payload) },
  };
}

function terminal(id: string, message: string, at: string): ClosedRunFailure {
  return failure({
    failure_id: id,
    source_kind: "workflow_run",
    propagation_kind: "terminal",
    exception_class: "RuntimeException",
    message,
    created_at: at,
  });
}

const GATEWAY = "Payment gateway unavailable (HTTP 503).";
const INVOICE = "Activity GenerateInvoice start-to-close deadline expired at 2026-12-01T10:00:00Z.";

function gatewayRun(id: string, closedAt = "2026-12-01T10:00:01Z"): ClosedRunInput {
  return run(id, {
    closedAt,
    failures: [
      terminal(`t-${id}`, GATEWAY, "2026-12-01T10:00:01Z"),
      failure({
        failure_id: `a-${id}`,
        exception_class: "RuntimeException",
        failure_category: "activity",
        message: GATEWAY,
        handled: true,
      }),
    ],
    lastEvent: lastEventInput(workflowFailedEvent(`t-${id}`, "GatewayUnavailable", GATEWAY)),
  });
}

function invoiceTimeoutRun(id: string): ClosedRunInput {
  return run(id, {
    failures: [
      terminal(`t-${id}`, INVOICE, "2026-12-01T10:00:01Z"),
      failure({
        failure_id: `a-${id}`,
        propagation_kind: "timeout",
        failure_category: "timeout",
        exception_class: "Workflow\\V2\\Exceptions\\ActivityTimeoutException",
        message: INVOICE,
      }),
    ],
    lastEvent: lastEventInput(workflowFailedEvent(`t-${id}`, "ActivityTimeout", INVOICE)),
  });
}

describe("closedFailureGroups by what ended the run", () => {
  it("keeps a gateway outage and an invoice timeout apart, each named by the type the run page shows", () => {
    const triage = closedFailureGroups([gatewayRun("g1"), gatewayRun("g2"), invoiceTimeoutRun("i1")], WINDOW);
    expect(
      triage.groups.map((group) => [group.verdict, group.exceptionType, group.failureCategory, group.count]),
    ).toEqual([
      ["retries_exhausted", "GatewayUnavailable", "activity", 2],
      ["timeout", "ActivityTimeout", "timeout", 1],
    ]);
    expect(triage.groups[0]?.messages).toEqual([{ message: GATEWAY, count: 2 }]);
    expect(triage.groups[1]?.messages).toEqual([{ message: INVOICE, count: 1 }]);
  });

  it("lists each distinct message of a group with its count, most frequent first", () => {
    const other = "Payment gateway unavailable (HTTP 502).";
    const odd = gatewayRun("g3");
    odd.failures = (odd.failures ?? []).map((row) => ({ ...row, message: other }));
    odd.lastEvent = lastEventInput(workflowFailedEvent("t-g3", "GatewayUnavailable", other));
    const triage = closedFailureGroups([gatewayRun("g1"), odd, gatewayRun("g2")], WINDOW);
    expect(triage.groups).toHaveLength(1);
    expect(triage.groups[0]?.messages).toEqual([
      { message: GATEWAY, count: 2 },
      { message: other, count: 1 },
    ]);
  });
});

describe("failureReason", () => {
  it("names a failed run's closing failure by its type and message, for the runs list", () => {
    const gateway = gatewayRun("g1");
    expect(failureReason(gateway.failures ?? [], gateway.lastEvent)).toEqual({
      type: "GatewayUnavailable",
      message: GATEWAY,
    });
    expect(failureReason([], null)).toBeNull();
  });
});

describe("lastEventInput", () => {
  it("reads the leading fields of a payload preview the server cut at 4 KiB", () => {
    const whole = JSON.stringify({
      failure_id: "f1",
      non_retryable: false,
      exception_type: "GatewayUnavailable",
      exception_class: "RuntimeException",
      message: 'said "no"',
      exception: { trace: "x".repeat(5000) },
    });
    const event = lastEventInput({
      sequence: 9,
      event_type: "WorkflowFailed",
      payload_preview: { truncated: true, data: whole.slice(0, 4096) },
    });
    expect(event?.payload).toEqual({
      failure_id: "f1",
      non_retryable: false,
      exception_type: "GatewayUnavailable",
      exception_class: "RuntimeException",
      message: 'said "no"',
    });
    expect(lastEventInput({ sequence: 1, event_type: "WorkflowFailed" })).toBeNull();
    expect(lastEventInput(null)).toBeNull();
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
