import { describe, expect, it } from "vitest";
import { mergeLive } from "@/components/run-list/live-rows";

interface Row {
  run_id: string;
  status: string;
  started_at: string;
}

const row = (id: string, status: string, minute: number): Row => ({
  run_id: id,
  status,
  started_at: `2026-12-07T10:${String(minute).padStart(2, "0")}:00Z`,
});

describe("mergeLive", () => {
  it("updates shown rows in place and holds new rows back until asked", () => {
    const shown = [row("b", "waiting", 2), row("a", "waiting", 1)];
    const live = mergeLive(shown, { rows: [row("c", "running", 3), row("b", "completed", 2), row("a", "waiting", 1)] });
    expect(live.rows.map((r) => [r.run_id, r.status])).toEqual([
      ["b", "completed"],
      ["a", "waiting"],
    ]);
    expect(live.pending.map((r) => r.run_id)).toEqual(["c"]);
  });

  it("drops shown rows the latest answer no longer holds: they left the filter (e.g. terminated off 'running')", () => {
    const shown = [row("b", "waiting", 2), row("a", "waiting", 1)];
    const live = mergeLive(shown, { rows: [], more: false });
    expect(live.rows).toEqual([]);
    expect(live.pending).toEqual([]);
  });

  it("keeps a row newer runs pushed off a full page: it still matches, on the next page", () => {
    const shown = [row("b", "waiting", 2), row("a", "waiting", 1)];
    // Page size 2: two new runs filled the page; "a" and "b" now start page 2.
    const live = mergeLive(shown, { rows: [row("d", "running", 4), row("c", "running", 3)], more: true });
    expect(live.rows.map((r) => r.run_id)).toEqual(["b", "a"]);
    // A shown row newer than the page's last one cannot have been pushed off: it left the filter.
    const left = mergeLive([row("e", "waiting", 5), row("a", "waiting", 1)], {
      rows: [row("d", "running", 4), row("c", "running", 3)],
      more: true,
    });
    expect(left.rows.map((r) => r.run_id)).toEqual(["a"]);
  });
});
