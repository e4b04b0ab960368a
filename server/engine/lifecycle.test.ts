import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, failuresOf, historyOf, runRow, startWorkerHarness, typesOf } from "../http/test-support";
import { EngineError } from "./errors";

let h: Harness;
let worker: Worker;

beforeEach(async () => {
  ({ h, worker } = await startWorkerHarness());
});
afterEach(async () => h.close());

describe("start command", () => {
  it("records the start and dedupes by policy and request id", () => {
    const started = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "order-42",
      workflow_type: "orders",
      task_queue: "default",
      business_key: "order-42",
      request_id: "req-1",
    });
    expect(started).toMatchObject({
      command_status: "accepted",
      outcome: "started_new",
      workflow_id: "order-42",
      status: "pending",
      command_sequence: 1,
    });
    expect(typesOf(h.db, started.run_id as string)).toEqual(["StartAccepted", "WorkflowStarted"]);
    expect(historyOf(h.db, started.run_id as string)[0]?.payload).toMatchObject({
      workflow_command_id: started.command_id,
      outcome: "started_new",
      business_key: "order-42",
    });
    expect(
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: "order-42",
        workflow_type: "orders",
        task_queue: "default",
        request_id: "req-1",
      }).command_id,
    ).toBe(started.command_id);
    expect(
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: "order-42",
        workflow_type: "orders",
        task_queue: "default",
      }),
    ).toMatchObject({ command_status: "rejected", outcome: "rejected_duplicate" });
    expect(
      h.engine.startWorkflow({
        namespace: "default",
        workflow_id: "order-42",
        workflow_type: "orders",
        task_queue: "default",
        duplicate_policy: "use-existing",
      }),
    ).toMatchObject({
      command_status: "accepted",
      outcome: "returned_existing_active",
      run_id: started.run_id,
    });
    expect(() => h.engine.startWorkflow({ namespace: "nope", workflow_type: "orders", task_queue: "default" })).toThrow(
      EngineError,
    );
  });
});

describe("continue-as-new", () => {
  it("chains three runs under one workflow id", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "chain-1",
      workflow_type: "chain",
      task_queue: "default",
      input: blob([1]),
    });
    const runIds = [start.run_id as string];
    for (let n = 1; n <= 2; n += 1) {
      const task = await worker.mustPollWorkflow();
      expect(task.run_id).toBe(runIds.at(-1));
      const done = await worker.completeWorkflow(task, [{ type: "continue_as_new", arguments: blob([n + 1]) }]);
      expect(done.body).toMatchObject({ run_status: "completed" });
      const next = (done.body.created_task_ids as string[])[0];
      const nextRun = (
        h.db.prepare("SELECT workflow_run_id FROM workflow_tasks WHERE id = ?").get(next) as { workflow_run_id: string }
      ).workflow_run_id;
      const continued = historyOf(h.db, runIds.at(-1) as string).at(-1);
      expect(continued).toMatchObject({
        event_type: "WorkflowContinuedAsNew",
        payload: { continued_to_run_id: nextRun, continued_to_run_number: n + 1, closed_reason: "continued" },
      });
      expect(runRow(h.db, runIds.at(-1) as string)).toMatchObject({ status: "completed", closed_reason: "continued" });
      expect(historyOf(h.db, nextRun)[0]).toMatchObject({
        event_type: "WorkflowStarted",
        payload: { continued_from_run_id: runIds.at(-1) },
      });
      runIds.push(nextRun);
    }
    const last = await worker.mustPollWorkflow();
    expect(last.arguments).toEqual(blob([3]));
    await worker.completeWorkflow(last, [{ type: "complete_workflow", result: blob("end") }]);
    expect(runIds.map((id) => runRow(h.db, id).run_number)).toEqual([1, 2, 3]);
    expect(h.db.prepare("SELECT current_run_id, run_count FROM workflow_instances WHERE id = 'chain-1'").get()).toEqual(
      { current_run_id: runIds[2], run_count: 3 },
    );
    expect(h.db.prepare("SELECT COUNT(*) AS n FROM workflow_links WHERE link_type = 'continue_as_new'").get()).toEqual({
      n: 2,
    });
    const summaries = h.db
      .prepare(
        "SELECT id, is_current_run FROM workflow_run_summaries WHERE workflow_instance_id = 'chain-1' ORDER BY run_number",
      )
      .all() as { is_current_run: number }[];
    expect(summaries.map((s) => s.is_current_run)).toEqual([0, 0, 1]);
  });
});

