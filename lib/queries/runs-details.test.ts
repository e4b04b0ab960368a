import { describe, expect, it } from "vitest";
import type { DwClient, WorkflowListItem } from "@/lib/dw";
import { RowDetailsCache, fetchRowDetails } from "@/lib/queries/runs-details";

function item(runId: string, isTerminal: boolean): WorkflowListItem {
  return {
    workflow_id: `wf-${runId}`,
    run_id: runId,
    workflow_type: "CheckoutWorkflow",
    business_key: null,
    status: isTerminal ? "failed" : "waiting",
    status_bucket: isTerminal ? "failed" : "running",
    task_queue: "default",
    is_terminal: isTerminal,
    started_at: "2026-12-02T10:00:00.000000Z",
    closed_at: isTerminal ? "2026-12-02T10:01:00.000000Z" : null,
    search_attributes: {},
  };
}

/** Describe and debug answers with the fields `formatRun` and debug's `execution` carry. */
function fakeClient(reasons: Record<string, string>) {
  const calls: string[] = [];
  const client = {
    async describeRun(_workflowId: string, runId: string) {
      calls.push(`describe ${runId}`);
      if (runId === "gone") throw new Error("404");
      return { closed_reason: reasons[runId] ?? "failed", run_number: 2, run_count: 3 };
    },
    async debugRun(_workflowId: string, runId: string) {
      calls.push(`debug ${runId}`);
      if (runId === "gone") throw new Error("404");
      return {
        execution: { liveness_state: "repair_needed", run_number: 1, last_progress_at: "2026-12-02T10:00:00Z" },
        recent_failures: [
          {
            failure_id: "f1",
            source_kind: "workflow_run",
            exception_class: "RuntimeException",
            message: "card declined",
          },
        ],
      };
    },
  } as unknown as DwClient;
  return { client, calls };
}

describe("fetchRowDetails", () => {
  it("describes closed rows once, debugs open rows every time, and skips a row it cannot read", async () => {
    const { client, calls } = fakeClient({ a: "timed_out", c: "continued" });
    const cache = new RowDetailsCache();
    const rows = [item("a", true), item("b", false), item("c", true), item("gone", true)];
    const first = await fetchRowDetails(client, rows, cache);
    expect(first.a).toMatchObject({ closedReason: "timed_out", runNumber: 2, runCount: 3, execution: null });
    // A failed row also says what ended it (from its debug view's failure rows).
    expect(first.a?.failure).toEqual({ type: "RuntimeException", message: "card declined" });
    expect(first.b?.execution).toMatchObject({ liveness_state: "repair_needed" });
    expect(first.gone).toBeUndefined();
    calls.length = 0;
    await fetchRowDetails(client, rows, cache);
    // `a` is closed and kept; `c` continued as new, so its chain may have grown; `b` is open.
    expect(calls.sort()).toEqual(["debug b", "debug c", "debug gone", "describe c", "describe gone"]);
  });

  it("keeps a bounded number of closed runs, dropping the oldest", () => {
    const cache = new RowDetailsCache(2);
    const detail = { closedReason: "failed", runNumber: 1, runCount: 1, execution: null };
    cache.keep("1", detail);
    cache.keep("2", detail);
    cache.keep("3", detail);
    expect(cache.size).toBe(2);
    expect(cache.get("1")).toBeUndefined();
    expect(cache.get("3")).toBe(detail);
  });
});
