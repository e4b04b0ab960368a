import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Harness, ScriptedWorker as Worker } from "../http/test-support";
import { blob, startWorkerHarness } from "../http/test-support";
import type { HistoryEventView } from "./history";
import { readHistoryPage, toEventView } from "./history";
import { HistoryCache } from "./history-cache";
import type { HistoryRow } from "./rows";

function event(sequence: number): HistoryEventView {
  return {
    id: `e${sequence}`,
    sequence,
    event_type: "ActivityCompleted",
    timestamp: null,
    payload: {},
    workflow_task_id: null,
    workflow_command_id: null,
  };
}
const events = (n: number): HistoryEventView[] => Array.from({ length: n }, (_, i) => event(i + 1));

describe("HistoryCache", () => {
  it("keeps only contiguous prefixes from sequence 1, and the longest one seen", () => {
    const cache = new HistoryCache();
    cache.publish("r1", [event(2), event(3)]);
    expect(cache.prefix("r1")).toEqual([]);
    cache.publish("r1", [event(1), event(3)]);
    expect(cache.prefix("r1")).toEqual([]);
    cache.publish("r1", events(3));
    cache.publish("r1", events(2));
    expect(cache.prefix("r1")).toHaveLength(3);
  });

  it("evicts the least recently used runs beyond its event budget and skips very long histories", () => {
    const cache = new HistoryCache(10);
    cache.publish("a", events(4));
    cache.publish("b", events(4));
    cache.prefix("a");
    cache.publish("c", events(4));
    expect(cache.prefix("b")).toEqual([]);
    expect(cache.prefix("a")).toHaveLength(4);
    expect(cache.size).toEqual({ runs: 2, events: 8 });
    cache.publish("huge", events(2_001));
    expect(cache.prefix("huge")).toEqual([]);
  });
});

describe("workflow task history from the cache", () => {
  let h: Harness;
  let worker: Worker;
  beforeEach(async () => {
    ({ h, worker } = await startWorkerHarness());
  });
  afterEach(async () => h.close());

  const stored = (runId: string): HistoryEventView[] =>
    (
      h.db
        .prepare("SELECT * FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence")
        .all(runId) as HistoryRow[]
    ).map(toEventView);

  it("hands every task exactly the stored history, paged or not", async () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cached-1",
      workflow_type: "chain",
      task_queue: "default",
      input: blob([3]),
    }).run_id as string;
    for (let step = 0; step < 4; step++) {
      const task = await worker.mustPollWorkflow();
      // Over HTTP: what the worker receives is the stored history, whether or not it came from the cache.
      expect(task.history_events).toEqual(JSON.parse(JSON.stringify(stored(run))));
      // Paged reads (the /history call) start inside the cached prefix and run past it.
      const page = readHistoryPage(h.engine.db, run, Buffer.from("2").toString("base64"), 3);
      expect(page.events.map((e) => e.sequence)).toEqual(
        stored(run)
          .slice(2, 5)
          .map((e) => e.sequence),
      );
      if (step < 3) {
        await worker.completeWorkflow(task, [
          { type: "schedule_activity", activity_type: "Step", arguments: blob([step]) },
        ]);
        await worker.completeActivity(await worker.mustPollActivity(), blob({ step }));
      } else {
        await worker.completeWorkflow(task, [{ type: "complete_workflow", result: blob("done") }]);
      }
    }
    expect(stored(run).at(-1)?.event_type).toBe("WorkflowCompleted");
  });

  it("publishes nothing from a transition that rolled back", async () => {
    const run = h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "cached-2",
      workflow_type: "chain",
      task_queue: "default",
    }).run_id as string;
    // A transition that reads the history (as a claim does) and then fails: its reads were of
    // rows it may have written itself, so nothing of it may be kept.
    expect(() =>
      h.engine.transaction((tx) => {
        tx.appendEvent(run, "SignalReceived", { signal_name: "phantom" });
        tx.historyOffers.set(run, readHistoryPage(tx.db, run, null, 100).events);
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    const task = await worker.mustPollWorkflow();
    expect(task.history_events.map((e) => e.event_type)).toEqual(["StartAccepted", "WorkflowStarted"]);
  });
});
