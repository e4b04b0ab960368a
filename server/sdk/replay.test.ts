import { describe, expect, it } from "vitest";
import { decodePayload, encodeBlob } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import type { HistoryEvent, WorkflowCommand } from "./protocol";
import { replayWorkflow } from "./replay";
import { ActivityFailure, defineWorkflow, InvalidYieldError, NonDeterminismError } from "./workflow";
import type { WorkflowContext } from "./workflow";
import type { WorkflowDefinition } from "./workflow";
import { at } from "../invariant";

const info = { workflowId: "order-42", runId: "01run", workflowType: "Order", taskQueue: "default" };

let seq = 0;
function ev(event_type: string, payload: Record<string, unknown>): HistoryEvent {
  seq += 1;
  return { sequence: seq, event_type, payload };
}

const order = defineWorkflow("Order", function* (ctx, orderId) {
  const charge = yield* ctx.activity<{ charged: number }>("ChargeCard", [orderId, 120], {
    tries: 3,
    backoff: [5, 30],
    nonRetryable: ["PaymentDeclined"],
  });
  yield ctx.sleep(10);
  try {
    yield ctx.activity("ShipOrder", [orderId]);
  } catch (e) {
    if (!(e instanceof ActivityFailure)) throw e;
    yield ctx.activity("RefundCard", [orderId, charge.charged]);
    return { orderId, status: "refunded" };
  }
  return { orderId, status: "shipped", charged: charge.charged };
});

function run(definition: WorkflowDefinition, history: HistoryEvent[], args: PayloadValue[] = ["order-42"]) {
  return replayWorkflow({ definition, args, history, info });
}

function resultOf(commands: WorkflowCommand[]): unknown {
  const c = at(commands, 0, "command");
  if (c.type !== "complete_workflow") throw new Error(`expected complete_workflow, got ${c.type}`);
  return decodePayload(c.result);
}

