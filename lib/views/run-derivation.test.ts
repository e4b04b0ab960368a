import { describe, expect, it } from "vitest";
import { REAL_VERSIONS, goldenAsHistoryEvents, goldenCases, realFixture } from "@/contracts/fixtures/load";
import { attemptLedger } from "./attempts";
import type { HistoryEventInput } from "./events";
import type { FailureInput } from "./exceptions";
import { exceptionRows } from "./exceptions";
import type { DerivedChunk, DerivedSnapshot } from "./run-derivation";
import { RunDerivation, assembleRunView } from "./run-derivation";
import { timelineList, timelineRows } from "./timeline";
import { CLOSED_WAITS_KEPT } from "./waits";
import { syntheticHistory } from "./fixtures/synthetic-history";
import activityTimeout from "./fixtures/activity-timeout.json";
import exhausted from "./fixtures/exhausted-retries.json";
import leaseExpiry from "./fixtures/lease-expiry.json";
import nonRetryable from "./fixtures/non-retryable.json";
import retryPending from "./fixtures/retry-pending.json";
import retryThenSuccess from "./fixtures/retry-then-success.json";

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

interface Case {
  name: string;
  history: readonly HistoryEventInput[];
  failures: readonly FailureInput[];
}

function exportCase(name: string, bundle: { history_events: unknown; failures?: unknown }): Case {
  return {
    name,
    history: bundle.history_events as HistoryEventInput[],
    failures: (bundle.failures ?? []) as FailureInput[],
  };
}

const CASES: Case[] = [
  ...goldenCases().map((golden) => ({ name: golden.id, history: goldenAsHistoryEvents(golden.history), failures: [] })),
  exportCase("fixtures/activity-timeout", activityTimeout),
  exportCase("fixtures/exhausted-retries", exhausted),
  exportCase("fixtures/lease-expiry", leaseExpiry),
  exportCase("fixtures/non-retryable", nonRetryable),
  exportCase("fixtures/retry-pending", retryPending),
  exportCase("fixtures/retry-then-success", retryThenSuccess),
  ...REAL_VERSIONS.map((version) =>
    exportCase(`real ${version} export`, realFixture(version, "history-export") as { history_events: unknown }),
  ),
  { name: "synthetic closed run, 150 cycles", history: syntheticHistory(150), failures: [] },
  { name: "synthetic open run, 150 cycles", history: syntheticHistory(150, { open: true }), failures: [] },
];

function pages<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function derive(history: readonly HistoryEventInput[], size: number, recentFailures: readonly FailureInput[] = []) {
  const derivation = new RunDerivation({ recentFailures });
  const chunks: DerivedChunk[] = [];
  const sorted = [...history].sort((a, b) => a.sequence - b.sequence);
  let snapshot: DerivedSnapshot = derivation.snapshot(NOW);
  for (const page of pages(sorted, size)) {
    chunks.push(...derivation.add(page));
    // An open run is viewed after every page: the snapshot must not consume anything.
    snapshot = derivation.snapshot(NOW);
  }
  return { derivation, chunks, snapshot };
}

describe.each([1, 7, 1000])("paged derivation, pages of %i, equals the batch views", (size) => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const { derivation, chunks, snapshot } = derive(c.history, size, c.failures);
    const view = assembleRunView(chunks, snapshot);
    expect(view.ledger).toEqual(attemptLedger(c.history));
    expect(view.chart).toEqual(timelineRows(c.history, { now: NOW }));
    expect(view.list).toEqual(timelineList(c.history));
    expect(view.exceptions).toEqual(exceptionRows({ recent_failures: c.failures }, c.history));
    expect(view.lastSequence).toBe(Math.max(0, ...c.history.map((event) => event.sequence)));
    expect(view.counts).toEqual({
      events: c.history.length,
      activities: view.ledger.length,
      failures: view.exceptions.length,
    });
    expect(derivation.snapshot(NOW)).toEqual(snapshot);
  });
});

