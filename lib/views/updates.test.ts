import { describe, expect, it } from "vitest";
import type { HistoryEventInput } from "./events";
import { toViewEvents } from "./events";
import { UpdateFold, declaredUpdateNames, sendersByCommand, updateRows } from "./updates";

// Payload keys as the engine writes them (WorkflowStub.php@8dc90d64, DefaultWorkflowTaskBridge.php@8dc90d64).
const ids = (n: number, name = "approve") => ({
  workflow_command_id: `cmd-${n}`,
  update_id: `upd-${n}`,
  workflow_instance_id: "order-42",
  workflow_run_id: "run-1",
  update_name: name,
});
const at = (second: number) => `2026-01-15T10:00:${String(second).padStart(2, "0")}.000000Z`;
let sequence = 0;
function event(event_type: string, payload: Record<string, unknown>, second = sequence): HistoryEventInput {
  sequence += 1;
  return { sequence, event_type, timestamp: at(second), payload };
}

function started(declared?: string[]) {
  sequence = 0;
  return [
    event("StartAccepted", {}),
    event("WorkflowStarted", declared ? { workflow_type: "orders", declared_updates: declared } : {}),
  ];
}

const failedPayload = {
  failure_id: "fail-2",
  failure_category: "application",
  non_retryable: true,
  exception_type: "LimitExceeded",
  exception_class: "Workflow\\V2\\Exceptions\\WorkerFailure",
  message: "cannot approve above the limit",
};

describe("updateRows", () => {
  it("follows an update from accepted to completed, with its arguments and result as recorded", () => {
    const history = [
      ...started(["approve"]),
      event("UpdateAccepted", { ...ids(1), arguments: "YXJncw==", payload_codec: "avro", ordering_state: "ready" }),
    ];
    expect(updateRows(history)).toMatchObject([{ updateId: "upd-1", state: "accepted", closedAt: null }]);
    history.push(event("UpdateApplied", { ...ids(1), arguments: "YXJncw==", sequence: 1 }));
    expect(updateRows(history)[0]?.state).toBe("applied");
    history.push(event("UpdateCompleted", { ...ids(1), sequence: 1, result: "cmVzdWx0" }, 9));
    expect(updateRows(history)).toEqual([
      {
        updateId: "upd-1",
        commandId: "cmd-1",
        name: "approve",
        state: "completed",
        arguments: "YXJncw==",
        payloadCodec: "avro",
        result: "cmVzdWx0",
        failure: null,
        rejection: null,
        rejectionReason: null,
        sender: null,
        validationErrors: [],
        sentAt: at(2),
        closedAt: at(9),
        sequence: 3,
        closedSequence: 5,
      },
    ]);
  });

  it("reads a handler's failure with its category and the non-retryable marker, not as a result", () => {
    const history = [
      ...started(["approve"]),
      event("UpdateAccepted", { ...ids(2), arguments: "YQ==" }),
      event("UpdateCompleted", { ...ids(2), sequence: 1, ...failedPayload }),
    ];
    const [row] = updateRows(history);
    expect(row?.state).toBe("failed");
    expect(row?.result).toBeNull();
    expect(row?.failure).toEqual({
      failureId: "fail-2",
      category: "application",
      nonRetryable: true,
      exceptionType: "LimitExceeded",
      exceptionClass: "Workflow\\V2\\Exceptions\\WorkerFailure",
      message: "cannot approve above the limit",
    });
  });

  it("a retryable handler failure reads as failed without the marker", () => {
    const history = [
      ...started(),
      event("UpdateAccepted", { ...ids(3) }),
      event("UpdateCompleted", { ...ids(3), ...failedPayload, non_retryable: false }),
    ];
    expect(updateRows(history)[0]?.failure?.nonRetryable).toBe(false);
  });

  it("a rejection is its own state, closed when refused, and says only what history shows of why", () => {
    const history = [
      ...started(["approve"]),
      // Not declared: the twin's and the engine's unknown_update.
      event("UpdateRejected", { ...ids(4, "discount") }),
      event("UpdateRejected", { ...ids(5, "approve"), validation_errors: ["amount: too large"] }),
      // A declared name refused while the run is open: history does not say why.
      event("UpdateRejected", { ...ids(6, "approve") }),
      event("WorkflowCompleted", {}),
      event("UpdateRejected", { ...ids(7, "approve") }),
    ];
    const rows = updateRows(history);
    expect(rows.map((row) => [row.updateId, row.state, row.rejection])).toEqual([
      ["upd-4", "rejected", "not_declared"],
      ["upd-5", "rejected", "validation"],
      ["upd-6", "rejected", null],
      ["upd-7", "rejected", "run_closed"],
    ]);
    expect(rows[1]?.validationErrors).toEqual(["amount: too large"]);
    expect(rows[3]?.closedAt).toBe(rows[3]?.sentAt);
    expect(rows.every((row) => row.failure === null)).toBe(true);
  });

  it("reads the reason and the sender from the command snapshot the engine records on the event", () => {
    // WorkflowHistoryEvent.php@8dc90d64 `snapshotPayload` / `commandSnapshot`.
    const command = {
      id: "cmd-10",
      type: "update",
      source: "control_plane",
      principal_label: "Ada Lovelace",
      principal_id: "u-7",
      request_id: "bw-1",
      status: "rejected",
      rejection_reason: "selected_run_not_current",
    };
    const history = [
      ...started(["approve"]),
      event("UpdateRejected", { ...ids(10), command }),
      event("UpdateAccepted", {
        ...ids(11),
        command: { ...command, id: "cmd-11", principal_label: null, principal_id: null, caller_label: "cli" },
      }),
    ];
    const [refused, accepted] = updateRows(history);
    expect(refused).toMatchObject({
      state: "rejected",
      rejectionReason: "selected_run_not_current",
      sender: { source: "control_plane", principal: "Ada Lovelace", requestId: "bw-1" },
    });
    // Only a refusal has a rejection reason; an accepted update's sender falls back to the caller.
    expect(accepted).toMatchObject({ state: "accepted", rejectionReason: null, sender: { principal: "cli" } });
  });

  it("without declared updates a refusal on an open run names no reason", () => {
    const history = [...started(), event("UpdateRejected", { ...ids(8, "anything") })];
    expect(updateRows(history)[0]?.rejection).toBeNull();
  });

  it("ignores events without an update id and a repeated opening", () => {
    const history = [
      ...started(),
      event("UpdateAccepted", { update_name: "approve" }),
      event("UpdateAccepted", { ...ids(9) }),
      event("UpdateAccepted", { ...ids(9), update_name: "other" }),
    ];
    expect(updateRows(history).map((row) => [row.updateId, row.name])).toEqual([["upd-9", "approve"]]);
  });

  it("keeps the newest updates and counts the rest", () => {
    const fold = new UpdateFold(2);
    const history = [...started(), ...[1, 2, 3].map((n) => event("UpdateAccepted", { ...ids(n) }))];
    history.push(event("UpdateCompleted", { ...ids(1), result: "x" }));
    for (const viewEvent of toViewEvents(history)) fold.add(viewEvent);
    expect(fold.rows().map((row) => row.updateId)).toEqual(["upd-2", "upd-3"]);
    expect(fold.omitted).toBe(1);
  });

  it("hands out copies: a later event does not change rows already taken", () => {
    const fold = new UpdateFold();
    const [first, second, accepted] = [...started(), event("UpdateAccepted", { ...ids(1) })];
    for (const e of toViewEvents([first!, second!, accepted!])) fold.add(e);
    const before = fold.rows();
    for (const e of toViewEvents([event("UpdateCompleted", { ...ids(1), ...failedPayload })])) fold.add(e);
    expect(before[0]?.state).toBe("accepted");
    expect(fold.rows()[0]?.state).toBe("failed");
  });
});

