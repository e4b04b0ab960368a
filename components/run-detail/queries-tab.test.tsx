// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import historyPage from "@/lib/dw/fixtures/history-page.json";
import answered from "@/lib/dw/fixtures/query-answered.json";
import failed from "@/lib/dw/fixtures/query-failed.json";
import unknownName from "@/lib/dw/fixtures/query-unknown-name.json";
import workerTimeout from "@/lib/dw/fixtures/query-worker-timeout.json";
import { decodeForDisplay } from "@/lib/dw/payload-display";
import { QueriesTab } from "@/components/run-detail/queries-tab";

/**
 * The Queries tab against the console's routes as the browser sees them: the read proxy answers with
 * the recorded server answers (lib/dw/fixtures/query-*.json), and the decode route with its own
 * computation. What is asserted is what an operator reads.
 */

const RUN = { workflowId: "order-42", runId: "01jrv0k8d3m6y0x7q9c2n4b5za" };
const QUERY_PATH = `/api/dw/workflows/${RUN.workflowId}/runs/${RUN.runId}/query/`;

/** The first page with the contract the worker registered copied into WorkflowStarted. */
function startedPage(declared: string[] | null) {
  return {
    ...historyPage,
    events: historyPage.events.map((event) =>
      event.event_type === "WorkflowStarted" && declared !== null
        ? { ...event, payload: { ...event.payload, declared_queries: declared } }
        : event,
    ),
  };
}

const ANSWERS: Record<string, { status: number; body: unknown }> = {
  status: { status: 200, body: answered },
  ledger: { status: 409, body: failed },
  nope: { status: 404, body: unknownName },
  slow: { status: 504, body: workerTimeout },
  down: { status: 502, body: { reason: "server_unavailable", message: "not reachable" } },
  denied: { status: 403, body: { reason: "forbidden", message: "This action requires the operator role." } },
};

let sent: { url: string; body: unknown }[] = [];
let declaredNow: string[] | null = null;
let historyReads = 0;

function serve(declared: string[] | null) {
  sent = [];
  declaredNow = declared;
  historyReads = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (url.startsWith(`/api/dw/workflows/${RUN.workflowId}/runs/${RUN.runId}/history`)) {
        historyReads += 1;
        return json(200, startedPage(declaredNow));
      }
      if (url === "/api/payload/decode") {
        const { payload } = JSON.parse(String(init?.body)) as { payload: unknown };
        return json(200, { tree: decodeForDisplay(payload) });
      }
      if (url.startsWith(QUERY_PATH)) {
        sent.push({ url, body: JSON.parse(String(init?.body ?? "{}")) });
        const answer = ANSWERS[url.slice(QUERY_PATH.length)];
        if (answer) return json(answer.status, answer.body);
      }
      throw new Error(`unexpected fetch ${url}`);
    }),
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderTab() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <QueryClientProvider client={client}>
        <QueriesTab
          namespace="default"
          workflowId={RUN.workflowId}
          runId={RUN.runId}
          open
          settings={{} as never}
          onSettings={() => undefined}
        />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
}

async function ask(name: string, args = "") {
  fireEvent.change(screen.getByTestId("query-name"), { target: { value: name } });
  fireEvent.change(screen.getByTestId("query-args"), { target: { value: args } });
  const before = screen.queryAllByTestId("query-answer").length;
  fireEvent.click(screen.getByTestId("query-send"));
  await waitFor(() => expect(screen.queryAllByTestId("query-answer").length).toBe(before + 1));
  return screen.getAllByTestId("query-answer")[0]!;
}

describe("QueriesTab", () => {
  it("offers the declared names, sends the arguments, and shows the decoded result with when it was answered", async () => {
    serve(["ledger", "status"]);
    renderTab();
    await waitFor(() =>
      expect(screen.getAllByTestId("query-offer").map((b) => b.textContent)).toEqual(["ledger", "status"]),
    );
    expect(screen.getByText("Declared by the worker that started this run.")).toBeTruthy();
    fireEvent.click(screen.getAllByTestId("query-offer")[1]!);
    expect((screen.getByTestId("query-name") as HTMLInputElement).value).toBe("status");

    const card = await ask("status", '["summary", 2]');
    expect(sent).toEqual([{ url: `${QUERY_PATH}status`, body: { input: ["summary", 2] } }]);
    expect(card.dataset.outcome).toBe("answered");
    expect(within(card).getByTestId("query-result").textContent).toContain('"stage": "charging"');
    expect(within(card).getByTestId("query-answered-at").textContent).toMatch(/^Answered at .+\d{2}:\d{2}:\d{2}/);
    expect(card.textContent).toContain('with ["summary",2]');
  });

  it("says why a query was refused: a failing handler with its message, an unknown name, no worker, no server, no permission", async () => {
    serve(["status"]);
    renderTab();
    const handler = await ask("ledger");
    expect(handler.dataset.outcome).toBe("handler_failed");
    expect(handler.textContent).toContain("The query handler failed on the worker.");
    expect(handler.textContent).toContain("The worker said: charge ledger is not loaded");
    expect((await ask("nope")).textContent).toContain("The worker has no query handler by this name.");
    expect((await ask("slow")).textContent).toContain("No worker answered within the server's query timeout");
    expect((await ask("down")).textContent).toContain("The Durable Workflow server did not answer");
    expect((await ask("denied")).textContent).toContain("queries need an operator token");
    // Newest first; every answer stays as it was, with its own time.
    expect(screen.getAllByTestId("query-answer").map((card) => card.dataset.outcome)).toEqual([
      "forbidden",
      "server_down",
      "no_worker_answered",
      "unknown_query",
      "handler_failed",
    ]);
  });

  it("checks the arguments before sending: not JSON, not a list, and no name are refused in words", async () => {
    serve(null);
    renderTab();
    fireEvent.click(screen.getByTestId("query-send"));
    expect(screen.getByTestId("query-problem").textContent).toBe("Name the query to send.");
    fireEvent.change(screen.getByTestId("query-name"), { target: { value: "status" } });
    fireEvent.change(screen.getByTestId("query-args"), { target: { value: "[1," } });
    fireEvent.click(screen.getByTestId("query-send"));
    expect(screen.getByTestId("query-problem").textContent).toMatch(/^Not JSON: /);
    fireEvent.change(screen.getByTestId("query-args"), { target: { value: '{"index": 1}' } });
    fireEvent.click(screen.getByTestId("query-send"));
    expect(screen.getByTestId("query-problem").textContent).toBe('Write the arguments as a JSON list, e.g. [1, "eu"].');
    expect(sent).toEqual([]);
    // Editing the arguments takes the old complaint away.
    fireEvent.change(screen.getByTestId("query-args"), { target: { value: "[1]" } });
    expect(screen.queryByTestId("query-problem")).toBeNull();
  });

  it("without a declared contract, offers the names sent before for this workflow type", async () => {
    serve(null);
    renderTab();
    await waitFor(() => expect(historyReads).toBe(1));
    await waitFor(() => expect(screen.getByText(/declares no queries: type the name/)).toBeTruthy());
    expect(screen.queryAllByTestId("query-offer")).toEqual([]);
    await ask("status");
    await waitFor(() => expect(screen.getAllByTestId("query-offer").map((b) => b.textContent)).toEqual(["status"]));
    expect(screen.getByText(/names you sent before are offered/)).toBeTruthy();
    cleanup();
    renderTab();
    await waitFor(() => expect(screen.getAllByTestId("query-offer").map((b) => b.textContent)).toEqual(["status"]));
  });
});