describe("replay", () => {
  it("schedules the first activity with its retry policy on an empty history", () => {
    const { commands, terminal } = run(order, [ev("WorkflowStarted", {})]);
    expect(terminal).toBe(false);
    expect(commands).toHaveLength(1);
    const c = at(commands, 0, "command");
    expect(c).toMatchObject({
      type: "schedule_activity",
      activity_type: "ChargeCard",
      retry_policy: { max_attempts: 3, backoff_seconds: [5, 30], non_retryable_error_types: ["PaymentDeclined"] },
    });
    if (c.type !== "schedule_activity") throw new Error("unreachable");
    expect(decodePayload(c.arguments)).toEqual(["order-42", 120]);
  });

  it("replays a recorded history to the same next command, every time", () => {
    seq = 0;
    const history = [
      ev("WorkflowStarted", {}),
      ev("ActivityScheduled", { sequence: 1, activity_execution_id: "a1", activity_type: "ChargeCard" }),
      ev("ActivityStarted", { sequence: 1, activity_execution_id: "a1" }),
      ev("ActivityRetryScheduled", { sequence: 1, activity_execution_id: "a1" }),
      ev("ActivityStarted", { sequence: 1, activity_execution_id: "a1" }),
      ev("ActivityCompleted", {
        sequence: 1,
        activity_execution_id: "a1",
        result: encodeBlob({ charged: 120 }),
        payload_codec: "avro",
      }),
    ];
    const first = run(order, history);
    const second = run(order, history);
    expect(first.commands).toEqual([{ type: "start_timer", delay_seconds: 10 }]);
    expect(second).toEqual(first);
  });

  it("throws a terminal activity failure into the workflow, which can catch it", () => {
    seq = 0;
    const history = [
      ev("WorkflowStarted", {}),
      ev("ActivityScheduled", { sequence: 1, activity_execution_id: "a1", activity_type: "ChargeCard" }),
      ev("ActivityCompleted", {
        sequence: 1,
        activity_execution_id: "a1",
        result: { codec: "avro", blob: encodeBlob({ charged: 99 }) },
      }),
      ev("TimerScheduled", { sequence: 2, timer_id: "t1", delay_seconds: 10 }),
      ev("TimerFired", { sequence: 2, timer_id: "t1" }),
      ev("ActivityScheduled", { sequence: 3, activity_execution_id: "a2", activity_type: "ShipOrder" }),
      ev("ActivityFailed", {
        sequence: 3,
        activity_execution_id: "a2",
        message: "carrier down",
        exception_type: "CarrierDown",
        non_retryable: false,
      }),
    ];
    const step = run(order, history);
    expect(step.commands).toHaveLength(1);
    expect(step.commands[0]).toMatchObject({ type: "schedule_activity", activity_type: "RefundCard" });
    const done = run(order, [
      ...history,
      ev("ActivityScheduled", { sequence: 4, activity_execution_id: "a3", activity_type: "RefundCard" }),
      ev("ActivityCompleted", { sequence: 4, activity_execution_id: "a3", result: encodeBlob(null) }),
    ]);
    expect(done.terminal).toBe(true);
    expect(resultOf(done.commands)).toEqual({ orderId: "order-42", status: "refunded" });
  });

  it("fails the workflow with the activity's failure type when the failure is not caught", () => {
    seq = 0;
    const { commands } = run(order, [
      ev("ActivityScheduled", { sequence: 1, activity_execution_id: "a1", activity_type: "ChargeCard" }),
      ev("ActivityFailed", {
        sequence: 1,
        activity_execution_id: "a1",
        message: "card declined",
        exception_type: "PaymentDeclined",
        non_retryable: true,
      }),
    ]);
    expect(commands).toEqual([
      { type: "fail_workflow", message: "card declined", exception_type: "PaymentDeclined", non_retryable: true },
    ]);
  });

  it("reports non-determinism when the code and the history disagree", () => {
    seq = 0;
    expect(() =>
      run(order, [ev("ActivityScheduled", { sequence: 1, activity_execution_id: "a1", activity_type: "ShipOrder" })]),
    ).toThrow(NonDeterminismError);
    expect(() => run(order, [ev("TimerScheduled", { sequence: 1, timer_id: "t" })])).toThrow(NonDeterminismError);
  });

  it("fails the task, not the run, when the code yields something that is not an operation", () => {
    const broken = defineWorkflow("Broken", function* () {
      yield Promise.resolve(1) as unknown as ReturnType<WorkflowContext["sleep"]>;
      return null;
    });
    expect(() => run(broken, [])).toThrow(InvalidYieldError);
  });

  it("resolves a signal wait from the signal recorded for it, and times out to null", () => {
    const approval = defineWorkflow("Approval", function* (ctx) {
      const decision = yield* ctx.waitForSignal("approve", 3600);
      return decision === null ? "timed-out" : decision[0];
    });
    seq = 0;
    const opened = [
      ev("WorkflowStarted", {}),
      ev("SignalWaitOpened", { sequence: 1, signal_wait_id: "w1", signal_name: "approve", timeout_seconds: 3600 }),
    ];
    expect(run(approval, [ev("WorkflowStarted", {})]).commands).toEqual([
      { type: "open_signal_wait", signal_name: "approve", timeout_seconds: 3600 },
    ]);
    expect(run(approval, opened).commands).toEqual([]);
    const approved = run(approval, [
      ...opened,
      ev("SignalReceived", {
        signal_name: "approve",
        signal_wait_id: "w1",
        arguments: encodeBlob(["yes"]),
        payload_codec: "avro",
      }),
    ]);
    expect(resultOf(approved.commands)).toBe("yes");
    const timedOut = run(approval, [
      ...opened,
      ev("TimerScheduled", { timer_id: "t", signal_wait_id: "w1", timer_kind: "signal_timeout" }),
      ev("TimerFired", { timer_id: "t", signal_wait_id: "w1", timer_kind: "signal_timeout" }),
    ]);
    expect(resultOf(timedOut.commands)).toBe("timed-out");
  });

  it("runs operations in parallel and continues as new", () => {
    const batch = defineWorkflow("Batch", function* (ctx, round) {
      const [a, b] = yield* ctx.all<[number, number]>([ctx.activity("Count", ["a"]), ctx.activity("Count", ["b"])]);
      if ((round as number) < 3) return ctx.continueAsNew([(round as number) + 1]);
      return a + b;
    });
    seq = 0;
    const scheduled = run(batch, [], [1]);
    expect(scheduled.commands.map((c) => c.type)).toEqual(["schedule_activity", "schedule_activity"]);
    const history = [
      ev("ActivityScheduled", { sequence: 1, activity_execution_id: "x", activity_type: "Count" }),
      ev("ActivityScheduled", { sequence: 2, activity_execution_id: "y", activity_type: "Count" }),
      ev("ActivityCompleted", { sequence: 2, activity_execution_id: "y", result: encodeBlob(2) }),
    ];
    expect(run(batch, history, [1]).commands).toEqual([]);
    const both = [
      ...history,
      ev("ActivityCompleted", { sequence: 1, activity_execution_id: "x", result: encodeBlob(1) }),
    ];
    const next = at(run(batch, both, [1]).commands, 0, "command");
    expect(next.type).toBe("continue_as_new");
    if (next.type !== "continue_as_new") throw new Error("unreachable");
    expect(decodePayload(next.arguments)).toEqual([2]);
    expect(resultOf(run(batch, both, [3]).commands)).toBe(3);
  });

  it("resolves a child workflow from its closing event", () => {
    const parent = defineWorkflow("Parent", function* (ctx) {
      const out = yield* ctx.child<string>("Child", ["x"]);
      return `child said ${out}`;
    });
    seq = 0;
    expect(run(parent, []).commands[0]).toMatchObject({ type: "start_child_workflow", workflow_type: "Child" });
    const done = run(parent, [
      ev("ChildWorkflowScheduled", {
        sequence: 1,
        child_call_id: "c1",
        child_workflow_type: "Child",
        child_workflow_run_id: "r2",
      }),
      ev("ChildRunStarted", { sequence: 1, child_call_id: "c1", child_workflow_run_id: "r2" }),
      ev("ChildRunCompleted", {
        sequence: 1,
        child_call_id: "c1",
        child_workflow_run_id: "r2",
        output: encodeBlob("hi"),
        payload_codec: "avro",
      }),
    ]);
    expect(resultOf(done.commands)).toBe("child said hi");
  });
});

