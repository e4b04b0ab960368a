import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, WorkflowTaskWire } from "../http/test-support";
import { historyOf, ScriptedWorker, startHarness, typesOf } from "../http/test-support";
import { decodePayload, encodePayload } from "../codec/codec";

/**
 * How a signal reaches history (signal-delivery.ts "How a signal reaches history"): the real engine's rule
 * (durable-workflow/workflow@8dc90d64 WorkflowStub.php, DefaultWorkflowTaskBridge.php `complete`,
 * PendingMessageTask.php) — SignalReceived when accepted, one SignalApplied for the resuming
 * signal when its task completes, then ConditionWaitSatisfied, then the commands, then a task for
 * the next received signal — except that a signal accepted while a workflow task is leased is
 * held until that lease ends, because sdk-python 2.12.0 replays the engine's order wrongly.
 * Each case drives the interleaving over HTTP with a fake clock: nothing here races.
 */

let h: Harness;
let worker: ScriptedWorker;

/** The run's contract declares `add`, as sdk-python registers it; the engine then writes SignalApplied. */
beforeEach(async () => {
  h = await startHarness();
  worker = new ScriptedWorker(h.url);
  const reg = await worker.post("/register", {
    worker_id: worker.workerId,
    task_queue: "default",
    runtime: "python",
    supported_workflow_types: ["counter"],
    workflow_command_contracts: {
      counter: {
        queries: [],
        query_contracts: [],
        signals: ["add"],
        signal_contracts: [
          {
            name: "add",
            parameters: [{ name: "n", position: 0, required: true, variadic: false, type: "int", allows_null: false }],
          },
        ],
        updates: [],
        update_contracts: [],
      },
    },
  });
  expect(reg.status).toBeLessThan(300);
});
afterEach(async () => h.close());

const WAIT = { type: "open_condition_wait", condition_key: "all" };

/** A counter run parked on its first condition wait; its id. */
async function parked(workflowId: string): Promise<string> {
  const start = h.engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: "counter",
    task_queue: "default",
  });
  await worker.completeWorkflow(await worker.mustPollWorkflow(), [WAIT]);
  return start.run_id as string;
}

function add(workflowId: string, n: number): string {
  return h.engine.signalWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    signal_name: "add",
    input: encodePayload([n]),
  }).command_id;
}

/** `[event type, the signal's argument]` from the run's stored history, the signal events only carrying it. */
function story(runId: string): [string, unknown][] {
  return historyOf(h.db, runId).map((e) => {
    const p = e.payload;
    if (e.event_type === "SignalReceived") return [e.event_type, decodePayload(p.arguments, "avro")];
    if (e.event_type === "SignalApplied") return [e.event_type, decodePayload(p.value, "avro")];
    return [e.event_type, null];
  });
}

function signalOf(task: WorkflowTaskWire): unknown {
  const t = task as unknown as Record<string, unknown>;
  const row = h.db.prepare("SELECT arguments FROM workflow_signal_records WHERE id = ?").get(t.workflow_signal_id) as
    { arguments: string } | undefined;
  return row ? decodePayload(row.arguments, "avro") : null;
}

const OPENING: [string, unknown][] = [
  ["StartAccepted", null],
  ["WorkflowStarted", null],
  ["ConditionWaitOpened", null],
];