describe("child workflows", () => {
  it.each([
    {
      name: "failure",
      childCommand: { type: "fail_workflow", message: "child broke", exception_type: "ChildError" },
      event: "ChildRunFailed",
    },
    {
      name: "completion",
      childCommand: { type: "complete_workflow", result: blob("child-out") },
      event: "ChildRunCompleted",
    },
  ])("the parent sees the child's $name", async (c) => {
    const parent = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "parent-1",
      workflow_type: "parent",
      task_queue: "default",
    });
    const pTask = await worker.mustPollWorkflow();
    const started = await worker.completeWorkflow(pTask, [
      { type: "start_child_workflow", workflow_type: "child", workflow_id: "child-1", arguments: blob(["x"]) },
    ]);
    expect(started.body.created_task_ids).toHaveLength(1);
    expect(typesOf(h.db, parent.run_id as string).slice(-2)).toEqual(["ChildWorkflowScheduled", "ChildRunStarted"]);
    const cTask = await worker.mustPollWorkflow();
    expect(cTask.workflow_id).toBe("child-1");
    expect(cTask.history_events[0]?.payload).toMatchObject({
      parent_workflow_run_id: parent.run_id,
      parent_workflow_instance_id: "parent-1",
    });
    await worker.completeWorkflow(cTask, [c.childCommand]);
    const resume = await worker.mustPollWorkflow();
    expect(resume.run_id).toBe(parent.run_id);
    const seen = resume.history_events.at(-1);
    expect(seen?.event_type).toBe(c.event);
    if (c.event === "ChildRunFailed") {
      expect(seen?.payload).toMatchObject({
        failure_category: "child_workflow",
        message: "child broke",
        exception_type: "ChildError",
        child_workflow_run_id: cTask.run_id,
      });
      expect(failuresOf(h.db, parent.run_id as string)).toEqual([
        expect.objectContaining({
          source_kind: "child_workflow_run",
          propagation_kind: "child",
          failure_category: "child_workflow",
        }),
      ]);
      await worker.completeWorkflow(resume, [
        { type: "fail_workflow", message: "child failed", exception_type: "ChildWorkflowFailed" },
      ]);
      expect(runRow(h.db, parent.run_id as string)).toMatchObject({ status: "failed", closed_reason: "failed" });
      expect(historyOf(h.db, parent.run_id as string).at(-1)).toMatchObject({
        event_type: "WorkflowFailed",
        payload: { failure_category: "application", source_kind: "workflow_run" },
      });
    } else {
      expect(seen?.payload).toMatchObject({ output: blob("child-out").blob, payload_codec: "avro" });
    }
  });
});

describe("child continue-as-new", () => {
  it("the parent waits on the child's chain and sees the last run complete", async () => {
    const parent = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "parent-can",
      workflow_type: "parent",
      task_queue: "default",
    });
    await worker.completeWorkflow(await worker.mustPollWorkflow(), [
      { type: "start_child_workflow", workflow_type: "child", workflow_id: "child-can" },
    ]);
    const first = await worker.mustPollWorkflow();
    await worker.completeWorkflow(first, [{ type: "continue_as_new", arguments: blob([2]) }]);
    const secondTask = await worker.mustPollWorkflow();
    expect(secondTask.workflow_id).toBe("child-can");
    expect(secondTask.history_events[0]?.payload).toMatchObject({
      parent_workflow_run_id: parent.run_id,
      continued_from_run_id: first.run_id,
    });
    expect(typesOf(h.db, parent.run_id as string).at(-1)).toBe("ChildRunStarted");
    await worker.completeWorkflow(secondTask, [{ type: "complete_workflow", result: blob("last") }]);
    const resume = await worker.mustPollWorkflow();
    expect(resume.run_id).toBe(parent.run_id);
    expect(resume.history_events.at(-1)).toMatchObject({
      event_type: "ChildRunCompleted",
      payload: { child_workflow_run_id: secondTask.run_id, child_run_number: 2, output: blob("last").blob },
    });
  });
});

