import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { QueryClient } from "@tanstack/react-query";
import type { HistoryEventInput } from "@/lib/views/events";
import exhausted from "@/lib/views/fixtures/exhausted-retries.json";
import retryThenSuccess from "@/lib/views/fixtures/retry-then-success.json";
import { assembleRunView } from "@/lib/views/run-derivation";
import type { DerivedChunk, DerivedSnapshot } from "@/lib/views/run-derivation";
import type { RunViewLine } from "@/lib/run-view/wire";
import { RUN_VIEW_ENCODING_HEADER } from "@/lib/run-view/wire";
import {
  RunViewAccumulator,
  RunViewError,
  assembledChart,
  fetchRunView,
  ledgerCount,
  ledgerSlice,
  INFLATE_SLICE_BYTES,
  readNdjson,
  runViewUrl,
  splitChunks,
  yieldToMain,
} from "@/lib/run-view/stream";
import type { RunViewData } from "@/lib/run-view/stream";
import { RunViewStore, runViewQuery } from "@/lib/run-view/store";
import { ndjson, runViewLines, streamedResponse } from "@/lib/run-view/fake";

const eventsOf = (fixture: unknown) => (fixture as { history_events: HistoryEventInput[] }).history_events;
const target = { namespace: "default", workflowId: "order-1001", runId: "run-1" };

function untilState(store: RunViewStore, done: (data: RunViewData) => boolean): Promise<RunViewData> {
  return new Promise((resolve) => {
    const check = () => {
      const data = store.getData();
      if (done(data)) {
        unsubscribe();
        resolve(data);
      }
    };
    const unsubscribe = store.subscribe(check);
    check();
  });
}

describe("readNdjson", () => {
  it("parses every line whatever the read boundaries, including a last line without a newline", async () => {
    const lines = runViewLines(eventsOf(exhausted));
    const text = ndjson(lines).trimEnd();
    for (const pieceBytes of [1, 7, 4096, text.length]) {
      const got: RunViewLine[] = [];
      await readNdjson(streamedResponse(text, { pieceBytes }).body!, (line) => got.push(line));
      expect(got).toEqual(lines);
    }
  });

  it("yields to the page once per time budget even when every read is short (a buffered body)", async () => {
    // 400 lines in reads of two lines each; every line costs 1 ms on the fake clock.
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ t: "progress", read: i, total: 400 }));
    const text = lines.map((line) => `${line}\n`).join("");
    const pieceBytes = Math.ceil(text.length / 200);
    let clock = 0;
    let yields = 0;
    let longest = 0;
    let since = 0;
    const yieldToPage = async () => {
      yields += 1;
      since = 0;
    };
    await readNdjson(
      streamedResponse(text, { pieceBytes }).body!,
      () => {
        clock += 1;
        since += 1;
        longest = Math.max(longest, since);
      },
      undefined,
      { now: () => clock, yield: yieldToPage, budgetMs: 8 },
    );
    // A yield after every 9 ms of lines: the old per-read budget never reached 8 ms and never yielded.
    expect(yields).toBeGreaterThanOrEqual(40);
    expect(longest).toBeLessThanOrEqual(9);
  });

  it("names a line that is not JSON", async () => {
    const body = streamedResponse('{"t":"progress","read":1,"total":2}\nnot json\n').body!;
    await expect(readNdjson(body, () => undefined)).rejects.toMatchObject({
      info: { reason: "malformed_response" },
    });
  });
});

describe("RunViewAccumulator", () => {
  it.each([
    ["retry then success", retryThenSuccess],
    ["exhausted retries", exhausted],
  ])("gives what assembleRunView gives for %s, without assembling", (_name, fixture) => {
    const lines = runViewLines(eventsOf(fixture), { pageSize: 2 });
    const acc = new RunViewAccumulator();
    for (const line of lines) acc.apply(line);
    const chunks = lines.filter((line): line is DerivedChunk => ["ledger", "list", "bars"].includes(line.t));
    const snapshot = (lines.find((line) => line.t === "snapshot") as { snapshot: DerivedSnapshot }).snapshot;
    const whole = assembleRunView(chunks, snapshot);
    const data = { ...acc, snapshot: acc.snapshot, closedLedger: acc.closedLedger } as unknown as RunViewData;
    expect(ledgerCount(data)).toBe(whole.ledger.length);
    expect(ledgerSlice(data, 0, 1_000)).toEqual(whole.ledger);
    expect(ledgerSlice(data, 1, 2)).toEqual(whole.ledger.slice(1, 2));
    expect(acc.list).toEqual(whole.list);
    expect(assembledChart(data)).toEqual(whole.chart);
    expect(acc.read).toBe(eventsOf(fixture).length);
    expect(acc.total).toBe(eventsOf(fixture).length);
    expect(acc.lastSequence).toBe(eventsOf(fixture).length);
  });
});