describe("replay of signals delivered before the wait", () => {
  const approval = defineWorkflow("Approval", function* (ctx) {
    const first = yield* ctx.waitForSignal("approve");
    const second = yield* ctx.waitForSignal("approve");
    return [first, second];
  });

  it("resolves from a buffered signal without opening a wait, counting Received+Applied once", () => {
    seq = 0;
    const history = [
      ev("WorkflowStarted", {}),
      ev("SignalReceived", {
        signal_id: "s1",
        signal_name: "approve",
        signal_wait_id: null,
        arguments: encodeBlob(["alice"]),
        payload_codec: "avro",
      }),
      ev("SignalApplied", {
        signal_id: "s1",
        signal_name: "approve",
        signal_wait_id: null,
        value: encodeBlob(["alice"]),
      }),
    ];
    expect(run(approval, history).commands).toEqual([{ type: "open_signal_wait", signal_name: "approve" }]);
    const done = run(approval, [
      ...history,
      ev("SignalWaitOpened", { sequence: 1, signal_wait_id: "w2", signal_name: "approve" }),
      ev("SignalReceived", {
        signal_id: "s2",
        signal_name: "approve",
        signal_wait_id: "w2",
        arguments: encodeBlob(["bob"]),
        payload_codec: "avro",
      }),
    ]);
    expect(resultOf(done.commands)).toEqual([["alice"], ["bob"]]);
  });
});
