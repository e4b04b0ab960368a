import { describe, expect, it } from "vitest";
import { mergeLive } from "@/components/run-list/live-rows";
import {
  firstPage,
  nextPage,
  parseRunsQuery,
  previousPage,
  runsQueryString,
  withFilter,
} from "@/components/run-list/run-list-url-state";
import { routeParam, runHref } from "@/lib/routes/route-for";

describe("runs list URL state", () => {
  it("round-trips every field and drops defaults", () => {
    const query = parseRunsQuery(
      new URLSearchParams(
        "status=failed&type=Checkout&q=order%2F1&range=24h&queue=payments&size=100&cursor=abc&trail=~,xyz",
      ),
    );
    expect(query).toEqual({
      status: "failed",
      workflowType: "Checkout",
      search: "order/1",
      range: "24h",
      taskQueue: "payments",
      pageSize: 100,
      cursor: "abc",
      trail: [null, "xyz"],
    });
    expect(parseRunsQuery(new URLSearchParams(runsQueryString(query).slice(1)))).toEqual(query);
    expect(runsQueryString(parseRunsQuery({}))).toBe("");
  });

  it("keeps the list's look (density, hidden columns) through filter changes, as a saved view needs", () => {
    const query = parseRunsQuery(new URLSearchParams("status=failed&density=normal&hide=task_queue,duration"));
    expect(query).toMatchObject({ density: "normal", hide: "task_queue,duration" });
    expect(runsQueryString(withFilter(query, { status: "running" }))).toBe(
      "?status=running&density=normal&hide=task_queue%2Cduration",
    );
    expect(parseRunsQuery({ density: "huge" }).density).toBeUndefined();
  });

  it("ignores unknown tabs and page sizes", () => {
    const query = parseRunsQuery({ status: "weird", size: "7", range: "3y" });
    expect(query.status).toBe("all");
    expect(query.range).toBeNull();
    expect(query.pageSize).toBe(50);
  });

  it("pages forward and back through opaque tokens, and a filter change starts over", () => {
    const first = parseRunsQuery({});
    const second = nextPage(first, "t2");
    const third = nextPage(second, "t3");
    expect(third).toMatchObject({ cursor: "t3", trail: [null, "t2"] });
    expect(previousPage(third)).toMatchObject({ cursor: "t2", trail: [null] });
    expect(previousPage(previousPage(third)!)).toMatchObject({ cursor: null, trail: [] });
    expect(previousPage(first)).toBeNull();
    expect(withFilter(third, { status: "running" })).toMatchObject({ status: "running", cursor: null, trail: [] });
    expect(withFilter(third, { range: "7d" })).toMatchObject({ range: "7d", cursor: null, trail: [] });
    expect(firstPage(third)).toMatchObject({ cursor: null, trail: [], status: third.status });
  });
});

describe("live rows", () => {
  it("updates shown rows in place and holds new ones back", () => {
    const shown = [
      { run_id: "b", status: "running" },
      { run_id: "a", status: "running" },
    ];
    const latest = [
      { run_id: "c", status: "running" },
      { run_id: "b", status: "completed" },
      { run_id: "a", status: "running" },
    ];
    const merged = mergeLive(shown, { rows: latest });
    expect(merged.rows.map((r) => `${r.run_id}:${r.status}`)).toEqual(["b:completed", "a:running"]);
    expect(merged.pending.map((r) => r.run_id)).toEqual(["c"]);
  });
});

describe("run links", () => {
  it("encodes ids with slashes, percent signs and unicode as single segments", () => {
    const id = "order/42 %é✓";
    const href = runHref("default", id, "run#1");
    expect(href).toBe("/namespaces/default/workflows/order%2F42%20%25%C3%A9%E2%9C%93/runs/run%231");
    const [, , , , workflowSegment, , runSegment] = href.split("/");
    expect(routeParam(workflowSegment!)).toBe(id);
    expect(routeParam(runSegment!)).toBe("run#1");
    expect(routeParam("100%")).toBe("100%");
  });
});
