import { describe, expect, it } from "vitest";
import { createDwClient } from "@/lib/dw/client";
import { fixture } from "@/lib/dw/fixtures/fixture-fetch";
import { historyToken, walkPages } from "./walker";
import type { PageRead } from "./walker";

/** The recorded real-server page (lib/dw/fixtures/history-page.json), re-sequenced to serve any page. */
const TEMPLATE = fixture("history-page") as {
  events: { sequence: number }[];
  next_page_token: string | null;
};
const TARGET = { workflowId: "order-42", runId: "01jrv0k8d3m6y0x7q9c2n4b5za" };

function sequences(page: PageRead | void): number[] {
  return page ? page.events.map((event) => event.sequence) : [];
}

interface Asked {
  after: number;
  signal: AbortSignal | undefined;
}

/**
 * A server of `total` events in pages of `size`, as the client reads it. Pages after `holdAfter`
 * wait until their request is aborted (a read-ahead nobody takes); pages after `failAfter` are the
 * server's 500 envelope.
 */
function historyServer(total: number, size: number, { holdAfter = Infinity, failAfter = Infinity } = {}) {
  const asked: Asked[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const token = url.searchParams.get("next_page_token");
    const after = token === null ? 0 : Number(Buffer.from(token, "base64").toString("utf8"));
    const signal = init?.signal ?? undefined;
    asked.push({ after, signal });
    if (after > holdAfter) {
      await new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    }
    if (after > failAfter) return Response.json(fixture("error-500"), { status: 500 });
    const last = Math.min(after + size, total);
    const events = [];
    for (let sequence = after + 1; sequence <= last; sequence++) {
      events.push({ ...TEMPLATE.events[1], sequence });
    }
    const page = { ...TEMPLATE, events, next_page_token: last < total ? historyToken(last) : null };
    return Response.json(page);
  };
  const client = createDwClient({ baseUrl: "http://dw.test", namespace: "default", fetch: fetchImpl });
  return { client, asked };
}

describe("walkPages", () => {
  it("asks for the next page before the caller has taken the one it was given", async () => {
    const { client, asked } = historyServer(5, 2);
    const pages = walkPages(client, TARGET, 0, { signal: new AbortController().signal });
    const first = await pages.next();
    expect(sequences(first.value)).toEqual([1, 2]);
    // Page 1 is the caller's to derive; page 2 is already being read.
    await Promise.resolve();
    expect(asked.map((a) => a.after)).toEqual([0, 2]);
    const rest: number[][] = [];
    for (let page = await pages.next(); !page.done; page = await pages.next()) {
      rest.push(sequences(page.value));
    }
    expect(rest).toEqual([[3, 4], [5]]);
    // No read past the last page.
    expect(asked.map((a) => a.after)).toEqual([0, 2, 4]);
  });

  it("stops the read-ahead when the caller stops early", async () => {
    const { client, asked } = historyServer(6, 2, { holdAfter: 0 });
    const pages = walkPages(client, TARGET, 0, { signal: new AbortController().signal });
    for await (const page of pages) {
      expect(page.events).toHaveLength(2);
      break; // as a walk does when deriving a page throws
    }
    expect(asked.map((a) => a.after)).toEqual([0, 2]);
    expect(asked[1]?.signal?.aborted).toBe(true);
  });

  it("reports a read-ahead that failed when the caller asks for that page, not with the page before", async () => {
    const { client, asked } = historyServer(6, 2, { failAfter: 0 });
    const pages = walkPages(client, TARGET, 0, { signal: new AbortController().signal });
    expect(sequences((await pages.next()).value)).toEqual([1, 2]);
    await Promise.resolve();
    expect(asked.map((a) => a.after)).toEqual([0, 2]);
    await expect(pages.next()).rejects.toMatchObject({ httpStatus: 500 });
  });

  it("stops between pages when the caller's signal is aborted", async () => {
    const { client } = historyServer(4, 2);
    const controller = new AbortController();
    const pages = walkPages(client, TARGET, 0, { signal: controller.signal });
    expect(sequences((await pages.next()).value)).toEqual([1, 2]);
    controller.abort(new DOMException("every viewer left", "AbortError"));
    await expect(pages.next()).rejects.toMatchObject({ name: expect.stringMatching(/Abort/) });
  });
});