describe("fetchRunView", () => {
  it("keeps the typed reason of a JSON error envelope sent before the stream", async () => {
    const fetchImpl = vi.fn(async () =>
      Response.json({ reason: "run_not_found", message: "Run run-1 not found", run_id: "run-1" }, { status: 404 }),
    );
    const failure = await fetchRunView({ ...target, fetchImpl }, () => undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunViewError);
    expect((failure as RunViewError).info).toMatchObject({
      reason: "run_not_found",
      httpStatus: 404,
      message: "Run run-1 not found",
    });
  });

  it("asks with the namespace header and the wire's query", async () => {
    const fetchImpl = vi.fn<typeof fetch>(() => Promise.resolve(streamedResponse("")));
    await fetchRunView({ ...target, since: 12, wait: true, fetchImpl }, () => undefined);
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe("/api/run-view?workflow_id=order-1001&run_id=run-1&since=12&wait=1&gzip=1");
    expect(new Headers(init?.headers).get("x-namespace")).toBe("default");
    expect(runViewUrl("a/b", "r 1")).toBe("/api/run-view?workflow_id=a%2Fb&run_id=r+1&gzip=1");
  });

  it("inflates a body the console gzipped itself (its header says so), lines intact", async () => {
    const lines: RunViewLine[] = [
      { t: "progress", read: 1000, total: 2000 },
      { t: "done", lastSequence: 2000 },
    ];
    const zipped = gzipSync(Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join("")));
    const fetchImpl = vi.fn<typeof fetch>(() =>
      Promise.resolve(new Response(zipped, { headers: { [RUN_VIEW_ENCODING_HEADER]: "gzip" } })),
    );
    const seen: RunViewLine[] = [];
    await fetchRunView({ ...target, fetchImpl }, (line) => seen.push(line));
    expect(seen).toEqual(lines);
  });

  it("inflates a gzip body that arrives as one chunk of many slices, every line intact", async () => {
    // Random text barely compresses, so the gzip body spans several inflate slices.
    const lines: RunViewLine[] = Array.from({ length: 60 }, (_, i) => ({
      t: "error",
      error: { reason: "unknown", httpStatus: null, message: randomBytes(4096).toString("hex"), namespace: `n${i}` },
    }));
    const zipped = gzipSync(Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join("")));
    expect(zipped.byteLength).toBeGreaterThan(3 * INFLATE_SLICE_BYTES);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(zipped));
        controller.close();
      },
    });
    const fetchImpl = vi.fn<typeof fetch>(() =>
      Promise.resolve(new Response(body, { headers: { [RUN_VIEW_ENCODING_HEADER]: "gzip" } })),
    );
    const seen: RunViewLine[] = [];
    await fetchRunView({ ...target, fetchImpl }, (line) => seen.push(line));
    expect(seen).toEqual(lines);
  });
});

describe("splitChunks", () => {
  it("passes bytes on in pieces of at most the given size, in order and unchanged", async () => {
    const bytes = new Uint8Array(150_000).map((_, i) => i % 251);
    const pieces: Uint8Array[] = [];
    const reader = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.enqueue(new Uint8Array([7]));
        controller.close();
      },
    })
      .pipeThrough(splitChunks(65_536))
      .getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) pieces.push(r.value);
    expect(pieces.map((p) => p.byteLength)).toEqual([65_536, 65_536, 18_928, 1]);
    expect(Buffer.concat(pieces)).toEqual(Buffer.concat([bytes, new Uint8Array([7])]));
  });
});

