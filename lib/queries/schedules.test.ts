import { describe, expect, it, vi } from "vitest";

const calls: Record<string, unknown>[] = [];
const pages: Record<string, { schedules: { schedule_id: string }[]; next_page_token: string | null }> = {
  first: { schedules: [{ schedule_id: "a" }, { schedule_id: "b" }], next_page_token: "t1" },
  t1: { schedules: [{ schedule_id: "c" }], next_page_token: null },
};

vi.mock("@/lib/dw/browser-client", () => ({
  browserDwClientFor: () => ({
    read: (_name: string, _params: unknown, query: Record<string, unknown>) => {
      calls.push(query);
      return Promise.resolve(pages[(query.next_page_token as string | undefined) ?? "first"]);
    },
  }),
}));

const { readAllSchedules, SCHEDULE_PAGE_SIZE } = await import("./schedules");

describe("the schedules list read", () => {
  it("follows the later server's next_page_token to the end, at its largest page size", async () => {
    const list = await readAllSchedules("default");
    expect(list.schedules.map((s) => s.schedule_id)).toEqual(["a", "b", "c"]);
    expect(list.schedule_count).toBe(3);
    expect(list.next_page_token).toBeNull();
    expect(calls).toEqual([
      { page_size: SCHEDULE_PAGE_SIZE },
      { page_size: SCHEDULE_PAGE_SIZE, next_page_token: "t1" },
    ]);
  });

  it("stops on a token answered twice and keeps it, so the screen says the server has more", async () => {
    pages.t1 = { schedules: [{ schedule_id: "c" }], next_page_token: "t1" };
    const list = await readAllSchedules("default");
    expect(list.schedules.map((s) => s.schedule_id)).toEqual(["a", "b"]);
    expect(list.next_page_token).toBe("t1");
  });
});
