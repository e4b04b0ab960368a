import { describe, expect, it } from "vitest";
import { REAL_VERSIONS, goldenAsHistoryEvents, goldenCases, realFixture } from "@/contracts/fixtures/load";
import { SCHEMA_DECODERS } from "@/lib/dw/client";
import type { HistoryExport, HistoryPage } from "@/lib/dw";
import { attemptLedger } from "./attempts";
import { historyFilter } from "./events";
import { exceptionRows } from "./exceptions";
import { livenessLabel } from "./liveness";
import { timelineList, timelineRows } from "./timeline";

/**
 * The run page's views on what real servers send (contracts/fixtures, April 2026 and current) and on
 * the histories the official SDK and engine recorded (contracts/fixtures/golden). Bodies go through
 * the same zod decoders the console's read proxy applies before the page sees them.
 */

function decodedExport(version: (typeof REAL_VERSIONS)[number]): HistoryExport {
  const decoded = SCHEMA_DECODERS.historyExport(realFixture(version, "history-export"));
  if (!decoded.ok) throw new Error(`${version} export: ${decoded.issuePath}: ${decoded.message}`);
  return decoded.value;
}

const ACTIVITY = "01jrv0m4s8k2p6q0t3v5x7z9ac";

describe.each(REAL_VERSIONS)("run page on a real %s export (retried, then failed activity)", (version) => {
  // The views the run page derived from a whole export (the export is now for download only; the
  // streamed views are the same functions over history pages).
  const bundle = decodedExport(version);
  const prepared = {
    bundle,
    ledger: attemptLedger(bundle.history_events, bundle.activities ?? []),
    timeline: {
      chart: timelineRows(bundle.history_events, { activities: bundle.activities ?? [] }),
      list: timelineList(bundle.history_events),
    },
    exceptions: exceptionRows(bundle),
  };

  it("the attempt ledger finds attempt ids and numbers where the real payloads put them", () => {
    expect(prepared.ledger).toHaveLength(1);
    const activity = prepared.ledger[0]!;
    expect(activity).toMatchObject({
      executionId: ACTIVITY,
      executionIdKnown: true,
      type: "payments.charge",
      status: "failed",
      attemptsUsed: 2,
      maxAttempts: 2,
    });
    // The row with a null id and number joins nothing and adds no attempt.
    expect(activity.attempts.map((attempt) => [attempt.id, attempt.number, attempt.status])).toEqual([
      ["01jrv0m5a000000000000000a1", 1, "failed"],
      ["01jrv0m5a000000000000000a2", 2, "failed"],
    ]);
    const [first, second] = activity.attempts;
    // ActivityRetryScheduled carries no attempt_number: retry_after_attempt names the attempt.
    expect(first!.failure).toMatchObject({
      retried: true,
      message: "card processor timed out",
      code: "504",
      exceptionType: "CardProcessorTimeout",
      exceptionClass: "RuntimeException",
    });
    expect(first!.retry).toMatchObject({
      backoffSeconds: 2,
      nextAttempt: 2,
      nextAttemptDueAt: "2026-04-24T10:00:03.900000Z",
    });
    expect(second!.failure).toMatchObject({ retried: false, code: "503" });
  });

  it("the timeline is built from history, with a retry marker for the retried attempt", () => {
    expect(prepared.timeline.list.map((row) => row.type)).toEqual([
      "StartAccepted",
      "WorkflowStarted",
      "ActivityScheduled",
      "ActivityStarted",
      "ActivityRetryScheduled",
      "ActivityStarted",
      "ActivityFailed",
      "WorkflowFailed",
    ]);
    const retry = prepared.timeline.chart.markers.find((marker) => marker.kind === "retry");
    expect(retry).toMatchObject({ executionId: ACTIVITY, afterAttempt: 1, backoffSeconds: 2 });
    expect(prepared.timeline.chart.bars.filter((bar) => bar.kind === "activity")).toHaveLength(2);
  });

  it("the exceptions table shows both terminal failures with their activity", () => {
    expect(prepared.exceptions.map((row) => [row.sourceKind, row.activity, row.detail.code])).toEqual([
      ["activity_execution", "payments.charge", "503"],
      // fail_workflow from an HTTP worker: the engine fills in code 0 (an integer, read as text).
      ["workflow_run", null, "0"],
    ]);
  });

  it("liveness reads the export summary; the repair-blocked reason neither version sends is derived", () => {
    const view = livenessLabel(prepared.bundle.summary);
    expect(view.state).toBe("closed");
    expect(view.repairBlocked?.code).toBe("run_closed");
  });
});

describe("history page views on a real page", () => {
  it.each(REAL_VERSIONS)("%s: failures-only keeps the retried attempt and its failure", (version) => {
    const decoded = SCHEMA_DECODERS.historyPage(realFixture(version, "history-page"));
    if (!decoded.ok) throw new Error(decoded.message);
    const page: HistoryPage = decoded.value;
    expect(historyFilter(page.events, { failuresOnly: true }).map((event) => event.type)).toEqual([
      "ActivityRetryScheduled",
    ]);
  });
});

describe.each(goldenCases().map((c) => [c.id, c] as const))("golden history %s", (_id, golden) => {
  const events = goldenAsHistoryEvents(golden.history);

  it("lists every event with a summary and a kind, without timestamps", () => {
    const list = timelineList(events);
    expect(list.map((row) => row.type)).toEqual(golden.history.map((event) => event.event_type));
    for (const row of list) {
      expect(row.summary.id).toMatch(/^views\./);
      expect(row.recordedAt).toBeNull();
    }
    const chart = timelineRows(events);
    expect(chart.start).toBeNull();
  });

  it("puts each activity outcome in the attempt ledger even without execution ids", () => {
    const outcomes = golden.history.filter((event) =>
      ["ActivityCompleted", "ActivityFailed"].includes(event.event_type),
    );
    const ledger = attemptLedger(events);
    expect(ledger).toHaveLength(outcomes.length);
    for (const activity of ledger) {
      expect(activity.status).toBe("completed");
      expect(activity.attemptsUsed).toBe(1);
      expect(activity.executionIdKnown).toBe(false);
    }
  });

  it("has no exception rows: failures come from failure rows, and golden histories carry none", () => {
    expect(exceptionRows({ failures: [], history_events: events })).toEqual([]);
  });
});