describe("sendersByCommand", () => {
  it("names the principal from the export's command row, else the caller, and keeps the request id", () => {
    const senders = sendersByCommand([
      { id: "cmd-1", source: "control_plane", principal_label: "Ada", principal_id: "u-1", request_id: "bw-1" },
      { id: "cmd-2", source: "control_plane", caller_label: "cli", principal_label: null },
      { id: "cmd-3", source: "control_plane" },
      { source: "no id" },
    ]);
    expect(senders.get("cmd-1")).toEqual({ source: "control_plane", principal: "Ada", requestId: "bw-1" });
    expect(senders.get("cmd-2")?.principal).toBe("cli");
    expect(senders.get("cmd-3")).toEqual({ source: "control_plane", principal: null, requestId: null });
    expect(senders.size).toBe(3);
    // The server naming itself is no sender (WorkflowCommandContextFactory.php@11d35b7).
    expect(
      sendersByCommand([{ id: "c", source: "control_plane", caller_label: "Standalone Server" }]).get("c"),
    ).toEqual({
      source: "control_plane",
      principal: null,
      requestId: null,
    });
  });
});

describe("declaredUpdateNames", () => {
  it("reads WorkflowStarted's declared_updates, null when it declares none", () => {
    expect(
      declaredUpdateNames([{ event_type: "WorkflowStarted", payload: { declared_updates: ["approve", "", 3] } }]),
    ).toEqual(["approve"]);
    expect(declaredUpdateNames([{ event_type: "WorkflowStarted", payload: {} }])).toBeNull();
    expect(declaredUpdateNames([])).toBeNull();
  });
});
