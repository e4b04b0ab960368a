import { describe, expect, it } from "vitest";
import type { ListWorkflowsParams, WorkflowList, WorkflowListItem } from "@/lib/dw";
import type { ConsoleFilter } from "@/lib/queries/runs-scan";
import {
  RUNS_SCAN_LIMIT,
  decodeScanCursor,
  encodeScanCursor,
  fetchRunsPage,
  looksLikeRunId,
  matchTypes,
} from "@/lib/queries/runs-scan";

/**
 * A fake `GET /workflows` that behaves as the real one does (WorkflowController@index,
 * durable-workflow/server@11d35b7): exact `workflow_type`, `status` on the bucket, `query` as a LIKE on
 * the workflow id or business key (never the run id), newest first, and an offset token
 * `base64(offset)` where an unreadable token silently means offset 0 (`decodePageToken` returns null).
 */
function fakeServer(rows: WorkflowListItem[]) {
  const calls: ListWorkflowsParams[] = [];
  const list = async (params: ListWorkflowsParams): Promise<WorkflowList> => {
    calls.push(params);
    const size = params.pageSize ?? 50;
    const token = params.nextPageToken ?? null;
    const decoded = token ? Buffer.from(token, "base64").toString() : "";
    const offset = /^\d+$/.test(decoded) ? Number(decoded) : 0;
    const term = params.query?.trim().toLowerCase() ?? "";
    const hits = rows.filter(
      (row) =>
        (!params.workflowType || row.workflow_type === params.workflowType) &&
        (!params.status || row.status_bucket === params.status) &&
        (!term ||
          row.workflow_id.toLowerCase().includes(term) ||
          (row.business_key ?? "").toLowerCase().includes(term)),
    );
    const page = hits.slice(offset, offset + size);
    const more = hits.length > offset + size;
    return {
      workflows: page,
      workflow_count: page.length,
      next_page_token: more ? Buffer.from(String(offset + size)).toString("base64") : null,
      control_plane: { operation: "list" },
    } as WorkflowList;
  };
  return { list, calls };
}

const NOW = Date.parse("2026-12-02T12:00:00Z");

/** A list item with the real server's fields (the `index` map of WorkflowController@11d35b7). */
function row(index: number, overrides: Partial<WorkflowListItem> = {}): WorkflowListItem {
  return {
    workflow_id: `order:${index}`,
    run_id: `01JF${String(index).padStart(4, "0")}ABCDEFGHJKMNPQRST`.slice(0, 26),
    workflow_type: index % 2 === 0 ? "CheckoutWorkflow" : "ReserveWorkflow",
    business_key: null,
    status: "completed",
    status_bucket: "completed",
    task_queue: index % 3 === 0 ? "payments" : "default",
    is_terminal: true,
    // One run a minute, newest first.
    started_at: new Date(NOW - index * 60_000).toISOString(),
    closed_at: new Date(NOW - index * 60_000 + 1_000).toISOString(),
    search_attributes: {},
    ...overrides,
  };
}

const fleet = (count: number) => Array.from({ length: count }, (_, index) => row(index));

const filter = (change: Partial<ConsoleFilter> = {}): ConsoleFilter => ({
  workflowType: "",
  search: "",
  range: null,
  taskQueue: "",
  pageSize: 25,
  cursor: null,
  ...change,
});

describe("fetchRunsPage: the server's own page", () => {
  it("asks once when the server's filters say it all", async () => {
    const server = fakeServer(fleet(60));
    const page = await fetchRunsPage(server.list, filter(), NOW);
    expect(page.workflows).toHaveLength(25);
    expect(page.view).toMatchObject({ mode: "server", cursorProblem: null });
    expect(server.calls).toHaveLength(1);
  });

  it("says when the server ignored a cursor instead of showing page 1 as the page asked for", async () => {
    const server = fakeServer(fleet(60));
    const page = await fetchRunsPage(server.list, filter({ cursor: "not-a-token" }), NOW);
    expect(page.view.cursorProblem).toBe("ignored");
    expect(page.workflows).toEqual([]);
  });

  it("says when a cursor is past the end, and passes a good one", async () => {
    const server = fakeServer(fleet(60));
    const expired = Buffer.from("500").toString("base64");
    expect((await fetchRunsPage(server.list, filter({ cursor: expired }), NOW)).view.cursorProblem).toBe("expired");
    const second = Buffer.from("25").toString("base64");
    const page = await fetchRunsPage(server.list, filter({ cursor: second }), NOW);
    expect(page.view.cursorProblem).toBeNull();
    expect(page.workflows[0]?.workflow_id).toBe("order:25");
  });
});

