import { describe, expect, it } from "vitest";
import type { BulkEvent, BulkSent, BulkStage } from "./bulk-runner";
import { NOT_SENT, bulkStep, bulkView, sendResults } from "./bulk-runner";

interface Plan {
  name: string;
  send: number;
}
type Outcome = { pending: number };
type Stage = BulkStage<Plan, BulkSent, Outcome>;
type Event = BulkEvent<Plan, BulkSent, Outcome>;

const accepted: BulkSent = { result: { kind: "accepted", outcome: "signal_received" } };
// The console's handler answers a 409 (run closed meanwhile) and a 422 (refused input) as `rejected`.
const conflict: BulkSent = { result: { kind: "rejected", reason: "run_not_active" } };
const invalid: BulkSent = { result: { kind: "rejected", reason: "validation_failed" } };
const unreachable: BulkSent = { result: { kind: "error", reason: "console_unreachable" } };

function run(events: readonly Event[], from: Stage = { kind: "idle" }): Stage {
  return events.reduce<Stage>((stage, event) => bulkStep(stage, event), from);
}

const planA: Plan = { name: "approve", send: 3 };
const toPlanned: Event[] = [
  { type: "plan", total: 3 },
  { type: "read", done: 2 },
  { type: "planned", plan: planA },
];
const toTracking: Event[] = [
  ...toPlanned,
  { type: "send", total: 3 },
  { type: "sent", index: 1, sent: accepted },
  { type: "sent", index: 0, sent: conflict },
  { type: "sent", index: 2, sent: accepted },
  { type: "sendsDone", now: 1_000, trackForMs: 5_000 },
];

describe("bulkStep: dry run", () => {
  it("goes idle → planning with the read count → planned", () => {
    expect(run([{ type: "plan", total: 3 }])).toEqual({ kind: "planning", read: 0, total: 3 });
    expect(run(toPlanned.slice(0, 2))).toEqual({ kind: "planning", read: 2, total: 3 });
    expect(run(toPlanned)).toEqual({ kind: "planned", plan: planA });
  });

  it("never counts more reads than targets", () => {
    expect(
      run([
        { type: "plan", total: 2 },
        { type: "read", done: 5 },
      ]),
    ).toMatchObject({ read: 2 });
  });

  it("plans at once for a flow without reads (idle → planned)", () => {
    expect(run([{ type: "planned", plan: planA }])).toEqual({ kind: "planned", plan: planA });
  });

  it("ignores a second plan start while one is shown", () => {
    const planned = run(toPlanned);
    expect(bulkStep(planned, { type: "plan", total: 9 })).toBe(planned);
    expect(bulkStep(planned, { type: "planned", plan: { name: "other", send: 0 } })).toBe(planned);
  });

  it("ignores progress and sends outside their stage", () => {
    const idle: Stage = { kind: "idle" };
    expect(bulkStep(idle, { type: "read", done: 1 })).toBe(idle);
    expect(bulkStep(idle, { type: "send", total: 1 })).toBe(idle);
    expect(bulkStep(idle, { type: "sent", index: 0, sent: accepted })).toBe(idle);
    expect(bulkStep(idle, { type: "sendsDone", now: 0, trackForMs: 1 })).toBe(idle);
    expect(bulkStep(idle, { type: "checked", outcome: { pending: 0 }, settled: true, now: 0 })).toBe(idle);
  });
});

describe("bulkStep: plan changed while planned", () => {
  it("replaces the shown plan (a signal name typed)", () => {
    const next = { name: "approved", send: 1 };
    expect(run([...toPlanned, { type: "replan", plan: next }])).toEqual({ kind: "planned", plan: next });
  });

  it("keeps the sent plan once sending began, and ignores a replan while planning", () => {
    const sending = run([...toPlanned, { type: "send", total: 3 }]);
    expect(bulkStep(sending, { type: "replan", plan: { name: "late", send: 0 } })).toBe(sending);
    const planning = run(toPlanned.slice(0, 1));
    expect(bulkStep(planning, { type: "replan", plan: planA })).toBe(planning);
  });
});

