// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import { goldenAsHistoryEvents, goldenCases, realFixture } from "@/contracts/fixtures/load";
import type { RealVersion } from "@/contracts/fixtures/load";
import { SCHEMA_DECODERS } from "@/lib/dw/client";
import { attemptLedger } from "@/lib/views/attempts";
import { livenessLabel } from "@/lib/views/liveness";
import { ActivitiesLedger } from "@/components/run-detail/activities-ledger";
import { RunHeader } from "@/components/run-detail/run-header";

afterEach(cleanup);

function decoded<T>(
  decode: (json: unknown) => { ok: true; value: T } | { ok: false; message: string },
  json: unknown,
): T {
  const result = decode(json);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function renderHeader(version: RealVersion) {
  const describeBody = decoded(SCHEMA_DECODERS.runDescription, realFixture(version, "describe"));
  const bundle = decoded(SCHEMA_DECODERS.historyExport, realFixture(version, "history-export"));
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      {/* The header reads the namespace's search-attribute registry to type the run's values. */}
      <QueryClientProvider client={new QueryClient()}>
        <RunHeader
          namespace="default"
          describe={describeBody}
          debug={null}
          eventCount={bundle.history_events.length}
          liveness={livenessLabel(bundle.summary)}
          runs={[]}
        />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
}

describe("run header on real servers", () => {
  it.each(["2026-04", "2026-08"] as const)("shows the %s run's event count, without export jargon", (version) => {
    renderHeader(version);
    expect(screen.getByTestId("history-event-count").textContent).toBe("8 events");
    expect(screen.getByTestId("run-history-budget").textContent).not.toMatch(/export/i);
  });

  it("renders a JSON-list memo", () => {
    renderHeader("2026-08");
    expect(screen.getByTestId("run-memo").textContent).toContain("vip");
  });
});

describe("activity ledger on a golden history without execution ids", () => {
  it("shows the activity and says its execution id was not recorded", () => {
    const golden = goldenCases().find(
      (c) => c.id === "sdk-python/python-sdk-2.0.0-rc.30-avro-signal.json#signal_satisfies_wait_condition",
    );
    if (!golden) throw new Error("golden case missing");
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        <ActivitiesLedger activities={attemptLedger(goldenAsHistoryEvents(golden.history))} />
      </NextIntlClientProvider>,
    );
    expect(screen.getAllByTestId("ledger-activity")).toHaveLength(1);
    expect(screen.getByTestId("execution-id-unknown").textContent).toBe("Execution id not recorded in this history");
  });
});
