import { describe, expect, it } from "vitest";
import { listStateQuery, readListState } from "./list-url";

describe("list URL state", () => {
  it("round-trips filter, page and search, writing only what differs from the default", () => {
    const state = { filter: "incidents" as const, page: 2, q: "order-7" };
    expect(listStateQuery(state)).toBe("status=incidents&page=3&q=order-7");
    expect(readListState(new URLSearchParams(listStateQuery(state)))).toEqual(state);
    expect(listStateQuery({ filter: "all", page: 0, q: "" })).toBe("");
  });

  it("falls back to the default for values it does not know", () => {
    expect(readListState(new URLSearchParams("status=RUNNING&page=-1"))).toEqual({ filter: "all", page: 0, q: "" });
    expect(readListState(new URLSearchParams("status=ACTIVE&page=abc&q=%20x%20"))).toEqual({
      filter: "ACTIVE",
      page: 0,
      q: "x",
    });
  });
});
