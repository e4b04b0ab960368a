import { describe, expect, it } from "vitest";
import { attemptLedger } from "./attempts";
import { exceptionRows } from "./exceptions";
import exhausted from "./fixtures/exhausted-retries.json";
import retryThenSuccess from "./fixtures/retry-then-success.json";
import type { RunBundleInput } from "./run-bundle";
import { prepareRunBundle } from "./run-bundle";
import { timelineList, timelineRows } from "./timeline";

describe("prepareRunBundle", () => {
  it.each([
    ["retry then success", retryThenSuccess],
    ["exhausted retries", exhausted],
  ])("derives the run page's views from %s exactly as the views do, and drops the bulk", (_name, fixture) => {
    const bundle = fixture as unknown as RunBundleInput & { summary: unknown };
    const prepared = prepareRunBundle(bundle);
    expect(prepared.exceptions).toEqual(exceptionRows(bundle));
    expect(prepared.ledger).toEqual(attemptLedger(bundle.history_events, bundle.activities ?? []));
    expect(prepared.timeline.chart).toEqual(
      timelineRows(bundle.history_events, { activities: bundle.activities ?? [] }),
    );
    expect(prepared.timeline.list).toEqual(timelineList(bundle.history_events));
    expect(prepared.counts).toEqual({
      events: bundle.history_events.length,
      activities: bundle.activities?.length ?? 0,
    });
    expect(prepared.bundle.history_events).toEqual([]);
    expect(prepared.bundle.activities).toEqual([]);
    expect(prepared.bundle.summary).toEqual(bundle.summary);
    // What crosses from the worker must survive structured cloning unchanged.
    expect(structuredClone(prepared)).toEqual(prepared);
    expect(prepared.exceptions.length + prepared.ledger.length).toBeGreaterThan(0);
  });
});
