import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import exhausted from "@/lib/views/fixtures/exhausted-retries.json";
import type { HistoryEventInput } from "@/lib/views/events";
import type { RunViewLine } from "@/lib/run-view/wire";
import { RUN_VIEW_ENCODING_HEADER } from "@/lib/run-view/wire";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";
import { EARLY_RUN_VIEW_SCRIPT } from "@/lib/run-view/early";
import { fetchRunView, runViewUrl } from "@/lib/run-view/stream";
import { ndjson, runViewLines } from "@/lib/run-view/fake";

const lines = runViewLines((exhausted as { history_events: HistoryEventInput[] }).history_events);
const zipped = () =>
  new Response(gzipSync(Buffer.from(ndjson(lines))), { headers: { [RUN_VIEW_ENCODING_HEADER]: "gzip" } });

/** The browser globals the head script touches, on a page at `path` whose HTML is parsed. */
function page(path: string, fetchImpl: (url: string, init: RequestInit) => Promise<Response>) {
  const listeners: (() => void)[] = [];
  const doc = { readyState: "loading", addEventListener: (_: string, f: () => void) => void listeners.push(f) };
  vi.stubGlobal("window", {});
  vi.stubGlobal("location", { pathname: path });
  vi.stubGlobal("document", doc);
  const fetchSpy = vi.fn(fetchImpl);
  vi.stubGlobal("fetch", fetchSpy);
  new Function(EARLY_RUN_VIEW_SCRIPT)();
  const parsed = () => {
    doc.readyState = "interactive";
    for (const f of listeners) f();
  };
  return { fetchSpy, parsed };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the run view's early read", () => {
  it("is part of the head script", () => {
    expect(HEAD_SCRIPT).toContain(EARLY_RUN_VIEW_SCRIPT);
  });

  it("starts once a run page's HTML is parsed, at low priority, and the page's first read adopts it", async () => {
    const { fetchSpy, parsed } = page("/namespaces/team%20a/workflows/order%2F1/runs/r-1", async () => zipped());
    expect(fetchSpy).not.toHaveBeenCalled();
    parsed();
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(url).toBe(runViewUrl("order/1", "r-1"));
    expect(init).toMatchObject({ headers: { "X-Namespace": "team a" }, priority: "low" });

    const got: RunViewLine[] = [];
    await fetchRunView({ namespace: "team a", workflowId: "order/1", runId: "r-1" }, (line) => got.push(line));
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    expect(got).toEqual(lines);

    // Taken once: the next read (a retry, say) asks again.
    await fetchRunView({ namespace: "team a", workflowId: "order/1", runId: "r-1" }, () => undefined);
    expect(fetchSpy).toHaveBeenCalledTimes(2);
  });

  it("is not adopted by a read of another run, namespace or a tail", async () => {
    const { fetchSpy, parsed } = page("/namespaces/default/workflows/w/runs/r", async () => zipped());
    parsed();
    await fetchRunView({ namespace: "other", workflowId: "w", runId: "r" }, () => undefined);
    await fetchRunView({ namespace: "default", workflowId: "w", runId: "r", since: 3, wait: true }, () => undefined);
    await fetchRunView({ namespace: "default", workflowId: "w", runId: "r2" }, () => undefined);
    expect(fetchSpy).toHaveBeenCalledTimes(4);
  });

  it("is aborted when the page's read is (the person left before it arrived)", async () => {
    let signal: AbortSignal | undefined;
    const { parsed } = page(
      "/namespaces/default/workflows/w/runs/r",
      (_url, init) =>
        new Promise((_resolve, reject) => {
          signal = init.signal ?? undefined;
          signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    parsed();
    const leave = new AbortController();
    const read = fetchRunView({ namespace: "default", workflowId: "w", runId: "r", signal: leave.signal }, () => {});
    leave.abort();
    await expect(read).rejects.toMatchObject({ name: "AbortError" });
    expect(signal?.aborted).toBe(true);
  });

  it("waits for the first frame after the HTML is parsed, and does not start once the page has read", async () => {
    const frames: (() => void)[] = [];
    const tasks: (() => void)[] = [];
    vi.stubGlobal("requestAnimationFrame", (f: () => void) => frames.push(f));
    vi.stubGlobal("setTimeout", (f: () => void, ms?: number) => (ms === 30000 ? 0 : tasks.push(f)));
    const { fetchSpy, parsed } = page("/namespaces/default/workflows/w/runs/r", async () => zipped());
    parsed();
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(fetchSpy).not.toHaveBeenCalled(); // the frame is drawn after its rAF callbacks
    tasks.shift()!();
    expect(fetchSpy).toHaveBeenCalledTimes(1);

    // The page hydrated first: it reads by itself and the early read, due later, does not start.
    const again = page("/namespaces/default/workflows/w/runs/r", async () => zipped());
    again.parsed();
    await fetchRunView({ namespace: "default", workflowId: "w", runId: "r" }, () => undefined);
    expect(again.fetchSpy).toHaveBeenCalledTimes(1);
    frames.shift()!();
    tasks.shift()!();
    expect(again.fetchSpy).toHaveBeenCalledTimes(1);
  });

  it("waits for the first contentful paint where the browser reports paints", () => {
    const tasks: (() => void)[] = [];
    vi.stubGlobal("setTimeout", (f: () => void, ms?: number) => (ms === 30000 ? 0 : tasks.push(f)));
    const observers: { callback: (list: { getEntriesByName: (n: string) => unknown[] }) => void; on: boolean }[] = [];
    class FakeObserver {
      static supportedEntryTypes = ["paint", "longtask"];
      private readonly entry;
      constructor(callback: (list: { getEntriesByName: (n: string) => unknown[] }) => void) {
        this.entry = { callback, on: false };
        observers.push(this.entry);
      }
      observe(options: { type: string; buffered: boolean }) {
        expect(options).toEqual({ type: "paint", buffered: true });
        this.entry.on = true;
      }
      disconnect() {
        this.entry.on = false;
      }
    }
    const paints = (names: string[]) => ({ getEntriesByName: (n: string) => names.filter((x) => x === n) });
    const { fetchSpy, parsed } = page("/namespaces/default/workflows/w/runs/r", async () => zipped());
    (window as unknown as { PerformanceObserver: unknown }).PerformanceObserver = FakeObserver;
    parsed();
    expect(observers).toHaveLength(1);
    // The first paint (background only) is not the contentful one: nothing is fetched yet.
    observers[0]!.callback(paints(["first-paint"]));
    expect(tasks).toHaveLength(0);
    observers[0]!.callback(paints(["first-contentful-paint"]));
    expect(observers[0]!.on).toBe(false);
    expect(fetchSpy).not.toHaveBeenCalled();
    tasks.shift()!();
    expect(fetchSpy).toHaveBeenCalledTimes(1);
  });

  it("does nothing on other pages", () => {
    for (const path of ["/namespaces/default/workflows/w", "/namespaces/default/runs", "/"]) {
      const { fetchSpy, parsed } = page(path, async () => zipped());
      parsed();
      expect(fetchSpy).not.toHaveBeenCalled();
    }
  });
});