describe("signals", () => {
  it("a signal is received, wakes the run, and is applied when that task completes", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "approve-1",
      workflow_type: "approval",
      task_queue: "default",
    });
    const first = await worker.mustPollWorkflow();
    await worker.completeWorkflow(first, [{ type: "open_signal_wait", signal_name: "approve" }]);
    expect(await worker.pollWorkflow()).toBeNull();
    const sig = h.engine.signalWorkflow({
      namespace: "default",
      workflow_id: "approve-1",
      signal_name: "approve",
      input: blob({ by: "ops" }),
      request_id: "s-1",
    });
    expect(sig).toMatchObject({ command_status: "accepted", outcome: "signal_received", signal_name: "approve" });
    expect(
      h.engine.signalWorkflow({
        namespace: "default",
        workflow_id: "approve-1",
        signal_name: "approve",
        request_id: "s-1",
      }).command_id,
    ).toBe(sig.command_id);
    const task = await worker.mustPollWorkflow();
    const types = task.history_events.map((e) => e.event_type);
    // Nothing is written at the claim; the engine applies the signal when its task completes
    // (DefaultWorkflowTaskBridge.php@8dc90d64 `recordAppliedSignalForSignalResume`).
    expect(types.slice(-2)).toEqual(["SignalWaitOpened", "SignalReceived"]);
    const opened = task.history_events.find((e) => e.event_type === "SignalWaitOpened");
    expect(task.history_events.at(-1)?.payload).toMatchObject({ signal_wait_id: opened?.payload.signal_wait_id });
    await worker.completeWorkflow(task, [{ type: "complete_workflow", result: blob("approved") }]);
    const history = historyOf(h.db, start.run_id as string);
    expect(history.slice(-2).map((e) => e.event_type)).toEqual(["SignalApplied", "WorkflowCompleted"]);
    expect(history.at(-2)?.payload).toMatchObject({
      signal_name: "approve",
      signal_wait_id: opened?.payload.signal_wait_id,
      sequence: opened?.payload.sequence,
      workflow_command_id: sig.command_id,
      // Not Avro, so kept as sent (the engine would serialise the one argument).
      value: blob({ by: "ops" }).blob,
    });
    expect(
      h.engine.signalWorkflow({ namespace: "default", workflow_id: "approve-1", signal_name: "approve" }),
    ).toMatchObject({ command_status: "rejected", outcome: "rejected_not_active", rejection_reason: "run_not_active" });
    expect(
      h.engine.signalWorkflow({
        namespace: "default",
        workflow_id: "approve-1",
        run_id: "01HISTORICAL0000000000000",
        signal_name: "approve",
      }),
    ).toMatchObject({ outcome: "rejected_not_current", rejection_reason: "selected_run_not_current" });
    expect(() =>
      h.engine.signalWorkflow({ namespace: "default", workflow_id: "missing", signal_name: "approve" }),
    ).toThrow(expect.objectContaining({ status: 404, reason: "instance_not_found" }));
    expect(runRow(h.db, start.run_id as string).status).toBe("completed");
  });
});

