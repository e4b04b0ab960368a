// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import { realFixture } from "@/contracts/fixtures/load";
import { SCHEMA_DECODERS } from "@/lib/dw/client";
import type { RunDescription, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { livenessLabel } from "@/lib/views/liveness";
import { RunHeader } from "@/components/run-detail/run-header";

afterEach(cleanup);

function closedRun(change: (run: RunDescription) => RunDescription): RunDescription {
  const result = SCHEMA_DECODERS.runDescription(realFixture("2026-08", "describe"));
  if (!result.ok) throw new Error(result.message);
  return change(result.value);
}

function renderHeader(run: RunDescription) {
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      {/* The header reads the namespace's search-attribute registry to type the run's values. */}
      <QueryClientProvider client={new QueryClient()}>
        <RunHeader
          namespace="default"
          describe={run}
          debug={null}
          eventCount={8}
          liveness={livenessLabel(null)}
          runs={[]}
        />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
}

describe("run header archive state", () => {
  it("shows an archived run as archived, with the server's time and reason", () => {
    renderHeader(
      closedRun((run) => ({
        ...run,
        archived_at: "2026-12-07T10:15:00Z",
        archive_reason: "kept for the audit",
        actions: { ...run.actions, can_archive: false },
      })),
    );
    const archived = screen.getByTestId("run-archived");
    expect(archived.textContent).toContain("archived");
    expect(screen.getByTestId("run-archived-detail").textContent).toBe(
      "Dec 7, 2026, 10:15:00 UTC · kept for the audit",
    );
  });

  it("shows a closed run the server no longer offers to archive as archived, without a time", () => {
    renderHeader(closedRun((run) => ({ ...run, actions: { ...run.actions, can_archive: false } })));
    expect(screen.getByTestId("run-archived").textContent).toContain("archived");
    expect(screen.queryByTestId("run-archived-detail")).toBeNull();
  });

  it("says nothing for a closed run that can still be archived", () => {
    renderHeader(closedRun((run) => run));
    expect(screen.queryByTestId("run-archived")).toBeNull();
  });
});

describe("run header wait deadline", () => {
  const now = new Date("2026-12-07T15:06:30Z");
  const openRun = () =>
    closedRun((run) => ({ ...run, is_terminal: false, status: "waiting", wait_kind: "timer", closed_at: null }));
  const debugDue = (at: string | null) =>
    ({ execution: { next_scheduled_event: { wait_deadline_at: at } } }) as unknown as WorkflowDebug;

  function renderOpen(debug: WorkflowDebug | null) {
    return render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC" now={now}>
        {/* The header reads the namespace's search-attribute registry to type the run's values. */}
        <QueryClientProvider client={new QueryClient()}>
          <RunHeader
            namespace="default"
            describe={openRun()}
            debug={debug}
            eventCount={8}
            liveness={livenessLabel(null)}
            runs={[]}
          />
        </QueryClientProvider>
      </NextIntlClientProvider>,
    );
  }

  it("shows a stuck timer's due time and how late it is", () => {
    renderOpen(debugDue("2026-12-07T15:02:30Z"));
    const due = screen.getByTestId("run-wait-due");
    expect(due.dataset.overdue).toBe("true");
    expect(due.textContent).toBe("due Dec 7, 2026, 15:02:30 UTC · overdue by 4m 0s");
  });

  it("says nothing about a due time the server did not record", () => {
    renderOpen(debugDue(null));
    expect(screen.queryByTestId("run-wait-due")).toBeNull();
  });
});
