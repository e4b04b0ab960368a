// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import { realFixture } from "@/contracts/fixtures/load";
import { SCHEMA_DECODERS } from "@/lib/dw/client";
import type { HistoryEventInput } from "@/lib/views/events";
import type { LedgerActivity } from "@/lib/views/attempts";
import { attemptLedger } from "@/lib/views/attempts";
import { timelineList } from "@/lib/views/timeline";
import type { RunViewData } from "@/lib/run-view/stream";
import { ndjson, runViewLines, streamedResponse } from "@/lib/run-view/fake";
import { RunViewProgress } from "@/components/run-detail/run-view-progress";
import { ActivitiesTab, LEDGER_PAGE_SIZE } from "@/components/run-detail/activities-ledger";
import { RunDetail } from "@/components/run-detail/run-detail";

vi.mock("next/navigation", () => ({
  useSearchParams: () => new URLSearchParams(),
  useRouter: () => ({ push: vi.fn(), replace: vi.fn(), refresh: vi.fn() }),
  usePathname: () => "/namespaces/default/workflows/order-42/runs/r",
}));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function withIntl(node: React.ReactNode) {
  return (
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      {node}
    </NextIntlClientProvider>
  );
}

function viewData(change: Partial<RunViewData>): RunViewData {
  return {
    version: 1,
    status: "reading",
    read: 0,
    total: null,
    meta: null,
    error: null,
    tailError: null,
    complete: false,
    closedLedger: [],
    list: [],
    listPending: false,
    bars: [],
    markers: [],
    snapshot: null,
    ...change,
  };
}

describe("RunViewProgress", () => {
  it("says how many of the run's events are read, with the numbers as attributes", () => {
    render(withIntl(<RunViewProgress data={viewData({ read: 12_000, total: 50_000 })} onRetry={() => undefined} />));
    const line = screen.getByTestId("run-view-progress");
    expect(line.textContent).toContain("12,000 of 50,000 events read");
    expect(line.dataset).toMatchObject({ state: "reading", read: "12000", total: "50000" });
  });

  it("says when every event was read, and no export jargon", () => {
    const meta = { closed: true, total: 1, cache: "hit" as const, pageSize: 1000, exportOnly: ["tasks", "commands"] };
    render(
      withIntl(
        <RunViewProgress
          data={viewData({ status: "done", complete: true, read: 1, total: 1, meta })}
          onRetry={() => undefined}
        />,
      ),
    );
    expect(screen.getByTestId("run-view-progress").textContent).toContain("All 1 event read");
    expect(screen.getByTestId("run-view-progress").textContent).not.toMatch(/export/i);
  });

  it("shows the failure with a retry", () => {
    const onRetry = vi.fn();
    const error = {
      reason: "server_unavailable" as const,
      httpStatus: 504,
      message: "upstream timed out",
      namespace: null,
    };
    render(
      withIntl(
        <RunViewProgress data={viewData({ status: "error", read: 3000, total: 9000, error })} onRetry={onRetry} />,
      ),
    );
    const line = screen.getByTestId("run-view-progress");
    expect(line.dataset.state).toBe("error");
    expect(line.textContent).toContain("Reading the history stopped: upstream timed out");
    fireEvent.click(screen.getByRole("button", { name: "Read again" }));
    expect(onRetry).toHaveBeenCalledOnce();
  });
});

describe("ActivitiesTab", () => {
  const exhausted = realFixture("2026-08", "history-export") as unknown as { history_events: HistoryEventInput[] };
  const one = attemptLedger(exhausted.history_events)[0]!;
  const many = (count: number, from = 0): LedgerActivity[] =>
    Array.from({ length: count }, (_, i) => ({ ...one, executionId: `exec-${from + i}`, type: `act.${from + i}` }));

  it("draws the first page while the ledger streams, a few cards per task, then pages through the rest", async () => {
    const closedLedger = many(120);
    const { rerender } = render(withIntl(<ActivitiesTab data={viewData({ closedLedger })} />));
    const ledger = screen.getByTestId("activities-ledger");
    expect(ledger.dataset).toMatchObject({ total: "120", complete: "false" });
    // Not all 50 cards in the first task (each is a table): they follow in the next few.
    expect(screen.getAllByTestId("ledger-activity").length).toBeLessThan(LEDGER_PAGE_SIZE);
    // jsdom draws each card (a table) slowly on a shared machine: give the tasks time, not a count.
    const slow = { timeout: 15_000 };
    await waitFor(() => expect(screen.getAllByTestId("ledger-activity")).toHaveLength(LEDGER_PAGE_SIZE), slow);
    expect(screen.getByTestId("activities-range").textContent).toBe("Activities 1–50 of 120 so far (reading history…)");
    fireEvent.click(screen.getAllByRole("button", { name: "Next 50" })[0]!);
    await waitFor(() => expect(screen.getAllByTestId("ledger-activity")).toHaveLength(50), slow);
    expect(screen.getAllByTestId("ledger-activity")[0]!.dataset.activityType).toBe("act.50");

    // The snapshot's open activities follow the closed ones; the last page holds them.
    const snapshot = { openLedger: many(5, 120) } as unknown as RunViewData["snapshot"];
    rerender(withIntl(<ActivitiesTab data={viewData({ closedLedger, snapshot, complete: true, status: "done" })} />));
    expect(screen.getByTestId("activities-ledger").dataset).toMatchObject({ total: "125", complete: "true" });
    fireEvent.click(screen.getAllByRole("button", { name: "Next 50" })[0]!);
    await waitFor(() => expect(screen.getAllByTestId("ledger-activity")).toHaveLength(25), slow);
    const last = screen.getAllByTestId("ledger-activity");
    expect(last.at(-1)!.dataset.activityType).toBe("act.124");
  });
});