describe("RunDerivation", () => {
  it("never changes an activity once it is in a chunk", () => {
    const history = syntheticHistory(400);
    const derivation = new RunDerivation();
    const emitted: { row: unknown; copy: unknown; id: string }[] = [];
    for (const page of pages(history, 13)) {
      for (const chunk of derivation.add(page)) {
        if (chunk.t !== "ledger") continue;
        for (const row of chunk.rows) emitted.push({ row, copy: structuredClone(row), id: row.executionId });
      }
    }
    const batch = new Map(attemptLedger(history).map((activity) => [activity.executionId, activity]));
    // Out-of-order closes hold later activities back, but every closed one is out by the end.
    expect(emitted).toHaveLength(batch.size);
    expect(emitted.map((e) => e.id)).toEqual([...batch.keys()]);
    for (const { row, copy, id } of emitted) {
      expect(row).toEqual(copy); // not mutated after it was handed out
      expect(row).toEqual(batch.get(id));
    }
  });

  it("holds back a closed activity until every earlier one is closed (ledger chunks are a prefix)", () => {
    const history = syntheticHistory(3);
    const derivation = new RunDerivation();
    const firstClose = history.findIndex((e) => e.event_type === "ActivityCompleted");
    derivation.add(history.slice(0, firstClose + 1)); // act-1 closed, act-0 still open
    expect(derivation.snapshot().openLedger.map((a) => [a.executionId, a.status])).toEqual([
      ["act-0", "running"],
      ["act-1", "completed"],
    ]);
    const rest = derivation.add(history.slice(firstClose + 1));
    const ledger = rest.flatMap((chunk) => (chunk.t === "ledger" ? chunk.rows.map((r) => r.executionId) : []));
    expect(ledger).toEqual(["act-0", "act-1", "act-2"]);
  });

  it("drops settled state: activities held stay bounded over 20,000 cycles", () => {
    const history = syntheticHistory(20_000);
    const derivation = new RunDerivation();
    let maxHeld = 0;
    let emitted = 0;
    for (const page of pages(history, 1000)) {
      for (const chunk of derivation.add(page)) if (chunk.t === "ledger") emitted += chunk.rows.length;
      maxHeld = Math.max(maxHeld, derivation.heldActivities);
    }
    expect(emitted).toBe(20_000);
    expect(maxHeld).toBeLessThan(5);
    const snapshot = derivation.snapshot();
    expect(snapshot.openLedger).toEqual([]);
    expect(snapshot.chart.bars.filter((bar) => bar.kind === "activity")).toEqual([]);
    expect(snapshot.chart.markers).toEqual([]);
    expect(snapshot.counts.activities).toBe(20_000);
    // One wait per activity: only the newest closed ones are kept, the rest are counted.
    expect(snapshot.waits.length).toBeLessThanOrEqual(CLOSED_WAITS_KEPT);
    expect(snapshot.waits.length + (snapshot.waitsOmitted ?? 0)).toBeGreaterThan(20_000);
  }, 120_000); // ~80,000 events: generous on a shared 2-core machine; it asserts no timing

  it("ignores pages or events it has already read", () => {
    const history = syntheticHistory(20);
    const once = derive(history, 1000);
    const derivation = new RunDerivation();
    const chunks = [...derivation.add(history.slice(0, 40)), ...derivation.add(history.slice(30))];
    expect(derivation.add(history.slice(0, 10))).toEqual([]);
    expect(assembleRunView(chunks, derivation.snapshot(NOW))).toEqual(assembleRunView(once.chunks, once.snapshot));
  });

  it("ignores an event naming an activity after it closed, in the paged and the batch ledger alike", () => {
    const history: HistoryEventInput[] = [
      { sequence: 1, event_type: "ActivityScheduled", payload: { activity_execution_id: "a" } },
      {
        sequence: 2,
        event_type: "ActivityStarted",
        payload: { activity_execution_id: "a", activity_attempt_id: "a1" },
      },
      {
        sequence: 3,
        event_type: "ActivityCompleted",
        payload: { activity_execution_id: "a", activity_attempt_id: "a1" },
      },
      {
        sequence: 4,
        event_type: "ActivityHeartbeatRecorded",
        payload: { activity_execution_id: "a", activity_attempt_id: "a1" },
      },
    ];
    expect(attemptLedger(history).map((a) => [a.executionId, a.status])).toEqual([["a", "completed"]]);
    const { chunks, snapshot } = derive(history, 1);
    expect(assembleRunView(chunks, snapshot).ledger).toEqual(attemptLedger(history));
  });
});

