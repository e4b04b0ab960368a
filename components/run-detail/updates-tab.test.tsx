// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import describeRun from "@/lib/dw/fixtures/workflow-describe.json";
import historyPage from "@/lib/dw/fixtures/history-page.json";
import completedAnswer from "@/lib/dw/fixtures/update-completed.json";
import type { RunViewSummary } from "@/lib/run-view/store";
import { updateRows } from "@/lib/views/updates";
import { UpdatesTab } from "@/components/run-detail/updates-tab";

/**
 * The Updates tab against the console's routes as the browser sees them: describe and history through
 * the read proxy, the decode route's own computation, the export's commands, and the update route's
 * answers. What is asserted is what an operator reads.
 */

const RUN = { workflowId: "order-42", runId: "01jrv0k8d3m6y0x7q9c2n4b5za" };
// `"approved:3"` as sdk-python 2.12.0 encodes it (lib/dw/fixtures/updates.md).
const BLOB = completedAnswer.result_envelope.blob;
const ids = (n: number, name = "approve") => ({
  workflow_command_id: `cmd-${n}`,
  update_id: `upd-${n}`,
  workflow_run_id: RUN.runId,
  update_name: name,
});
const at = "2026-01-15T10:00:05.000000Z";
const HISTORY = [
  { sequence: 1, event_type: "WorkflowStarted", timestamp: at, payload: { declared_updates: ["approve"] } },
  { sequence: 2, event_type: "UpdateAccepted", timestamp: at, payload: { ...ids(1), arguments: BLOB } },
  { sequence: 3, event_type: "UpdateApplied", timestamp: at, payload: { ...ids(1), arguments: BLOB } },
  { sequence: 4, event_type: "UpdateCompleted", timestamp: at, payload: { ...ids(1), result: BLOB } },
  { sequence: 5, event_type: "UpdateAccepted", timestamp: at, payload: { ...ids(2), arguments: BLOB } },
  {
    sequence: 6,
    event_type: "UpdateCompleted",
    timestamp: at,
    payload: {
      ...ids(2),
      failure_id: "f-2",
      failure_category: "application",
      non_retryable: true,
      exception_type: "LimitExceeded",
      message: "cannot approve above the limit",
    },
  },
  { sequence: 7, event_type: "UpdateRejected", timestamp: at, payload: { ...ids(3, "discount") } },
  {
    sequence: 8,
    event_type: "UpdateRejected",
    timestamp: at,
    payload: {
      ...ids(4),
      // The engine's command snapshot on the event (WorkflowHistoryEvent.php@8dc90d64 `commandSnapshot`).
      command: { id: "cmd-4", source: "control_plane", principal_label: "Grace", rejection_reason: "run_not_active" },
    },
  },
];

function summaryOf(history: typeof HISTORY): RunViewSummary {
  const snapshot = { lastSequence: history.length, updates: updateRows(history), updatesOmitted: 0 };
  return { complete: true, snapshot } as unknown as RunViewSummary;
}

interface Setup {
  context?: Record<string, unknown>;
  answer?: { status: number; body: unknown };
  /** Events the confirmation reads after the page's last sequence. */
  after?: unknown[];
}
let posted: unknown[] = [];

// The browser client keeps the fetch it was first made with: one stub for the file, reading `now`.
let now: Required<Omit<Setup, "answer">> & Pick<Setup, "answer"> = { context: {}, after: [] };

function serve({ context = { readOnly: false, role: "operator", personRole: null }, answer, after = [] }: Setup) {
  posted = [];
  now = { context, answer, after };
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      const run = `/api/dw/workflows/${RUN.workflowId}/runs/${RUN.runId}`;
      if (url === "/api/actions/context") return json(200, now.context);
      if (url.startsWith(`${run}/history`)) {
        const started = { ...historyPage, events: HISTORY.slice(0, 1) };
        const more = { ...historyPage, events: now.after, next_page_token: null };
        return json(200, url.includes("next_page_token") ? more : started);
      }
      if (url === run) return json(200, describeRun);
      if (url === "/api/payload/decode") {
        // The console server's decode of this blob (lib/dw/payload-display.ts; lib/dw/fixtures/updates.md).
        const { payload } = JSON.parse(String(init?.body)) as { payload: unknown };
        return json(200, {
          tree: JSON.parse(JSON.stringify(payload), (_k, v: unknown) => (v === BLOB ? { decoded: "approved:3" } : v)),
        });
      }
      if (url.startsWith("/api/run-view/extras")) {
        const commands = [
          { id: "cmd-1", source: "control_plane", principal_label: "Ada" },
          { id: "cmd-2", source: "control_plane" },
        ];
        return json(200, { tasks: [], commands, waits: [], links: null, exportBytes: 1000 });
      }
      if (url === "/api/actions/updates" && now.answer) {
        posted.push(JSON.parse(String(init?.body)));
        return json(now.answer.status, now.answer.body);
      }
      throw new Error(`unexpected fetch ${url}`);
    }),
  );
}

function renderTab(summary = summaryOf(HISTORY)) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        <UpdatesTab
          namespace="default"
          {...RUN}
          open
          settings={{ timelineMode: "chart", historyTypes: [], failuresOnly: false, selectedEvent: null }}
          onSettings={() => undefined}
          summary={summary}
        />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const answerBase = {
  result: "accepted",
  httpStatus: 200,
  workflowId: RUN.workflowId,
  runId: RUN.runId,
  commandId: "cmd-9",
  updateId: "upd-9",
  updateName: "approve",
  outcome: "update_completed",
  updateStatus: "completed",
  waitFor: "completed",
  waitTimedOut: false,
  rejectionReason: null,
  failureMessage: null,
};