describe("RunDetail over the run-view stream", () => {
  const decode = <T,>(
    decoder: (json: unknown) => { ok: true; value: T } | { ok: false; message: string },
    json: unknown,
  ) => {
    const result = decoder(json);
    if (!result.ok) throw new Error(result.message);
    return result.value;
  };
  const describeBody = decode(SCHEMA_DECODERS.runDescription, realFixture("2026-08", "describe"));
  const debugBody = decode(SCHEMA_DECODERS.workflowDebug, realFixture("2026-08", "debug"));
  const events = (realFixture("2026-08", "history-export") as unknown as { history_events: HistoryEventInput[] })
    .history_events;

  let releaseStream: () => void = () => undefined;
  let streamSignal: AbortSignal | null = null;
  beforeEach(() => {
    const hold = new Promise<void>((resolve) => (releaseStream = resolve));
    const lines = runViewLines(events, { recentFailures: debugBody.recent_failures ?? [] });
    vi.stubGlobal(
      "fetch",
      vi.fn((url: string, init?: RequestInit) => {
        if (url.startsWith("/api/run-view?")) {
          streamSignal = init?.signal ?? null;
          return Promise.resolve(streamedResponse(ndjson(lines), { pieceBytes: 512, hold }));
        }
        // describe/debug refreshes, the runs list, the action context: never answered in this test.
        return new Promise<Response>(() => undefined);
      }),
    );
  });

  it("shows debug's recent failures and the latest events first, then the complete exceptions", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { unmount } = render(
      withIntl(
        <QueryClientProvider client={client}>
          <RunDetail
            namespace="default"
            workflowId={describeBody.workflow_id}
            runId={describeBody.run_id}
            initialDescribe={describeBody}
            initialDebug={debugBody}
            initialError={null}
            initialLatest={timelineList(events.slice(-3))}
          />
        </QueryClientProvider>,
      ),
    );
    expect(screen.getByTestId("run-header")).toBeTruthy();
    const table = screen.getByTestId("exceptions-table");
    expect(table.dataset.complete).toBe("false");
    expect(within(table).getAllByTestId("exception-row")).toHaveLength(2);
    expect(screen.getByTestId("exceptions-partial").textContent).toContain("The 2 most recent failures (debug view)");
    expect(screen.getAllByTestId("latest-event").map((row) => row.textContent?.slice(0, 1))).toEqual(["8", "7", "6"]);
    expect(screen.getByTestId("history-event-count").textContent).toBe("8 events");

    await waitFor(() => expect(screen.getByTestId("run-view-progress").dataset.read).toBe("8"));
    expect(screen.getByTestId("run-view-progress").dataset.state).toBe("reading");
    expect(screen.getByTestId("exceptions-table").dataset.complete).toBe("false");
    await act(async () => releaseStream());
    await waitFor(() => expect(screen.getByTestId("run-view-progress").dataset.state).toBe("done"));
    expect(screen.getByTestId("exceptions-table").dataset.complete).toBe("true");
    expect(screen.queryByTestId("exceptions-partial")).toBeNull();
    expect(within(screen.getByTestId("exceptions-table")).getAllByTestId("exception-row").length).toBeGreaterThan(0);
    expect(streamSignal?.aborted).toBe(false);
    unmount();
  });

  it("aborts the stream when the page is left mid-read", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { unmount } = render(
      withIntl(
        <QueryClientProvider client={client}>
          <RunDetail
            namespace="default"
            workflowId={describeBody.workflow_id}
            runId={describeBody.run_id}
            initialDescribe={describeBody}
            initialDebug={debugBody}
            initialError={null}
          />
        </QueryClientProvider>,
      ),
    );
    await waitFor(() => expect(streamSignal).not.toBeNull());
    unmount();
    expect(streamSignal?.aborted).toBe(true);
    releaseStream();
  });
});