describe("RunViewStore", () => {
  it("reads a closed run once; a later visit reuses it from the query cache", async () => {
    const lines = runViewLines(eventsOf(exhausted));
    const fetchImpl = vi.fn(async () => streamedResponse(ndjson(lines), { pieceBytes: 64 }));
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 5);
    store.setLive(false);
    const release = store.retain();
    expect(store.getData().status).toBe("reading");
    const data = await untilState(store, (state) => state.status === "done");
    expect(data.complete).toBe(true);
    expect(data.read).toBe(10);
    expect(data.total).toBe(10);
    expect(data.meta?.exportOnly).toEqual(["tasks", "commands", "links"]);
    expect(data.snapshot?.counts.events).toBe(10);
    release();
    store.retain()();
    expect(fetchImpl).toHaveBeenCalledTimes(1);

    const client = new QueryClient();
    const options = runViewQuery("default", "wf", "run");
    const first = await client.ensureQueryData(options);
    expect(first).toBeInstanceOf(RunViewStore);
    expect(await client.ensureQueryData(runViewQuery("default", "wf", "run"))).toBe(first);
    // Invalidating the run after an action hands back the same store (its long-poll extends it).
    await client.refetchQueries({ queryKey: options.queryKey });
    expect(client.getQueryData(options.queryKey)).toBe(first);
    expect(options.gcTime).toBeGreaterThanOrEqual(10 * 60_000);
  });

  it("changes its summary only on meta, the snapshot, done and errors, not on every batch of chunks", async () => {
    const lines = runViewLines(eventsOf(exhausted), { pageSize: 2 });
    const fetchImpl = vi.fn(async () => streamedResponse(ndjson(lines), { pieceBytes: 16 }));
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 0);
    const datas = new Set<unknown>();
    const summaries = new Set<unknown>();
    store.subscribe(() => {
      datas.add(store.getData());
      summaries.add(store.getSummary());
    });
    store.setLive(false);
    const release = store.retain();
    const done = await untilState(store, (state) => state.status === "done");
    release();
    // reading, meta, the first unparsed list chunk, snapshot, done: each a new summary; the chunk
    // batches in between only new data.
    expect(summaries.size).toBeLessThanOrEqual(5);
    expect(datas.size).toBeGreaterThan(summaries.size);
    const summary = store.getSummary();
    expect(summary.snapshot).toBe(done.snapshot);
    expect(summary.complete).toBe(true);
    // The event list stays unparsed until something shows it; its newest rows are there anyway.
    const rows = lines.flatMap((line) => (line.t === "list" ? line.rows : []));
    expect(done.list).toEqual([]);
    expect(done.listPending).toBe(true);
    expect(summary.latest).toEqual(rows.slice(-20));
    store.wantList();
    const listed = await untilState(store, (state) => !state.listPending);
    expect(listed.list).toEqual(rows);
  });

  it("reports an error line with its reason, and reads again on retry", async () => {
    const lines: RunViewLine[] = [
      { t: "meta", closed: true, total: 5, cache: "miss", pageSize: 1000, exportOnly: [] },
      { t: "progress", read: 2, total: 5 },
      {
        t: "error",
        error: { reason: "server_unavailable", httpStatus: 504, message: "upstream timed out", namespace: null },
      },
    ];
    const good = runViewLines(eventsOf(exhausted));
    const fetchImpl = vi
      .fn()
      .mockResolvedValueOnce(streamedResponse(ndjson(lines)))
      .mockResolvedValueOnce(streamedResponse(ndjson(good)));
    const store = new RunViewStore({ ...target, fetchImpl }, 5);
    store.retain();
    const failed = await untilState(store, (state) => state.status === "error");
    expect(failed.error).toMatchObject({
      reason: "server_unavailable",
      httpStatus: 504,
      message: "upstream timed out",
    });
    expect(failed.read).toBe(2);
    store.retry();
    const done = await untilState(store, (state) => state.status === "done");
    expect(done.read).toBe(10);
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  it("aborts the request when the page leaves mid-stream, and drops the partial read", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let signal: AbortSignal | undefined;
    const lines = runViewLines(eventsOf(exhausted)).filter((line) => line.t !== "done" && line.t !== "snapshot");
    const fetchImpl = vi.fn(async (_url: string, init?: RequestInit) => {
      signal = init?.signal ?? undefined;
      return streamedResponse(ndjson(lines), { pieceBytes: 4096, hold });
    });
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 5);
    const leave = store.retain();
    await untilState(store, (state) => state.read > 0);
    leave();
    expect(signal?.aborted).toBe(true);
    const idle = await untilState(store, (state) => state.status === "idle");
    expect(idle.read).toBe(0);
    release();
  });

  it("extends an open run from its last sequence with the long-poll, and stops when the page leaves", async () => {
    const events = eventsOf(retryThenSuccess);
    const first = runViewLines(events.slice(0, 5), { closed: false });
    const later = runViewLines(events, { closed: false });
    // The long-poll answers only what came after event 5, then a fresh snapshot.
    const extension = later.filter(
      (line, index) => index === 0 || line.t === "snapshot" || line.t === "done" || (line.t === "list" && index > 3),
    );
    const urls: string[] = [];
    let pending: ((response: Response) => void) | null = null;
    const fetchImpl = vi.fn((url: string, init?: RequestInit) => {
      urls.push(url);
      if (urls.length === 1) return Promise.resolve(streamedResponse(ndjson(first)));
      if (urls.length === 2) return Promise.resolve(streamedResponse(ndjson(extension)));
      return new Promise<Response>((resolve, reject) => {
        pending = resolve;
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    });
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 5);
    store.setLive(true);
    store.wantList();
    const leave = store.retain();
    const extended = await untilState(
      store,
      (state) => state.snapshot?.lastSequence === events.length && !state.listPending,
    );
    expect(urls[1]).toContain("since=5&wait=1");
    expect(extended.list.map((row) => row.sequence)).toEqual(
      events
        .map((event) => event.sequence)
        .slice(0, 5)
        .concat(extended.list.slice(5).map((row) => row.sequence)),
    );
    expect(extended.status).toBe("done");
    await vi.waitFor(() => expect(urls).toHaveLength(3));
    expect(urls[2]).toContain(`since=${events.length}&wait=1`);
    leave();
    expect(pending).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fetchImpl).toHaveBeenCalledTimes(3);
  });

  it("drops what it holds when a long-poll answers a whole view (`from: 0`)", async () => {
    const events = eventsOf(retryThenSuccess);
    const first = runViewLines(events.slice(0, 5), { closed: false });
    const whole = runViewLines(events, { closed: true });
    (whole[0] as { from?: number }).from = 0;
    const fetchImpl = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(streamedResponse(ndjson(first)))
      .mockResolvedValueOnce(streamedResponse(ndjson(whole)));
    const store = new RunViewStore({ ...target, fetchImpl }, 5);
    store.setLive(true);
    const leave = store.retain();
    const data = await untilState(store, (state) => state.meta?.closed === true);
    expect(data.list.map((row) => row.sequence)).toEqual(events.map((event) => event.sequence));
    expect(fetchImpl).toHaveBeenCalledTimes(2);
    leave();
  });
});