describe("exceptions without the export", () => {
  const history = syntheticHistory(100);

  it("builds a row per failure event, with the exception type, location and trace from the event", () => {
    const rows = derive(history, 1000).snapshot.exceptions;
    // Cycles 7, 39 and 71 exhaust their attempts; the run fails at the end.
    expect(rows.map((row) => row.id)).toEqual(["fail-7", "fail-39", "fail-71", "fail-run"]);
    expect(rows[0]).toMatchObject({
      activity: "SyncLedger",
      sourceKind: "activity_execution",
      sourceId: "act-7",
      type: "LedgerConflict",
      category: "activity",
      handled: true, // FailureHandled
      detail: {
        exceptionClass: "App\\Exceptions\\LedgerConflict",
        location: "/app/src/Ledger/LedgerClient.php:88",
        traceLines: [
          "App\\Ledger\\LedgerClient->post() in /app/src/Ledger/LedgerClient.php:88",
          "App\\Activities\\SyncLedger->handle() in /app/src/Activities/SyncLedger.php:41",
        ],
      },
    });
    expect(rows[3]).toMatchObject({ sourceKind: "workflow_run", sourceId: "run-1", category: "application" });
  });

  it("merges debug recent_failures by id: handled and row-only failures from the row, the type from the event", () => {
    const recent: FailureInput[] = [
      {
        failure_id: "fail-39",
        source_kind: "activity_execution",
        source_id: "act-39",
        exception_class: "App\\Exceptions\\LedgerConflict",
        message: "Ledger service rejected the batch (HTTP 409).",
        handled: true,
        created_at: "2026-11-30T12:10:00.000000Z",
      },
      {
        failure_id: "row-only",
        source_kind: "workflow_run",
        exception_class: "RuntimeException",
        message: "recorded without an event",
        created_at: "2026-11-30T12:20:00.000000Z",
      },
    ];
    const rows = derive(history, 7, recent).snapshot.exceptions;
    expect(rows.map((row) => [row.id, row.handled, row.type, row.eventSequence !== null])).toEqual([
      ["fail-7", true, "LedgerConflict", true],
      ["fail-39", true, "LedgerConflict", true],
      ["fail-71", false, "LedgerConflict", true],
      ["fail-run", false, "LedgerConflict", true],
      ["row-only", false, "RuntimeException", false],
    ]);
    expect(rows[1]?.loggedAt).toBe("2026-11-30T12:10:00.000000Z");
  });
});

describe("derived waits", () => {
  it("derives activity, timer, signal, condition, update and child waits with the engine's statuses", () => {
    const { snapshot } = derive(syntheticHistory(60, { open: true }), 7);
    const byId = new Map(snapshot.waits.map((wait) => [wait.id, wait]));
    expect(byId.get("activity:act-0")).toMatchObject({
      kind: "activity",
      status: "resolved",
      summary: "Activity ChargeCard completed.",
    });
    expect(byId.get("activity:act-7")).toMatchObject({ status: "resolved", summary: "Activity SyncLedger failed." });
    expect(byId.get("activity:act-open")).toMatchObject({
      status: "open",
      summary: "Waiting for activity SyncLedger.",
      resolved_at: null,
    });
    expect(byId.get("timer:timer-50")).toMatchObject({ kind: "timer", status: "resolved", summary: "Timer fired." });
    expect(byId.get("timer:timer-50")?.deadline_at).toMatch(/^2026-11-30T/);
    expect(byId.get("sig-0")).toMatchObject({ kind: "signal", status: "open", summary: "Waiting for signal approve." });
    expect(byId.get("cond-1")).toMatchObject({
      kind: "condition",
      status: "resolved",
      summary: "Condition satisfied.",
    });
    expect(byId.get("update:upd-1")).toMatchObject({
      kind: "update",
      status: "resolved",
      summary: "Update raiseLimit completed.",
    });
    expect(byId.get("child:child-1")).toMatchObject({
      kind: "child",
      status: "open",
      target_name: "audit-1",
      summary: "Waiting for child workflow Audit.",
    });
    // Open first (RunWaitView orders by status, then opening time).
    const firstClosed = snapshot.waits.findIndex((wait) => wait.status !== "open");
    expect(snapshot.waits.slice(firstClosed).every((wait) => wait.status !== "open")).toBe(true);
  });

  it("a closing run ends the open signal waits", () => {
    const history = syntheticHistory(60, { open: true });
    const closed = [
      ...history,
      { sequence: history.length + 1, event_type: "WorkflowCancelled", timestamp: null, payload: {} },
    ];
    const wait = derive(closed, 1000).snapshot.waits.find((w) => w.id === "sig-0");
    expect(wait).toMatchObject({ status: "cancelled", summary: "Signal wait ended when the run was cancelled." });
  });

  it.each(REAL_VERSIONS)("matches the real %s export's projected waits by id, kind and status", (version) => {
    const bundle = realFixture(version, "history-export") as { history_events: HistoryEventInput[]; waits: unknown[] };
    const derived = derive(bundle.history_events, 1).snapshot.waits;
    const projected = (bundle.waits as { id: string; kind: string; status: string }[]).map(({ id, kind, status }) => ({
      id,
      kind,
      status,
    }));
    expect(derived.map(({ id, kind, status }) => ({ id, kind, status }))).toEqual(projected);
  });
});