describe("bulkStep: sending", () => {
  it("freezes the plan and records each item's result where it belongs", () => {
    const sending = run([...toPlanned, { type: "send", total: 3 }, { type: "sent", index: 2, sent: invalid }]);
    expect(sending).toEqual({ kind: "sending", plan: planA, sent: 1, total: 3, results: [null, null, invalid] });
  });

  it("counts an item once, and not at all outside the plan", () => {
    const once = run([...toPlanned, { type: "send", total: 3 }, { type: "sent", index: 0, sent: accepted }]);
    expect(bulkStep(once, { type: "sent", index: 0, sent: conflict })).toBe(once);
    expect(bulkStep(once, { type: "sent", index: 3, sent: accepted })).toBe(once);
    expect(bulkStep(once, { type: "sent", index: -1, sent: accepted })).toBe(once);
  });

  it("keeps partial failures (409, 422, unreachable) per item into tracking", () => {
    const stage = run([
      ...toPlanned,
      { type: "send", total: 4 },
      { type: "sent", index: 0, sent: accepted },
      { type: "sent", index: 1, sent: conflict },
      { type: "sent", index: 2, sent: invalid },
      { type: "sent", index: 3, sent: unreachable },
      { type: "sendsDone", now: 0, trackForMs: 10 },
    ]);
    expect(stage.kind).toBe("tracking");
    if (stage.kind !== "tracking") return;
    expect(sendResults(stage.results)).toEqual([accepted.result, conflict.result, invalid.result, unreachable.result]);
  });

  it("stopped mid-send: the items never sent count as not sent", () => {
    const stage = run([
      ...toPlanned,
      { type: "send", total: 3 },
      { type: "sent", index: 0, sent: accepted },
      { type: "sendsDone", now: 0, trackForMs: 10 },
    ]);
    expect(stage).toMatchObject({ kind: "tracking", results: [accepted, null, null], outcome: null, checks: 0 });
    if (stage.kind !== "tracking") return;
    expect(sendResults(stage.results)).toEqual([accepted.result, NOT_SENT, NOT_SENT]);
  });

  it("goes from planned to sending only", () => {
    const tracking = run(toTracking);
    expect(bulkStep(tracking, { type: "send", total: 1 })).toBe(tracking);
  });
});

describe("bulkStep: tracking", () => {
  it("starts with no outcome and the bound from the end of the sends", () => {
    expect(run(toTracking)).toEqual({
      kind: "tracking",
      plan: planA,
      results: [conflict, accepted, accepted],
      outcome: null,
      checks: 0,
      until: 6_000,
    });
  });

  it("keeps tracking while unconfirmed and inside the bound", () => {
    const stage = run([...toTracking, { type: "checked", outcome: { pending: 2 }, settled: false, now: 2_000 }]);
    expect(stage).toMatchObject({ kind: "tracking", outcome: { pending: 2 }, checks: 1 });
  });

  it("is done once every accepted item is confirmed", () => {
    const stage = run([
      ...toTracking,
      { type: "checked", outcome: { pending: 1 }, settled: false, now: 2_000 },
      { type: "checked", outcome: { pending: 0 }, settled: true, now: 3_000 },
    ]);
    expect(stage).toEqual({
      kind: "done",
      plan: planA,
      results: [conflict, accepted, accepted],
      outcome: { pending: 0 },
      checks: 2,
      why: "settled",
    });
  });

  it("gives up at the bound with the last outcome", () => {
    const stage = run([...toTracking, { type: "checked", outcome: { pending: 1 }, settled: false, now: 6_001 }]);
    expect(stage).toMatchObject({ kind: "done", outcome: { pending: 1 }, checks: 1, why: "bound" });
  });

  it("settled wins over the bound on the same check", () => {
    const stage = run([...toTracking, { type: "checked", outcome: { pending: 0 }, settled: true, now: 99_000 }]);
    expect(stage).toMatchObject({ kind: "done", why: "settled" });
  });

  it("ignores checks once done", () => {
    const done = run([...toTracking, { type: "checked", outcome: { pending: 0 }, settled: true, now: 2_000 }]);
    expect(bulkStep(done, { type: "checked", outcome: { pending: 5 }, settled: false, now: 2_500 })).toBe(done);
  });
});