describe("RunViewStore while the server is away", () => {
  /** A wait the test ends itself: records each pause the store asks for, and lets it go at once. */
  function recordedWaits(): { waits: number[]; wait: (ms: number, signal: AbortSignal) => Promise<void> } {
    const waits: number[] = [];
    return { waits, wait: (ms) => (waits.push(ms), Promise.resolve()) };
  }
  const refused = () => Promise.reject(new TypeError("fetch failed"));

  it("keeps its pauses between tries to a few seconds, however long the outage", async () => {
    const events = eventsOf(retryThenSuccess);
    const { waits, wait } = recordedWaits();
    let calls = 0;
    const fetchImpl = vi.fn((_url: string, init?: RequestInit) => {
      calls += 1;
      if (calls === 1)
        return Promise.resolve(streamedResponse(ndjson(runViewLines(events.slice(0, 5), { closed: false }))));
      if (calls <= 13) return refused();
      // Back: a long-poll the server holds (nothing new yet) until the page leaves.
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
      );
    });
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 5, wait);
    store.setLive(true);
    const leave = store.retain();
    await vi.waitFor(() => expect(calls).toBe(14));
    leave();
    expect(waits).toHaveLength(12);
    expect(Math.max(...waits)).toBeLessThanOrEqual(4_000);
    expect(waits.slice(0, 3)).toEqual([1_000, 2_000, 4_000]);
  });

  it("clears 'new events could not be checked' as soon as the server answers, not when the long-poll ends", async () => {
    const events = eventsOf(retryThenSuccess);
    const { wait } = recordedWaits();
    const meta: RunViewLine = { t: "meta", closed: false, total: 5, cache: "extend", pageSize: 1000, exportOnly: [] };
    let calls = 0;
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const fetchImpl = vi.fn(() => {
      calls += 1;
      if (calls === 1)
        return Promise.resolve(streamedResponse(ndjson(runViewLines(events.slice(0, 5), { closed: false }))));
      if (calls === 2) return refused();
      // The server is back: the console's meta line comes at once, the held poll's end much later.
      return Promise.resolve(streamedResponse(ndjson([meta]), { pieceBytes: 4096, hold }));
    });
    const store = new RunViewStore({ ...target, fetchImpl: fetchImpl as typeof fetch }, 5, wait);
    store.setLive(true);
    const leave = store.retain();
    const failed = await untilState(store, (state) => state.tailError !== null);
    expect(failed.tailError?.reason).toBe("server_unavailable");
    const recovered = await untilState(store, (state) => calls === 3 && state.tailError === null);
    expect(recovered.status).toBe("done");
    leave();
    release();
  });

  it("reads a run whose first read found the server away again by itself once it answers", async () => {
    const { waits, wait } = recordedWaits();
    const lines = runViewLines(eventsOf(exhausted));
    const fetchImpl = vi
      .fn<typeof fetch>()
      .mockImplementationOnce(refused)
      .mockImplementationOnce(refused)
      .mockResolvedValueOnce(streamedResponse(ndjson(lines)));
    const store = new RunViewStore({ ...target, fetchImpl }, 5, wait);
    const seen: string[] = [];
    store.subscribe(() => seen.push(store.getData().status));
    store.retain();
    const done = await untilState(store, (state) => state.status === "done");
    expect(done.read).toBe(10);
    expect(done.error).toBeNull();
    expect(fetchImpl).toHaveBeenCalledTimes(3);
    expect(waits).toEqual([1_000, 2_000]);
    // The error stays on screen between the tries: no flicker back to "reading" until it answers.
    expect(seen.filter((status, i) => status !== seen[i - 1])).toEqual(["reading", "error", "reading", "done"]);
  });

  it("does not retry by itself what the server refused (the run is not there)", async () => {
    const { waits, wait } = recordedWaits();
    const fetchImpl = vi
      .fn<typeof fetch>()
      .mockResolvedValue(
        new Response(JSON.stringify({ reason: "run_not_found", message: "no such run" }), { status: 404 }),
      );
    const store = new RunViewStore({ ...target, fetchImpl }, 5, wait);
    store.retain();
    const failed = await untilState(store, (state) => state.status === "error");
    expect(failed.error?.reason).toBe("run_not_found");
    // A retry would have asked for its pause by the end of this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(waits).toEqual([]);
  });
});

describe("yieldToMain", () => {
  it("goes on at background priority where the browser has scheduler.postTask, so renders queued meanwhile run first", async () => {
    const postTask = vi.fn<(callback: () => void, options: { priority: string }) => Promise<void>>((callback) =>
      Promise.resolve(callback()),
    );
    vi.stubGlobal("window", {});
    vi.stubGlobal("scheduler", { postTask });
    try {
      await yieldToMain();
      expect(postTask).toHaveBeenCalledTimes(1);
      expect(postTask.mock.calls[0]?.[1]).toEqual({ priority: "background" });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("without postTask, goes on behind the tasks already queued (first in, first out)", async () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("scheduler", undefined);
    try {
      const order: string[] = [];
      const first = yieldToMain().then(() => order.push("first"));
      const second = yieldToMain().then(() => order.push("second"));
      await Promise.all([first, second]);
      expect(order).toEqual(["first", "second"]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