describe("a signal accepted while a workflow task is leased", () => {
  it("goes into history after that task's completion, and the next task is for it", async () => {
    const runId = await parked("held-1");
    add("held-1", 1);
    const first = await worker.mustPollWorkflow();
    expect(signalOf(first)).toEqual([1]);
    add("held-1", 2);
    // The worker holding the lease never sees it, so neither does history yet.
    expect(story(runId).filter(([t]) => t === "SignalReceived")).toEqual([["SignalReceived", [1]]]);

    const done = await worker.completeWorkflow(first, [WAIT]);
    expect(done.status).toBe(200);
    expect(story(runId)).toEqual([
      ...OPENING,
      ["SignalReceived", [1]],
      // The engine's completion order: the resuming signal applied (its one argument as the value),
      // the wait satisfied, the task's commands — then the held signal.
      ["SignalApplied", 1],
      ["ConditionWaitSatisfied", null],
      ["ConditionWaitOpened", null],
      ["SignalReceived", [2]],
    ]);

    const second = await worker.mustPollWorkflow();
    expect(done.body.created_task_ids).toEqual([second.task_id]);
    expect(second).toMatchObject({ resume_source_kind: "workflow_signal", signal_name: "add" });
    expect(signalOf(second)).toEqual([2]);
    // Its arguments ride on the task too: sdk-rust resumes a signal wait from them.
    expect((second as unknown as Record<string, unknown>).signal_arguments).toEqual(encodePayload([2]));
    expect(second.history_events.map((e) => e.event_type)).toEqual(typesOf(h.db, runId));
    await worker.completeWorkflow(second, [{ type: "complete_workflow" }]);
    expect(story(runId).slice(-4)).toEqual([
      ["SignalReceived", [2]],
      ["SignalApplied", 2],
      ["ConditionWaitSatisfied", null],
      ["WorkflowCompleted", null],
    ]);
  });

  it("goes in before the terminal event when that task closes the run", async () => {
    const runId = await parked("held-2");
    add("held-2", 1);
    const last = await worker.mustPollWorkflow();
    add("held-2", 2);
    await worker.completeWorkflow(last, [{ type: "complete_workflow" }]);
    expect(story(runId)).toEqual([
      ...OPENING,
      ["SignalReceived", [1]],
      ["SignalApplied", 1],
      ["ConditionWaitSatisfied", null],
      ["SignalReceived", [2]],
      ["WorkflowCompleted", null],
    ]);
    const statuses = h.db
      .prepare("SELECT status FROM workflow_signal_records WHERE workflow_run_id = ? ORDER BY message_sequence")
      .all(runId) as { status: string }[];
    expect(statuses.map((s) => s.status)).toEqual(["applied", "received"]);
    expect(await worker.pollWorkflow()).toBeNull();
  });

  it("goes in before CancelRequested when the run is cancelled during the lease", async () => {
    const runId = await parked("held-3");
    add("held-3", 1);
    await worker.mustPollWorkflow();
    add("held-3", 2);
    h.engine.cancelWorkflow({ namespace: "default", workflow_id: "held-3" });
    const types = typesOf(h.db, runId);
    expect(types.slice(3, 6)).toEqual(["SignalReceived", "SignalReceived", "CancelRequested"]);
  });

  it("goes in when the lease expires, so the redelivered task sees it", async () => {
    const runId = await parked("held-4");
    add("held-4", 1);
    const first = await worker.mustPollWorkflow();
    add("held-4", 2);
    h.advance(299);
    expect(typesOf(h.db, runId).filter((t) => t === "SignalReceived")).toHaveLength(1);
    h.advance(1);
    expect(typesOf(h.db, runId).filter((t) => t === "SignalReceived")).toHaveLength(2);
    const again = await worker.mustPollWorkflow();
    expect(again.task_id).toBe(first.task_id);
    expect(again.history_events.filter((e) => e.event_type === "SignalReceived")).toHaveLength(2);
  });
});

describe("signals accepted while no task is leased", () => {
  it("are recorded at once, share the open task, and each gets its own task after it (next-signal rule)", async () => {
    const runId = await parked("free-1");
    for (const n of [1, 2, 3]) add("free-1", n);
    expect(story(runId).slice(3)).toEqual([
      ["SignalReceived", [1]],
      ["SignalReceived", [2]],
      ["SignalReceived", [3]],
    ]);
    const ready = h.db
      .prepare(
        "SELECT COUNT(*) AS n FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status = 'ready'",
      )
      .get(runId) as { n: number };
    expect(ready.n).toBe(1);

    const resumedBy: unknown[] = [];
    for (const commands of [[WAIT], [WAIT], [{ type: "complete_workflow" }]]) {
      const task = await worker.mustPollWorkflow();
      resumedBy.push(signalOf(task));
      await worker.completeWorkflow(task, commands);
    }
    expect(resumedBy).toEqual([[1], [2], [3]]);
    expect(story(runId).slice(3)).toEqual([
      ["SignalReceived", [1]],
      ["SignalReceived", [2]],
      ["SignalReceived", [3]],
      ["SignalApplied", 1],
      ["ConditionWaitSatisfied", null],
      ["ConditionWaitOpened", null],
      ["SignalApplied", 2],
      ["ConditionWaitSatisfied", null],
      ["ConditionWaitOpened", null],
      ["SignalApplied", 3],
      ["ConditionWaitSatisfied", null],
      ["WorkflowCompleted", null],
    ]);
    expect(await worker.pollWorkflow()).toBeNull();
  });
});