describe("cancel and terminate", () => {
  it.each([
    { kind: "cancel", requested: "CancelRequested", closed: "WorkflowCancelled", status: "cancelled" },
    { kind: "terminate", requested: "TerminateRequested", closed: "WorkflowTerminated", status: "terminated" },
  ] as const)("$kind closes the run, cancels its work, and refuses the running attempt", async (c) => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: `close-${c.kind}`,
      workflow_type: "closable",
      task_queue: "default",
    });
    const task = await worker.mustPollWorkflow();
    await worker.completeWorkflow(task, [
      { type: "schedule_activity", activity_type: "work" },
      { type: "start_timer", delay_seconds: 600 },
    ]);
    const activity = await worker.mustPollActivity();
    const input = {
      namespace: "default",
      workflow_id: `close-${c.kind}`,
      reason: "operator requested",
      request_id: "r-1",
    };
    const result = c.kind === "cancel" ? h.engine.cancelWorkflow(input) : h.engine.terminateWorkflow(input);
    expect(result).toMatchObject({
      command_status: "accepted",
      outcome: c.status,
      reason: "operator requested",
      rejection_reason: null,
      run_id: start.run_id,
    });
    const runId = start.run_id as string;
    expect(typesOf(h.db, runId).slice(-4)).toEqual([c.requested, "ActivityCancelled", "TimerCancelled", c.closed]);
    expect(historyOf(h.db, runId).at(-1)?.payload).toMatchObject({
      workflow_command_id: result.command_id,
      failure_category: c.status,
      closed_reason: c.status,
      reason: "operator requested",
    });
    expect(runRow(h.db, runId)).toMatchObject({ status: c.status, closed_reason: c.status });
    expect(failuresOf(h.db, runId)).toEqual([
      expect.objectContaining({ propagation_kind: c.status, failure_category: c.status }),
    ]);
    // The real server answers this heartbeat 200 (ActivityTaskController::heartbeat@11d35b7), so the
    // SDK raises ActivityCancelled rather than a generic 409 ServerError.
    const hb = await worker.heartbeatActivity(activity);
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({
      activity_attempt_id: activity.activity_attempt_id,
      reason: `run_${c.status}`,
      cancel_requested: true,
      can_continue: false,
      heartbeat_recorded: false,
      run_closed_reason: c.status,
    });
    const late = await worker.completeActivity(activity);
    expect(late.body).toMatchObject({ outcome: "ignored", recorded: false, reason: `run_${c.status}` });
    h.advance(600);
    expect(typesOf(h.db, runId).at(-1)).toBe(c.closed);
    const again =
      c.kind === "cancel"
        ? h.engine.cancelWorkflow({ ...input, request_id: "r-2" })
        : h.engine.terminateWorkflow({ ...input, request_id: "r-2" });
    expect(again).toMatchObject({
      command_status: "rejected",
      outcome: "rejected_not_active",
      rejection_reason: "run_not_active",
      reason: "run_not_active",
    });
  });
});

describe("fail_workflow with a structured exception (protocol 1.10)", () => {
  it("preserves the worker's exception object and lets its class and type win over the flat fields", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "fail-structured",
      workflow_type: "orders",
      task_queue: "default",
    });
    const task = await worker.mustPollWorkflow();
    const exception = {
      class: "app.OrderRejected",
      type: "OrderRejected",
      message: "order A-7 rejected",
      properties: { order: "A-7" },
      trace: ["app.py:12"],
    };
    const done = await worker.completeWorkflow(task, [
      {
        type: "fail_workflow",
        message: "order rejected",
        exception_class: "Flat",
        exception_type: "FlatType",
        exception,
      },
    ]);
    expect(done.body).toMatchObject({ run_status: "failed" });
    const failed = historyOf(h.db, start.run_id as string).at(-1);
    expect(failed).toMatchObject({
      event_type: "WorkflowFailed",
      payload: { exception_class: "app.OrderRejected", exception_type: "OrderRejected", message: "order rejected" },
    });
    // `array_replace([class, type, message, code 0, file '', line 0, trace [], properties []], $structured)`
    // (DefaultWorkflowTaskBridge::applyWorkflowFailure, workflow@8dc90d64): no non_retryable of its own.
    expect((failed?.payload as { exception: unknown }).exception).toEqual({ ...exception, code: 0, file: "", line: 0 });
    expect(failuresOf(h.db, start.run_id as string)[0]).toMatchObject({
      exception_class: "app.OrderRejected",
      message: "order rejected",
    });
  });
});

