import { describe, expect, it } from "vitest";
import { exceptionRows } from "./exceptions";
import retryThenSuccess from "./fixtures/retry-then-success.json";
import exhausted from "./fixtures/exhausted-retries.json";
import nonRetryable from "./fixtures/non-retryable.json";
import activityTimeout from "./fixtures/activity-timeout.json";

describe("exceptionRows", () => {
  it("retried attempts have no failure row, so a run that recovered has no exceptions", () => {
    expect(exceptionRows(retryThenSuccess)).toEqual([]);
  });

  it("exhausted retries: the activity failure and the workflow failure, with the trace joined from history", () => {
    const rows = exceptionRows(exhausted);
    expect(rows).toHaveLength(2);
    const [activity, workflow] = rows;
    const failedEvent = exhausted.history_events.find((event) => event.type === "ActivityFailed");
    expect(activity).toMatchObject({
      id: exhausted.failures[0]!.id,
      activity: "ReserveInventory",
      sourceKind: "activity_execution",
      propagationKind: "activity",
      type: "App\\Errors\\WarehouseUnavailable",
      failureCategory: "activity",
      category: "activity",
      nonRetryable: false,
      handled: false,
      message: "Warehouse eu-1 unavailable",
      loggedAt: "2026-11-30T14:00:06.400000Z",
      eventSequence: failedEvent?.sequence,
    });
    expect(activity!.detail).toMatchObject({
      exceptionClass: "App\\Errors\\WarehouseUnavailable",
      location: "/app/src/Activities/ReserveInventory.php:57",
      replayBlocked: false,
    });
    expect(activity!.detail.traceLines).toEqual([
      "App\\Activities\\ReserveInventory->handle() in /app/src/Activities/ReserveInventory.php:57",
      "App\\Clients\\WarehouseClient->reserve() in /app/src/Clients/WarehouseClient.php:112",
      "Workflow\\V2\\ActivityRunner->run() in /app/vendor/durable-workflow/workflow/src/V2/ActivityRunner.php:88",
    ]);
    expect(workflow).toMatchObject({
      activity: null,
      sourceKind: "workflow_run",
      propagationKind: "terminal",
      category: "application",
    });
  });

  it("non-retryable: the badge flag, the category, and handled from FailureHandled even when the row lags", () => {
    const row = exceptionRows(nonRetryable)[0]!;
    expect(row).toMatchObject({
      activity: "ChargeCard",
      type: "PaymentDeclined",
      category: "activity",
      nonRetryable: true,
      handled: true,
    });
    // External workers strip class, file, line and trace from the public payload.
    expect(row.detail).toMatchObject({ location: null, traceLines: [] });

    const lagging = {
      ...nonRetryable,
      failures: nonRetryable.failures.map((failure) => ({ ...failure, handled: false })),
    };
    expect(exceptionRows(lagging)[0]!.handled).toBe(true);
    const withoutHistory = { ...lagging, history_events: [] };
    expect(exceptionRows(withoutHistory)[0]!.handled).toBe(false);
  });

  it("activity timeout: category timeout, no location for the engine's empty file and line 0", () => {
    const [timeout, workflow] = exceptionRows(activityTimeout);
    expect(timeout).toMatchObject({
      activity: "GenerateInvoice",
      type: "Workflow\\V2\\Exceptions\\ActivityTimeoutException",
      category: "timeout",
      nonRetryable: false,
      propagationKind: "timeout",
    });
    expect(timeout!.detail.location).toBeNull();
    expect(workflow!.type).toBe("ActivityTimeoutException");
  });

  it("shows - for unclassified failures and reads debug recent_failures with a trace preview", () => {
    const rows = exceptionRows({
      recent_failures: [
        {
          failure_id: "01JFQ8RZ4KZZZZZZZZZZZZZZZ1",
          source_kind: "workflow_task",
          source_id: "01JFQ8RZ4KZZZZZZZZZZZZZZZ2",
          propagation_kind: "workflow",
          failure_category: null,
          exception_class: "RuntimeException",
          message: "Replay failed.",
          non_retryable: false,
          handled: false,
          created_at: "2026-11-30T15:00:00.000000Z",
          trace_preview:
            "App\\Workflows\\Checkout->execute @ /app/Checkout.php:10\n\nWorkflow\\V2\\Executor->run @ /app/Executor.php:5\n",
        },
      ],
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: "01JFQ8RZ4KZZZZZZZZZZZZZZZ1",
      category: "-",
      failureCategory: null,
      type: "RuntimeException",
      eventSequence: null,
    });
    expect(rows[0]!.detail.traceLines).toEqual([
      "App\\Workflows\\Checkout->execute @ /app/Checkout.php:10",
      "Workflow\\V2\\Executor->run @ /app/Executor.php:5",
    ]);
  });

  it("orders rows by the sequence of the event that recorded them", () => {
    const reversed = { ...exhausted, failures: [...exhausted.failures].reverse() };
    expect(exceptionRows(reversed).map((row) => row.id)).toEqual(exhausted.failures.map((failure) => failure.id));
  });

  it("joins separately fetched /history pages when the source has none", () => {
    const pages = exhausted.history_events.map((event) => ({
      sequence: event.sequence,
      event_type: event.type,
      timestamp: event.recorded_at,
      payload: event.payload,
    }));
    const rows = exceptionRows({ failures: exhausted.failures }, pages);
    expect(rows[0]!.activity).toBe("ReserveInventory");
    expect(rows[0]!.detail.traceLines).toHaveLength(3);
  });

  it("a failure event with no failure row still makes a row, as the engine's FailureSnapshots does", () => {
    const history = [
      {
        sequence: 1,
        event_type: "WorkflowFailed",
        timestamp: "2026-11-30T12:00:00.000000Z",
        payload: {
          workflow_run_id: "run-1",
          failure_id: "f-1",
          exception_type: "OrderRejected",
          exception_class: "App\\Exceptions\\OrderRejected",
          message: "rejected",
          exception: {
            file: "/app/Order.php",
            line: 12,
            trace: [{ function: "handle", file: "/app/Order.php", line: 12 }],
          },
        },
      },
      { sequence: 2, event_type: "FailureHandled", timestamp: null, payload: { failure_id: "f-1" } },
    ];
    expect(exceptionRows({ recent_failures: [] }, history)).toMatchObject([
      {
        id: "f-1",
        sourceKind: "workflow_run",
        sourceId: "run-1",
        type: "OrderRejected",
        category: "application",
        handled: true,
        eventSequence: 1,
        detail: { location: "/app/Order.php:12", traceLines: ["handle() in /app/Order.php:12"] },
      },
    ]);
  });

  it("cancellation, selection, wait and service events add no row unless a failure row names them", () => {
    const history = [
      "CooperativeCancellationRequested",
      "CooperativeCancellationDelivered",
      "CancellationScopeRequested",
      "CancellationScopeDelivered",
      "SelectionOperationCancelled",
      "SignalWaitCancelled",
      "SignalWaitTimedOut",
      "ConditionWaitCancelled",
      "ServiceCallCancelled",
      "ServiceCallFailed",
    ].map((type, index) => ({
      sequence: index + 1,
      event_type: type,
      timestamp: null,
      payload: { message: "stopped", exception_type: "service_call_cancelled", scope_id: "s" },
    }));
    // The engine builds exception rows only from its failure-snapshot events (FailureSnapshots.php@8dc90d64).
    expect(exceptionRows({ history_events: [], failures: [] }, history)).toEqual([]);
    // A failure row that a service call's event names is joined to it.
    const named = [{ ...history[9]!, payload: { ...history[9]!.payload, failure_id: "f-svc", service_call_id: "s1" } }];
    const rows = exceptionRows(
      { failures: [{ id: "f-svc", message: "declined", failure_category: "application" }] },
      named,
    );
    expect(rows).toEqual([
      expect.objectContaining({ id: "f-svc", sourceKind: "service_call", sourceId: "s1", eventSequence: 10 }),
    ]);
  });

  it("a failed update is a row like an activity failure: its update named, its category and the badge", () => {
    // UpdateCompleted as the engine writes it for `fail_update` (DefaultWorkflowTaskBridge.php@8dc90d64 applyFailUpdate).
    const history = [
      {
        sequence: 1,
        event_type: "UpdateAccepted",
        timestamp: null,
        payload: { update_id: "u1", update_name: "approve" },
      },
      {
        sequence: 2,
        event_type: "UpdateCompleted",
        timestamp: "2026-01-15T10:00:05.400000Z",
        payload: {
          workflow_command_id: "cmd-1",
          update_id: "u1",
          update_name: "approve",
          failure_id: "f-upd",
          failure_category: "application",
          non_retryable: true,
          exception_type: "LimitExceeded",
          exception_class: "Workflow\\V2\\Exceptions\\WorkerFailure",
          message: "cannot approve above the limit",
        },
      },
      // A completed update records no failure and makes no row.
      { sequence: 3, event_type: "UpdateCompleted", timestamp: null, payload: { update_id: "u2", result: "x" } },
    ];
    expect(exceptionRows({ failures: [] }, history)).toEqual([
      expect.objectContaining({
        id: "f-upd",
        activity: null,
        update: "approve",
        sourceKind: "workflow_command",
        sourceId: "cmd-1",
        propagationKind: "update",
        type: "LimitExceeded",
        category: "application",
        nonRetryable: true,
        message: "cannot approve above the limit",
        eventSequence: 2,
      }),
    ]);
  });
});