describe("fetchRunsPage: run-id search", () => {
  it("finds a run by a run-id prefix, in any case, when no workflow id or key contains it", async () => {
    const server = fakeServer(fleet(300));
    const target = fleet(300)[250]!;
    const page = await fetchRunsPage(server.list, filter({ search: target.run_id.slice(0, 8).toLowerCase() }), NOW);
    expect(page.view.runIdSearch).toBe(true);
    expect(page.workflows.map((r) => r.run_id)).toContain(target.run_id);
    expect(page.view.mode).toBe("scan");
    // The server was never asked to match run ids: the walk sends no `query`.
    expect(server.calls.slice(1).every((call) => call.query === undefined)).toBe(true);
  });

  it("keeps the server's search when it finds something", async () => {
    const server = fakeServer(fleet(30));
    const page = await fetchRunsPage(server.list, filter({ search: "order" }), NOW);
    expect(page.view).toMatchObject({ mode: "server", runIdSearch: false });
    expect(page.workflows).toHaveLength(25);
    expect(looksLikeRunId("order:1")).toBe(false);
  });

  it("stops at the scan limit and says so, with a cursor that reads on from there", async () => {
    const server = fakeServer(fleet(RUNS_SCAN_LIMIT + 300));
    const page = await fetchRunsPage(server.list, filter({ search: "ZZZZZZ" }), NOW);
    expect(page.view).toMatchObject({ scanned: RUNS_SCAN_LIMIT, capped: true });
    expect(page.workflows).toEqual([]);
    const on = decodeScanCursor(page.next_page_token!);
    expect(on).toEqual({ t: Buffer.from("1000").toString("base64"), k: 0 });
    const rest = await fetchRunsPage(server.list, filter({ search: "ZZZZZZ", cursor: page.next_page_token }), NOW);
    expect(rest.view).toMatchObject({ scanned: 300, capped: false });
    expect(rest.next_page_token).toBeNull();
  });
});

describe("fetchRunsPage: console-side filters", () => {
  it("walks pages for a task queue, pages exactly through the matches, and never repeats a row", async () => {
    const rows = fleet(500);
    const server = fakeServer(rows);
    const expected = rows.filter((r) => r.task_queue === "payments").map((r) => r.run_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 20; guard++) {
      const page = await fetchRunsPage(server.list, filter({ taskQueue: "Payments", cursor }), NOW);
      seen.push(...page.workflows.map((r) => r.run_id));
      cursor = page.next_page_token;
      if (!cursor) break;
    }
    expect(seen).toEqual(expected);
  });

  it("ends a time range at the first older run, without reading the rest of the fleet", async () => {
    const server = fakeServer(fleet(2_000));
    const page = await fetchRunsPage(server.list, filter({ range: "1h", pageSize: 200 }), NOW);
    // Runs 0..60 started within the hour (one a minute); run 61 is older and ends the walk.
    expect(page.workflows).toHaveLength(61);
    expect(page.next_page_token).toBeNull();
    expect(page.view.capped).toBe(false);
    expect(server.calls).toHaveLength(1);
  });

  it("rejects a console cursor it cannot read, and a server cursor past the end of a walk", async () => {
    const server = fakeServer(fleet(50));
    const bad = await fetchRunsPage(server.list, filter({ taskQueue: "payments", cursor: "garbage" }), NOW);
    expect(bad.view.cursorProblem).toBe("invalid");
    const past = encodeScanCursor({ t: Buffer.from("900").toString("base64"), k: 0 });
    const gone = await fetchRunsPage(server.list, filter({ taskQueue: "payments", cursor: past }), NOW);
    expect(gone.view.cursorProblem).toBe("expired");
  });
});

describe("type filter", () => {
  it("maps a type typed in another case to the exact type, and asks the server for it", async () => {
    const server = fakeServer(fleet(40));
    const page = await fetchRunsPage(server.list, filter({ workflowType: "checkoutworkflow" }), NOW);
    expect(page.view.resolvedTypes).toEqual(["CheckoutWorkflow"]);
    expect(page.view.mode).toBe("server");
    expect(page.workflows.every((r) => r.workflow_type === "CheckoutWorkflow")).toBe(true);
    expect(server.calls.at(-1)).toMatchObject({ workflowType: "CheckoutWorkflow" });
  });

  it("leaves an exact type alone, filters several matches here, and says when none matches", async () => {
    const server = fakeServer(fleet(40));
    const exact = await fetchRunsPage(server.list, filter({ workflowType: "ReserveWorkflow" }), NOW);
    expect(exact.view.resolvedTypes).toBeNull();
    const both = await fetchRunsPage(server.list, filter({ workflowType: "workflow" }), NOW);
    expect(both.view).toMatchObject({ mode: "scan", resolvedTypes: ["CheckoutWorkflow", "ReserveWorkflow"] });
    expect(both.workflows).toHaveLength(25);
    const none = await fetchRunsPage(server.list, filter({ workflowType: "nothing" }), NOW);
    expect(none.view.resolvedTypes).toEqual([]);
    expect(none.workflows).toEqual([]);
  });

  it("prefers a case-insensitive equal over substrings", () => {
    expect(matchTypes(["Order", "OrderRefund", "order"], "ORDER")).toEqual(["Order", "order"]);
    expect(matchTypes(["OrderRefund", "Checkout"], "refund")).toEqual(["OrderRefund"]);
  });
});
