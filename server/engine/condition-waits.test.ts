import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, historyOf, startWorkerHarness, typesOf } from "../http/test-support";
import { decodePayload, encodePayload } from "../codec/codec";
import { EMPTY_ARGUMENTS } from "./commands";

// open_condition_wait as sdk-python 2.12.0 sends it for `ctx.wait_condition` (gaps the official
// SDK revealed: the command was refused with 422, so no SDK workflow could wait for a signal).
let h: Harness;
let worker: Worker;

beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

function payloadOf(runId: string, type: string): Record<string, unknown> {
  const e = historyOf(h.db, runId).find((x) => x.event_type === type);
  if (!e) throw new Error(`no ${type} in ${typesOf(h.db, runId).join(",")}`);
  return e.payload as Record<string, unknown>;
}

describe("open_condition_wait", () => {
  it("a signal resumes the run; completing that task records ConditionWaitSatisfied and cancels the timeout timer", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cond-1",
      workflow_type: "approval",
      task_queue: "default",
    });
    const runId = start.run_id as string;
    const first = await worker.mustPollWorkflow();
    const opened = await worker.completeWorkflow(first, [
      {
        type: "open_condition_wait",
        condition_key: "approved",
        condition_definition_fingerprint: "sha256:abc",
        timeout_seconds: 600,
      },
    ]);
    expect(opened.body).toMatchObject({ run_status: "waiting" });
    const wait = payloadOf(runId, "ConditionWaitOpened");
    expect(wait).toMatchObject({
      condition_key: "approved",
      condition_definition_fingerprint: "sha256:abc",
      timeout_seconds: 600,
    });
    // The timeout timer shares the wait's sequence and names it.
    expect(payloadOf(runId, "TimerScheduled")).toMatchObject({
      timer_kind: "condition_timeout",
      condition_wait_id: wait.condition_wait_id,
      sequence: wait.sequence,
      delay_seconds: 600,
    });

    h.engine.signalWorkflow({
      namespace: "default",
      workflow_id: "cond-1",
      signal_name: "approve",
      input: blob(["grace"]),
    });
    const resumed = await worker.mustPollWorkflow();
    await worker.completeWorkflow(resumed, [{ type: "complete_workflow", result: blob("ok") }]);
    const satisfied = payloadOf(runId, "ConditionWaitSatisfied");
    expect(satisfied).toMatchObject({
      condition_wait_id: wait.condition_wait_id,
      condition_key: "approved",
      sequence: wait.sequence,
      timeout_seconds: 600,
      signal_name: "approve",
    });
    expect(satisfied.timer_id).toBe(payloadOf(runId, "TimerScheduled").timer_id);
    expect(payloadOf(runId, "TimerCancelled")).toMatchObject({
      timer_id: satisfied.timer_id,
      timer_kind: "condition_timeout",
    });
    expect(typesOf(h.db, runId)).toEqual([
      "StartAccepted",
      "WorkflowStarted",
      "ConditionWaitOpened",
      "TimerScheduled",
      "SignalReceived",
      // No SignalApplied: the run has no declared contract and the wait no sequence to apply it to
      // (DefaultWorkflowTaskBridge.php@8dc90d64 `recordAppliedSignalForSignalResume`).
      "ConditionWaitSatisfied",
      "TimerCancelled",
      "WorkflowCompleted",
    ]);
    // The cancelled timer never fires, even long after its deadline.
    h.advance(700);
    expect(typesOf(h.db, runId)).not.toContain("TimerFired");
  });

  it("times out through its timer: TimerFired carries the condition keys and resumes the run", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cond-2",
      workflow_type: "approval",
      task_queue: "default",
    });
    const runId = start.run_id as string;
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      { type: "open_condition_wait", condition_key: "approved", timeout_seconds: 5 },
    ]);
    h.advance(4);
    expect(await worker.pollWorkflow()).toBeNull();
    h.advance(1);
    const wait = payloadOf(runId, "ConditionWaitOpened");
    expect(payloadOf(runId, "TimerFired")).toMatchObject({
      timer_kind: "condition_timeout",
      condition_wait_id: wait.condition_wait_id,
      condition_key: "approved",
    });
    const resumed = await worker.mustPollWorkflow();
    await worker.completeWorkflow(resumed, [{ type: "complete_workflow", result: blob({ approved: false }) }]);
    // The engine's bridge records no ConditionWaitTimedOut for external workers, and nothing is satisfied.
    expect(typesOf(h.db, runId)).toEqual([
      "StartAccepted",
      "WorkflowStarted",
      "ConditionWaitOpened",
      "TimerScheduled",
      "TimerFired",
      "WorkflowCompleted",
    ]);
  });

  it("without a timeout opens no timer; a resume that is not a signal satisfies nothing", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cond-3",
      workflow_type: "approval",
      task_queue: "default",
    });
    const runId = start.run_id as string;
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      { type: "open_condition_wait" },
      { type: "start_timer", delay_seconds: 1 },
    ]);
    expect(payloadOf(runId, "ConditionWaitOpened")).not.toHaveProperty("timeout_seconds");
    h.advance(1);
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [{ type: "complete_workflow" }]);
    expect(typesOf(h.db, runId)).toEqual([
      "StartAccepted",
      "WorkflowStarted",
      "ConditionWaitOpened",
      "TimerScheduled",
      "TimerFired",
      "WorkflowCompleted",
    ]);
  });

  it("refuses a malformed condition wait with 422", async () => {
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cond-4",
      workflow_type: "approval",
      task_queue: "default",
    });
    const task = await worker.mustPollWorkflow();
    for (const bad of [
      { type: "open_condition_wait", timeout_seconds: -1 },
      { type: "open_condition_wait", condition_key: 7 },
      { type: "open_condition_wait", timeout_seconds: 1.5 },
    ]) {
      const r = await worker.completeWorkflow(task, [bad]);
      expect([r.status, r.body.reason]).toEqual([422, "validation_failed"]);
    }
  });
});

describe("a signal without arguments", () => {
  it("records the codec's empty argument list, never a null codec", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sig-empty",
      workflow_type: "approval",
      task_queue: "default",
    });
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [{ type: "open_condition_wait" }]);
    h.engine.signalWorkflow({ namespace: "default", workflow_id: "sig-empty", signal_name: "approve" });
    const received = payloadOf(start.run_id as string, "SignalReceived");
    expect({ arguments: received.arguments, payload_codec: received.payload_codec }).toEqual({
      arguments: EMPTY_ARGUMENTS.blob,
      payload_codec: "avro",
    });
    expect(EMPTY_ARGUMENTS).toEqual(encodePayload([]));
    expect(decodePayload(EMPTY_ARGUMENTS)).toEqual([]);
  });
});
