import { describe, expect, it } from "vitest";
import {
  BUILT_IN_VIEWS,
  cleanName,
  loadViews,
  MAX_NAME_CHARS,
  MAX_VIEWS,
  parseDensity,
  parseHidden,
  readViews,
  removeView,
  saveView,
  storageKey,
  storeViews,
  viewQuery,
  viewsFor,
  writeViews,
} from "@/lib/saved-views/saved-views";
import type { SavedView } from "@/lib/saved-views/saved-views";

let counter = 0;
const newId = () => `v${++counter}`;

function saved(
  views: readonly SavedView[],
  name: string,
  query = "status=failed",
  screen: SavedView["screen"] = "runs",
) {
  const result = saveView(views, { name, screen, query }, newId);
  if ("refused" in result) throw new Error(result.refused);
  return result.views;
}

describe("viewQuery", () => {
  it("keeps the screen's filter keys in a fixed order and drops paging and empty values", () => {
    const params = new URLSearchParams("cursor=abc&trail=~,x&range=1h&status=failed&q=&density=normal&foo=1");
    expect(viewQuery("runs", params)).toBe("status=failed&range=1h&density=normal");
    expect(viewQuery("failures", new URLSearchParams("cause=non_retryable&window=24h&status=x"))).toBe(
      "window=24h&cause=non_retryable",
    );
  });

  it("keeps what a filter value holds, encoded", () => {
    expect(viewQuery("runs", new URLSearchParams({ q: "a&b=c #1", type: "Billing.Invoice" }))).toBe(
      "type=Billing.Invoice&q=a%26b%3Dc+%231",
    );
  });

  it("makes every built-in view its own canonical query", () => {
    for (const view of BUILT_IN_VIEWS) expect(viewQuery(view.screen, new URLSearchParams(view.query))).toBe(view.query);
  });
});

describe("density and hidden columns", () => {
  it("reads dense unless normal is asked for", () => {
    expect(parseDensity("normal")).toBe("normal");
    expect(parseDensity("huge")).toBe("dense");
    expect(parseDensity(null)).toBe("dense");
  });

  it("hides only columns the table has", () => {
    expect([...parseHidden("queue,nope,type", ["type", "queue", "status"])]).toEqual(["queue", "type"]);
    expect(parseHidden("", ["type"]).size).toBe(0);
  });
});

describe("cleanName", () => {
  it("strips bidi overrides, control and invisible characters, collapses spaces", () => {
    expect(cleanName("  ab\u202Egnp.exe\u202C  \n x\u0000 ")).toBe("abgnp.exe x");
    expect(cleanName("\u2066\u200F")).toBe("");
  });

  it("keeps right-to-left text and HTML as plain characters", () => {
    expect(cleanName("فشل في الساعة الأخيرة")).toBe("فشل في الساعة الأخيرة");
    expect(cleanName("<img src=x onerror=alert(1)>")).toBe("<img src=x onerror=alert(1)>");
  });

  it("cuts long names at whole code points", () => {
    const long = "😀".repeat(200);
    const cut = cleanName(long);
    expect(Array.from(cut)).toHaveLength(MAX_NAME_CHARS);
    expect(cut).toBe("😀".repeat(MAX_NAME_CHARS));
  });
});

describe("saveView and removeView", () => {
  it("refuses an empty name and saves a cleaned one", () => {
    expect(saveView([], { name: " \u202E ", screen: "runs", query: "" }, newId)).toEqual({ refused: "empty" });
    const views = saved([], "  Failed   today ");
    expect(views).toEqual([{ id: expect.any(String), name: "Failed today", screen: "runs", query: "status=failed" }]);
  });

  it("replaces a view of the same screen and name (any case), keeping its id; other screens are apart", () => {
    const first = saved([], "Mine", "status=failed");
    const second = saved(first, "MINE", "status=running");
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ id: first[0]!.id, name: "MINE", query: "status=running" });
    expect(saved(second, "Mine", "window=1h", "failures")).toHaveLength(2);
  });

  it("refuses more than the limit but still lets an existing one be updated", () => {
    let views: SavedView[] = [];
    for (let i = 0; i < MAX_VIEWS; i++) views = saved(views, `v ${i}`);
    expect(saveView(views, { name: "one more", screen: "runs", query: "" }, newId)).toEqual({ refused: "tooMany" });
    expect(saved(views, "v 3", "status=completed")).toHaveLength(MAX_VIEWS);
  });

  it("removes by id and lists a screen's views by name in the operator's language", () => {
    const views = saved(saved(saved([], "zeta"), "Älpha"), "beta", "", "schedules");
    expect(viewsFor(views, "runs", "de").map((v) => v.name)).toEqual(["Älpha", "zeta"]);
    expect(removeView(views, views[0]!.id).map((v) => v.name)).toEqual(["Älpha", "beta"]);
  });
});

describe("storage", () => {
  it("keys the store by person", () => {
    expect(storageKey("alice@example.com")).not.toBe(storageKey("bob@example.com"));
    expect(storageKey(null)).not.toBe(storageKey("~x"));
  });

  it("reads back what it wrote", () => {
    const views = saved([], "Failed", "status=failed&range=1h");
    expect(readViews(writeViews(views))).toEqual({ views, corrupt: false });
    expect(readViews(null)).toEqual({ views: [], corrupt: false });
  });

  it("reads corrupt text or a foreign shape as no views, flagged", () => {
    expect(readViews("{not json")).toEqual({ views: [], corrupt: true });
    expect(readViews('"a string"')).toEqual({ views: [], corrupt: true });
    expect(readViews("null")).toEqual({ views: [], corrupt: true });
  });

  it("drops bad entries, keeps good ones, and cleans names and queries written by someone else", () => {
    const raw = JSON.stringify({
      views: [
        { id: "a", name: "ok\u202E", screen: "runs", query: "cursor=x&status=failed" },
        { id: "b", name: "wrong screen", screen: "workers", query: "" },
        { id: "a", name: "duplicate id", screen: "runs", query: "" },
        { id: "c", name: 7, screen: "runs", query: "" },
        null,
      ],
    });
    expect(readViews(raw)).toEqual({
      views: [{ id: "a", name: "ok", screen: "runs", query: "status=failed" }],
      corrupt: true,
    });
  });

  it("answers false when the store is full or refuses, and reads a refusing store as empty", () => {
    const full = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException("full", "QuotaExceededError");
      },
    };
    expect(storeViews(full, "k", [])).toBe(false);
    expect(storeViews(null, "k", [])).toBe(false);
    const blocked = {
      getItem: () => {
        throw new DOMException("denied", "SecurityError");
      },
      setItem: () => {},
    };
    expect(loadViews(blocked, "k")).toEqual({ views: [], corrupt: false });
    const map = new Map<string, string>();
    const store = { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v) };
    const views = saved([], "x");
    expect(storeViews(store, "k", views)).toBe(true);
    expect(loadViews(store, "k").views).toEqual(views);
  });
});