describe("bulkStep: cancel", () => {
  it("cancels every stage that still moves, and remembers which", () => {
    const stages: Stage[] = [
      { kind: "idle" },
      run(toPlanned.slice(0, 1)),
      run(toPlanned),
      run([...toPlanned, { type: "send", total: 3 }]),
      run(toTracking),
    ];
    expect(stages.map((stage) => bulkStep(stage, { type: "cancel" }))).toEqual([
      { kind: "cancelled", from: "idle" },
      { kind: "cancelled", from: "planning" },
      { kind: "cancelled", from: "planned" },
      { kind: "cancelled", from: "sending" },
      { kind: "cancelled", from: "tracking" },
    ]);
  });

  it("leaves done and cancelled as they are", () => {
    const done = run([...toTracking, { type: "checked", outcome: { pending: 0 }, settled: true, now: 2_000 }]);
    expect(bulkStep(done, { type: "cancel" })).toBe(done);
    const cancelled = run([{ type: "cancel" }]);
    expect(bulkStep(cancelled, { type: "cancel" })).toBe(cancelled);
  });

  it("ignores late reads, sends and checks after a cancel, but may plan again", () => {
    const cancelled = run([...toPlanned.slice(0, 1), { type: "cancel" }]);
    expect(bulkStep(cancelled, { type: "read", done: 3 })).toBe(cancelled);
    expect(bulkStep(cancelled, { type: "planned", plan: planA })).toBe(cancelled);
    expect(bulkStep(cancelled, { type: "sent", index: 0, sent: accepted })).toBe(cancelled);
    expect(bulkStep(cancelled, { type: "checked", outcome: { pending: 0 }, settled: true, now: 0 })).toBe(cancelled);
    expect(bulkStep(cancelled, { type: "plan", total: 2 })).toEqual({ kind: "planning", read: 0, total: 2 });
  });
});

describe("bulkView", () => {
  it("shows the reads while planning and the plan once made", () => {
    expect(bulkView(run(toPlanned.slice(0, 2)))).toMatchObject({ shown: "planning", reads: { read: 2, total: 3 } });
    expect(bulkView(run(toPlanned))).toMatchObject({ shown: "planned", plan: planA, progress: null });
  });

  it("shows the send progress until the first check came back", () => {
    const sending = run([...toPlanned, { type: "send", total: 3 }, { type: "sent", index: 0, sent: accepted }]);
    expect(bulkView(sending)).toMatchObject({ shown: "sending", plan: planA, progress: { sent: 1, total: 3 } });
    expect(bulkView(run(toTracking))).toMatchObject({
      shown: "sending",
      progress: { sent: 3, total: 3 },
      outcome: null,
    });
  });

  it("shows the latest tally, then the same tally as done", () => {
    const checked = run([...toTracking, { type: "checked", outcome: { pending: 1 }, settled: false, now: 2_000 }]);
    expect(bulkView(checked)).toMatchObject({ shown: "tracking", outcome: { pending: 1 }, checks: 1, done: false });
    const done = bulkStep(checked, { type: "checked", outcome: { pending: 0 }, settled: true, now: 3_000 });
    expect(bulkView(done)).toMatchObject({ shown: "tracking", outcome: { pending: 0 }, checks: 2, done: true });
  });

  it("shows nothing of a cancelled panel", () => {
    expect(bulkView(bulkStep(run(toTracking), { type: "cancel" }))).toMatchObject({ shown: "cancelled", plan: null });
  });
});
