import { describe, expect, it } from "vitest";
import { toViewEvents } from "./events";
import type { HistoryEventInput } from "./events";
import { WaitFold } from "./waits";
import {
  awaitedSignalNames,
  checkSignalName,
  closestName,
  editDistance,
  signalFollowUp,
  signalNameFromWaitReason,
} from "./signal-names";

/*
 * History shaped like the demo's RefundApprovalWorkflow run (server/demo/seed.ts "waiting" shape):
 * SignalWaitOpened carries signal_name, signal_wait_id, sequence, timeout_seconds, and SignalReceived
 * the name that was sent, as the engine's SignalWaits.php@797aa6f1 folds them.
 */
const opened: HistoryEventInput[] = [
  { sequence: 1, event_type: "WorkflowStarted", recorded_at: "2026-12-01T20:00:00.000000Z", payload: {} },
  {
    sequence: 2,
    event_type: "SignalWaitOpened",
    recorded_at: "2026-12-01T20:00:01.000000Z",
    payload: { signal_name: "approve", signal_wait_id: "wait-1", sequence: 1, timeout_seconds: null },
  },
];

function waitsAfter(events: HistoryEventInput[]) {
  const fold = new WaitFold();
  for (const event of toViewEvents(events)) fold.add(event);
  return fold.waits();
}

const received = (sequence: number, name: string): HistoryEventInput => ({
  sequence,
  event_type: "SignalReceived",
  recorded_at: "2026-12-01T20:00:05.000000Z",
  payload: { signal_name: name, workflow_command_id: "cmd-1" },
});

describe("signalNameFromWaitReason", () => {
  it.each([
    ["Waiting for signal approve", "approve"],
    ["Waiting for signal approve or timeout", "approve"],
    ["Waiting for signal approve.", "approve"],
    ["Waiting to apply signal approve", null],
    ["Waiting for timer", null],
    ["Waiting for activity ChargeCard", null],
    [null, null],
  ])("%s → %s", (reason, name) => {
    expect(signalNameFromWaitReason(reason)).toBe(name);
  });
});

describe("awaitedSignalNames", () => {
  it("takes open signal waits from history and describe's wait_reason, once each", () => {
    expect(awaitedSignalNames(waitsAfter(opened), "Waiting for signal approve")).toEqual(["approve"]);
    expect(awaitedSignalNames(null, "Waiting for signal approve or timeout")).toEqual(["approve"]);
    expect(awaitedSignalNames(waitsAfter(opened), "Waiting for signal cancel-order")).toEqual([
      "approve",
      "cancel-order",
    ]);
  });

  it("leaves out received signals and other kinds of wait", () => {
    expect(awaitedSignalNames(waitsAfter([...opened, received(3, "approve")]), null)).toEqual([]);
    expect(awaitedSignalNames([{ kind: "activity", status: "open", target_name: "approve" }], null)).toEqual([]);
  });
});

describe("closestName", () => {
  it("measures edits", () => {
    expect(editDistance("aprove", "approve")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("picks the nearest awaited name, ignoring case", () => {
    expect(closestName("aprove", ["reject", "approve"])).toBe("approve");
    expect(closestName("APPROVE", ["approve", "reject"])).toBe("approve");
    expect(closestName("x", [])).toBeNull();
  });
});

describe("checkSignalName", () => {
  it("accepts an awaited name exactly (trimmed) and suggests the closest otherwise", () => {
    expect(checkSignalName("  ", ["approve"])).toEqual({ kind: "empty" });
    expect(checkSignalName(" approve ", ["approve"])).toEqual({ kind: "awaited" });
    expect(checkSignalName("aprove", ["approve"])).toEqual({ kind: "unawaited", closest: "approve" });
    // The engine matches names exactly: a case difference is not the awaited signal.
    expect(checkSignalName("Approve", ["approve"])).toEqual({ kind: "unawaited", closest: "approve" });
    expect(checkSignalName("approve", [])).toEqual({ kind: "none_awaited" });
  });
});

describe("signalFollowUp", () => {
  it("a mistyped signal leaves the approve wait open", () => {
    const waits = waitsAfter([...opened, received(3, "aprove")]);
    expect(signalFollowUp(waits, 3, 3)).toEqual({ kind: "still_waiting", names: ["approve"] });
  });

  it("the awaited signal closes the wait", () => {
    const waits = waitsAfter([...opened, received(3, "approve")]);
    expect(signalFollowUp(waits, 3, 3)).toEqual({ kind: "not_waiting" });
  });

  it("is unknown until the waits cover the recorded event", () => {
    const waits = waitsAfter(opened);
    expect(signalFollowUp(waits, 2, 3)).toEqual({ kind: "checking" });
    expect(signalFollowUp(null, 5, 3)).toEqual({ kind: "checking" });
    expect(signalFollowUp(waits, 2, null)).toEqual({ kind: "checking" });
  });
});