describe("record_side_effect and record_version_marker", () => {
  it("record the value and the marker in order, and refuse a version outside its range", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "side-1",
      workflow_type: "orders",
      task_queue: "default",
    });
    const task = await worker.mustPollWorkflow();
    const outOfRange = await worker.completeWorkflow(task, [
      { type: "record_version_marker", change_id: "c", version: 3, min_supported: 1, max_supported: 2 },
    ]);
    expect([outOfRange.status, outOfRange.body.reason]).toEqual([422, "validation_failed"]);
    const noResult = await worker.completeWorkflow(task, [{ type: "record_side_effect" }]);
    expect(noResult.status).toBe(422);
    const done = await worker.completeWorkflow(task, [
      { type: "record_side_effect", result: "AAEC" },
      { type: "record_side_effect", result: blob("from-envelope") },
      { type: "record_version_marker", change_id: "new-pricing", version: 2, min_supported: 1, max_supported: 2 },
      { type: "complete_workflow" },
    ]);
    expect(done.status).toBe(200);
    const events = historyOf(h.db, start.run_id as string).filter(
      (e) => e.event_type === "SideEffectRecorded" || e.event_type === "VersionMarkerRecorded",
    );
    const first = (events[0]?.payload as { sequence: number }).sequence;
    expect(events.map((e) => [e.event_type, e.payload])).toEqual([
      ["SideEffectRecorded", { sequence: first, result: "AAEC" }],
      ["SideEffectRecorded", { sequence: first + 1, result: blob("from-envelope").blob }],
      [
        "VersionMarkerRecorded",
        { sequence: first + 2, change_id: "new-pricing", version: 2, min_supported: 1, max_supported: 2 },
      ],
    ]);
  });
});

describe("upsert_search_attributes", () => {
  it("merges into the run's attributes (null deletes, keys sorted) and records what was sent and the result", async () => {
    const start = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "sa-1",
      workflow_type: "orders",
      task_queue: "default",
      search_attributes: { Region: "eu", Priority: 3 },
    });
    const task = await worker.mustPollWorkflow();
    const tooLong = await worker.completeWorkflow(task, [
      { type: "upsert_search_attributes", attributes: { ["k".repeat(129)]: "x" } },
    ]);
    expect([tooLong.status, tooLong.body.reason]).toEqual([422, "validation_failed"]);
    const empty = await worker.completeWorkflow(task, [{ type: "upsert_search_attributes", attributes: {} }]);
    expect(empty.status).toBe(422);
    await worker.completeWorkflow(task, [
      { type: "upsert_search_attributes", attributes: { Stage: "packed", Region: null } },
      { type: "upsert_search_attributes", attributes: { Tags: ["a", "b"] } },
      { type: "complete_workflow" },
    ]);
    const upserts = historyOf(h.db, start.run_id as string)
      .filter((e) => e.event_type === "SearchAttributesUpserted")
      .map((e) => e.payload as Record<string, unknown>);
    expect(upserts.map((p) => [p.attributes, p.merged])).toEqual([
      [
        { Stage: "packed", Region: null },
        { Priority: 3, Stage: "packed" },
      ],
      [{ Tags: ["a", "b"] }, { Priority: 3, Stage: "packed", Tags: ["a", "b"] }],
    ]);
    const row = h.db.prepare("SELECT search_attributes FROM workflow_runs WHERE id = ?").get(start.run_id) as {
      search_attributes: string;
    };
    expect(JSON.parse(row.search_attributes)).toEqual({ Priority: 3, Stage: "packed", Tags: ["a", "b"] });
  });
});