describe("UpdatesTab", () => {
  it("lists the run's updates newest first: a refusal, a failure with its badge, a result, and who sent each", async () => {
    serve({});
    renderTab();
    const rows = await screen.findAllByTestId("update-row");
    expect(rows.map((row) => row.getAttribute("data-state"))).toEqual(["rejected", "rejected", "failed", "completed"]);
    const [closed, refused, failed, completed] = rows as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    // The reason and the sender the event's command snapshot recorded.
    expect(within(closed).getByTestId("update-rejection").textContent).toBe(
      "Refused before any handler ran (run_not_active): the run had already closed.",
    );
    expect(within(closed).getByTestId("update-sender").textContent).toBe("Grace (via control_plane)");
    expect(within(refused).getByTestId("update-rejection").textContent).toBe(
      "Refused before any handler ran: the run declares no update by this name.",
    );
    expect(within(refused).queryByTestId("non-retryable-badge")).toBeNull();
    expect(within(failed).getByTestId("non-retryable-badge").textContent).toBe("non-retryable");
    expect(within(failed).getByTestId("update-failure").textContent).toContain("application · LimitExceeded");
    expect(within(failed).getByTestId("update-failure").textContent).toContain("cannot approve above the limit");
    await waitFor(() => expect(within(completed).getByTestId("update-result").textContent).toContain("approved:3"));
    expect(within(completed).getByTestId("update-arguments").textContent).toBe("approved:3");
    await waitFor(() =>
      expect(within(completed).getByTestId("update-sender").textContent).toBe("Ada (via control_plane)"),
    );
    expect(within(failed).getByTestId("update-sender").textContent).toBe("via control_plane; no person recorded");
    expect(within(refused).getByTestId("update-sender").textContent).toBe("not recorded");
  });

  it("sends a declared update with its arguments and a request id, then confirms it in history by its update id", async () => {
    const after = [
      { sequence: 8, event_type: "UpdateAccepted", timestamp: at, payload: { update_id: "upd-9" } },
      { sequence: 9, event_type: "UpdateCompleted", timestamp: at, payload: { update_id: "upd-9", result: BLOB } },
    ];
    serve({ answer: { status: 200, body: answerBase }, after });
    renderTab();
    fireEvent.click(await screen.findByTestId("update-offer"));
    fireEvent.change(screen.getByTestId("update-args"), { target: { value: "[3]" } });
    await waitFor(() => expect(screen.getByTestId("update-send")).toHaveProperty("disabled", false));
    fireEvent.click(screen.getByTestId("update-send"));
    await waitFor(() => expect(screen.getByTestId("update-confirm").getAttribute("data-phase")).toBe("confirmed"), {
      timeout: 5_000,
    });
    const confirm = screen.getByTestId("update-confirm");
    expect(confirm.textContent).toBe("Confirmed in the run's history: UpdateCompleted at event 9 (completed).");
    expect(screen.getByTestId("update-outcome").textContent).toContain("Completed: the handler of approve returned.");
    expect(posted).toEqual([
      expect.objectContaining({ ...RUN, updateName: "approve", input: [3], waitFor: "completed" }),
    ]);
    expect((posted[0] as { requestId: string }).requestId).toMatch(/^bw-/);
  });

  it("words a closed run's refusal and the console's own refusal, and checks arguments before sending", async () => {
    const refusedAnswer = {
      ...answerBase,
      result: "rejected",
      httpStatus: 409,
      outcome: "rejected_not_active",
      updateStatus: "rejected",
      rejectionReason: "run_not_active",
    };
    serve({ answer: { status: 409, body: refusedAnswer } });
    renderTab();
    fireEvent.change(await screen.findByTestId("update-name"), { target: { value: "approve" } });
    fireEvent.change(screen.getByTestId("update-args"), { target: { value: "{3" } });
    await waitFor(() => expect(screen.getByTestId("update-send")).toHaveProperty("disabled", false));
    fireEvent.click(screen.getByTestId("update-send"));
    expect(screen.getByTestId("update-problem").textContent).toMatch(/^Not JSON/);
    expect(posted).toEqual([]);
    fireEvent.change(screen.getByTestId("update-args"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("update-send"));
    const outcome = await screen.findByTestId("update-outcome");
    expect(outcome.getAttribute("data-kind")).toBe("run_not_active");
    expect(outcome.textContent).toContain("Refused (409 run_not_active): the run is closed");
  });

  it("a read-only console and a viewer see the form disabled with the reason", async () => {
    serve({ context: { readOnly: true, role: "operator", personRole: "operator" } });
    renderTab();
    expect((await screen.findByTestId("update-disabled-reason")).textContent).toBe(
      "Sending updates is not possible here: The console is in read-only mode.",
    );
    expect(screen.getByTestId("update-send")).toHaveProperty("disabled", true);
    cleanup();
    serve({ context: { readOnly: false, role: "operator", personRole: "viewer" } });
    renderTab();
    expect((await screen.findByTestId("update-disabled-reason")).textContent).toContain(
      "Requires the operator role; you are signed in as viewer.",
    );
  });
});
