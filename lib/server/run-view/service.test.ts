import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createDwClient } from "@/lib/dw/client";
import type { HistoryEvent } from "@/lib/dw/schemas-workflows";
import { attemptLedger } from "@/lib/views/attempts";
import { toViewEvent } from "@/lib/views/events";
import { exceptionRows } from "@/lib/views/exceptions";
import { assembleRunView } from "@/lib/views/run-derivation";
import type { AssembledRunView, DerivedChunk, DerivedSnapshot } from "@/lib/views/run-derivation";
import type { RunViewLine } from "@/lib/run-view/wire";
import { timelineRows, toListRow } from "@/lib/views/timeline";
import { systemClock } from "@/server/clock";
import { createEngine } from "@/server/engine";
import type { Engine } from "@/server/engine";
import { buildApp } from "@/server/http/app";
import { authConfigFromEnv } from "@/server/http/auth";
import { openDb } from "@/server/store/db";
import type { Db } from "@/server/store/db";

import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { seedLongRun } from "@/bench/support/history-seed";
import { RUN_VIEW_ENCODING_HEADER, RUN_VIEW_HEADER } from "@/lib/run-view/wire";
import type { RunViewExtras } from "@/lib/run-view/wire";
import { forwardHeaders } from "@/lib/server/auth/principal";
import { parseConfig } from "@/lib/server/process/config";
import { DEFAULT_HEAP_FLAGS, SMALL_HEAP_FLAGS } from "@/lib/server/process/heap";
import { createLogger } from "@/lib/server/process/log";
import { RunViewCache } from "./cache";
import type { CacheEntry } from "./cache";
import { RunViewService } from "./service";

/**
 * Test support for the run-view suites: the embedded server in-process (SQLite in a temp dir, HTTP
 * on 127.0.0.1) with role tokens, a fetch that records (and can hold or break) every upstream call,
 * NDJSON reading, and the batch views over a whole history to compare the paged walk with.
 */

const TOKENS = { admin: "adm-token", operator: "op-token", worker: "wrk-token" };

interface EmbeddedServer {
  url: string;
  db: Db;
  engine: Engine;
  close(): Promise<void>;
}

async function startEmbedded(): Promise<EmbeddedServer> {
  const dir = mkdtempSync(join(tmpdir(), "bw-run-view-"));
  const db = openDb(join(dir, "dw.sqlite"), systemClock);
  const engine = createEngine({ db, clock: systemClock });
  const app = buildApp({
    db,
    clock: systemClock,
    engine,
    auth: authConfigFromEnv({
      ...process.env,
      DW_ADMIN_TOKEN: TOKENS.admin,
      DW_OPERATOR_TOKEN: TOKENS.operator,
      DW_WORKER_TOKEN: TOKENS.worker,
      DW_AUTH_DRIVER: "token",
    }),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    db,
    engine,
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Call {
  url: URL;
  signal: AbortSignal | null;
}

/** Decides about one upstream call: a Response replaces it, undefined lets it through. */
type Hook = (call: Call) => Promise<Response | undefined> | Response | undefined;

function recordingFetch(hook?: Hook): { fetch: typeof fetch; calls: Call[]; history: () => Call[] } {
  const calls: Call[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const call = { url, signal: init?.signal ?? null };
    calls.push(call);
    const replaced = await hook?.(call);
    return replaced ?? fetch(input, init);
  };
  return { fetch: recording, calls, history: () => calls.filter((call) => call.url.pathname.endsWith("/history")) };
}

/** A promise the test opens; a held call given up by its signal rejects like an aborted fetch. */
function gate(): { open: () => void; wait: (signal: AbortSignal | null) => Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open: () => open(),
    wait: (signal) =>
      new Promise<void>((resolve, reject) => {
        void opened.then(resolve);
        signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
      }),
  };
}

function tokenAfter(call: Call): number {
  const token = call.url.searchParams.get("next_page_token");
  return token === null ? 0 : Number(Buffer.from(token, "base64").toString("utf8"));
}

function parseLines(text: string): RunViewLine[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as RunViewLine);
}

/** Reads lines until `until` holds for one, leaving the rest of the stream unread. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (line: RunViewLine) => boolean,
): Promise<RunViewLine[]> {
  const decoder = new TextDecoder();
  let buffered = "";
  const lines: RunViewLine[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return lines;
    buffered += decoder.decode(value, { stream: true });
    const complete = buffered.split("\n");
    buffered = complete.pop() ?? "";
    for (const text of complete) {
      if (text === "") continue;
      const line = JSON.parse(text) as RunViewLine;
      lines.push(line);
      if (until(line)) return lines;
    }
  }
}

function assembled(lines: readonly RunViewLine[]): AssembledRunView {
  const chunks = lines.filter(
    (line): line is DerivedChunk => line.t === "ledger" || line.t === "bars" || line.t === "list",
  );
  const snapshot = lines.find((line): line is { t: "snapshot"; snapshot: DerivedSnapshot } => line.t === "snapshot");
  if (!snapshot) throw new Error("no snapshot line");
  return assembleRunView(chunks, snapshot.snapshot);
}

/** The batch views over the whole history, read directly: what the walk must add up to. */
async function batchView(url: string, workflowId: string, runId: string) {
  const client = createDwClient({ baseUrl: url, token: TOKENS.admin, namespace: "default" });
  const events: HistoryEvent[] = [];
  let token: string | null = null;
  do {
    const page = await client.getHistory(workflowId, runId, { pageSize: 1000, nextPageToken: token });
    events.push(...page.events);
    token = page.next_page_token ?? null;
  } while (token !== null);
  const debug = await client.debugRun(workflowId, runId);
  return {
    events,
    ledger: attemptLedger(events),
    list: events.map((event) => toListRow(toViewEvent(event))),
    chart: timelineRows(events, {}),
    exceptions: exceptionRows({ recent_failures: debug.recent_failures ?? [] }, events),
  };
}

/** Chart pieces compared as sets: chunks and the snapshot may order them differently than the batch walk. */
function sortedByJson<T>(items: readonly T[]): string[] {
  return items.map((item) => JSON.stringify(item)).sort();
}

// ---------------------------------------------------------------- the suite

let dw: EmbeddedServer;
let closedRun: { workflowId: string; runId: string; events: number };
let batch: Awaited<ReturnType<typeof batchView>>;

beforeAll(async () => {
  dw = await startEmbedded();
  const seeded = seedLongRun(dw.db, "wf-long", 2500);
  closedRun = { workflowId: seeded.workflowId, runId: seeded.runId, events: seeded.events };
  batch = await batchView(dw.url, closedRun.workflowId, closedRun.runId);
});

afterAll(async () => {
  await dw.close();
});

function service(
  env: Record<string, string> = {},
  hook?: Hook,
): { svc: RunViewService; calls: Call[]; history: () => Call[]; v8Flags: string[] } {
  const recorder = recordingFetch(hook);
  const config = parseConfig({ DW_SERVER_URL: dw.url, DW_TOKEN: TOKENS.admin, ...env });
  const logger = createLogger(undefined, "silent");
  // The V8 flags a walk would set (lib/server/process/heap.ts), recorded instead of set in the test process.
  const v8Flags: string[] = [];
  const setV8Flags = (flags: string) => void v8Flags.push(flags);
  return { svc: new RunViewService(config, { fetch: recorder.fetch, logger, setV8Flags }), ...recorder, v8Flags };
}

function viewRequest(
  target: { workflowId: string; runId: string },
  query: Record<string, string> = {},
  init: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Request {
  const search = new URLSearchParams({ workflow_id: target.workflowId, run_id: target.runId, ...query });
  return new Request(`http://console.test/api/run-view?${search}`, {
    headers: { "x-namespace": "default", ...init.headers },
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

async function linesOf(response: Response): Promise<RunViewLine[]> {
  return parseLines(await response.text());
}

function startOpenRun(workflowId: string): { workflowId: string; runId: string } {
  const started = dw.engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: "OpenRun",
    task_queue: "q",
    input: { codec: "avro", blob: "" },
  } as never);
  return { workflowId, runId: started.run_id ?? "" };
}

function signal(workflowId: string): void {
  dw.engine.signalWorkflow({ namespace: "default", workflow_id: workflowId, signal_name: "poke", input: [] } as never);
}

function progressReads(lines: readonly RunViewLine[]): number[] {
  return lines.flatMap((line) => (line.t === "progress" ? [line.read] : []));
}

describe("GET /api/run-view on a closed run", () => {
  it("streams meta, pages of chunks with progress, the snapshot and done, in that order", async () => {
    const { svc, history } = service();
    const response = await svc.view(viewRequest(closedRun));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    expect(response.headers.get(RUN_VIEW_HEADER)).toBe("miss");
    const lines = await linesOf(response);
    expect(lines[0]).toMatchObject({ t: "meta", closed: true, cache: "miss", pageSize: 1000, from: 0, held: false });
    expect(lines.at(-2)?.t).toBe("snapshot");
    expect(lines.at(-1)).toEqual({ t: "done", lastSequence: 2500 });
    expect(progressReads(lines)).toEqual([0, 1000, 2000, 2500, 2500]);
    const total = lines.flatMap((line) => (line.t === "progress" ? [line.total] : []));
    // Unknown until the walk's debug read, then the run's event count.
    expect(total).toEqual([null, 2500, 2500, 2500, 2500]);
    // Three pages of at most 1000, tokens built from the last sequence.
    expect(history().map(tokenAfter)).toEqual([0, 1000, 2000]);
    expect(history().every((call) => call.url.searchParams.get("page_size") === "1000")).toBe(true);
    expect(history().some((call) => call.url.searchParams.has("wait_new_event"))).toBe(false);
  });

  it("streams the same lines gzipped with gzip=1, inflatable as they come", async () => {
    const { svc } = service();
    const zipped = await svc.view(viewRequest(closedRun, { gzip: "1" }));
    expect(zipped.headers.get(RUN_VIEW_HEADER)).toBe("miss");
    expect(zipped.headers.get(RUN_VIEW_ENCODING_HEADER)).toBe("gzip");
    // Labelled as what the bytes are: as UTF-8 text, DevTools decoded the whole body when it ended.
    expect(zipped.headers.get("content-type")).toBe("application/gzip");
    const inflated = zipped.body!.pipeThrough(new DecompressionStream("gzip"));
    const lines = parseLines(await new Response(inflated).text());
    expect(lines.at(-1)).toEqual({ t: "done", lastSequence: 2500 });
    expect(assembled(lines).list).toEqual(batch.list);
  });

  it("adds up to the batch views over the whole history", async () => {
    const { svc } = service();
    const view = assembled(await linesOf(await svc.view(viewRequest(closedRun))));
    expect(view.list).toEqual(batch.list);
    expect(view.list.map((row) => row.sequence)).toEqual(batch.events.map((event) => event.sequence));
    expect(view.ledger).toEqual(batch.ledger);
    expect(view.exceptions).toEqual(batch.exceptions);
    expect(view.exceptions.length).toBeGreaterThan(0);
    expect(sortedByJson(view.chart.bars)).toEqual(sortedByJson(batch.chart.bars));
    expect(sortedByJson(view.chart.markers)).toEqual(sortedByJson(batch.chart.markers));
    expect(view.lastSequence).toBe(2500);
  });

  it("answers a repeat view from the cache: hit, the same lines, no history read, gzip when asked", async () => {
    const { svc, calls, history } = service();
    const first = await linesOf(await svc.view(viewRequest(closedRun)));
    await svc.idle();
    const before = history().length;
    const describes = calls.length;
    const again = await svc.view(viewRequest(closedRun));
    expect(again.headers.get(RUN_VIEW_HEADER)).toBe("hit");
    const second = await linesOf(again);
    expect(history().length).toBe(before);
    // Authorised again: one describe, nothing else.
    expect(calls.slice(describes).map((call) => call.url.pathname)).toEqual([
      `/api/workflows/${closedRun.workflowId}/runs/${closedRun.runId}`,
    ]);
    expect(second[0]).toMatchObject({ t: "meta", cache: "hit", closed: true, total: 2500 });
    expect(assembled(second)).toEqual(assembled(first));
    const zipped = await svc.view(viewRequest(closedRun, { gzip: "1" }));
    expect(zipped.headers.get(RUN_VIEW_ENCODING_HEADER)).toBe("gzip");
    expect(zipped.headers.get("content-type")).toBe("application/gzip");
    const unzipped = parseLines(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString("utf8"));
    expect(unzipped).toEqual(second);
    expect(svc.stats()).toMatchObject({ walks: 0, cacheEntries: 1 });
    // Kept as its gzip only: the plain lines are not held beside it.
    const plainBytes = second.reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0);
    expect(svc.stats().cacheBytes).toBeGreaterThan(0);
    expect(svc.stats().cacheBytes).toBeLessThan(plainBytes / 4);
    // A tail after a page end is cut out of the inflated gzip: exactly the chunks after it.
    const tail = await linesOf(await svc.view(viewRequest(closedRun, { since: "1000" })));
    expect(tail[0]).toMatchObject({ t: "meta", cache: "hit", from: 1000 });
    const chunkKinds = new Set(["list", "ledger", "bars"]);
    const afterFirstPage = second.filter((line) => chunkKinds.has(line.t)).slice(3);
    expect(tail.filter((line) => chunkKinds.has(line.t))).toEqual(afterFirstPage);
    expect(tail.at(-1)).toEqual(second.at(-1));
    // A closed run is never long-polled, even when asked.
    const waited = await linesOf(await svc.view(viewRequest(closedRun, { since: "2500", wait: "1" })));
    expect(waited[0]).toMatchObject({ t: "meta", cache: "hit", from: 2500, held: false });
    expect(waited.filter((line) => line.t === "list")).toEqual([]);
    expect(calls.some((call) => call.url.searchParams.has("wait_new_event"))).toBe(false);
  });

  it("lets a second viewer join the walk in flight: one read of each page for both", async () => {
    const held = gate();
    const { svc, history } = service({}, async (call) => {
      if (call.url.pathname.endsWith("/history") && tokenAfter(call) === 1000) await held.wait(call.signal);
      return undefined;
    });
    const first = await svc.view(viewRequest(closedRun));
    const reader = first.body!.getReader();
    const head = await readUntil(reader, (line) => line.t === "progress" && line.read === 1000);
    const second = await svc.view(viewRequest(closedRun));
    expect(second.headers.get(RUN_VIEW_HEADER)).toBe("joined");
    expect(svc.stats().walks).toBe(1);
    held.open();
    const [rest, joined] = await Promise.all([readUntil(reader, () => false), linesOf(second)]);
    expect(joined[0]).toMatchObject({ t: "meta", cache: "joined" });
    expect(assembled(joined)).toEqual(assembled([...head, ...rest]));
    expect(assembled(joined).list).toEqual(batch.list);
    expect(history().map(tokenAfter)).toEqual([0, 1000, 2000]);
  });

  it("gives a gzip viewer who joins after two pages every line in order, cut out of the walk's compressed lines", async () => {
    const held = gate();
    const { svc, history } = service({}, async (call) => {
      if (call.url.pathname.endsWith("/history") && tokenAfter(call) === 2000) await held.wait(call.signal);
      return undefined;
    });
    const first = await svc.view(viewRequest(closedRun));
    const reader = first.body!.getReader();
    const head = await readUntil(reader, (line) => line.t === "progress" && line.read === 2000);
    const second = await svc.view(viewRequest(closedRun, { gzip: "1" }));
    expect(second.headers.get(RUN_VIEW_HEADER)).toBe("joined");
    expect(second.headers.get(RUN_VIEW_ENCODING_HEADER)).toBe("gzip");
    // A page read while the replay is being inflated goes after it, not before or twice.
    held.open();
    const [rest, zipped] = await Promise.all([readUntil(reader, () => false), second.arrayBuffer()]);
    const joined = parseLines(gunzipSync(Buffer.from(zipped)).toString("utf8"));
    const chunkKinds = new Set(["list", "ledger", "bars"]);
    const all = [...head, ...rest];
    expect(joined[0]).toMatchObject({ t: "meta", cache: "joined", from: 0 });
    expect(joined.filter((line) => chunkKinds.has(line.t))).toEqual(all.filter((line) => chunkKinds.has(line.t)));
    expect(joined.slice(-2)).toEqual(all.slice(-2));
    const reads = progressReads(joined);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    expect(reads.at(-1)).toBe(2500);
    expect(assembled(joined).list).toEqual(batch.list);
    expect(history().map(tokenAfter)).toEqual([0, 1000, 2000]);
    // The walk's gzip became the cache entry: a repeat view is the same lines, no read.
    await svc.idle();
    const again = await linesOf(await svc.view(viewRequest(closedRun)));
    expect(again.filter((line) => chunkKinds.has(line.t))).toEqual(all.filter((line) => chunkKinds.has(line.t)));
    expect(history()).toHaveLength(3);
  });

  it("stops the upstream read when the only viewer leaves, and the next visit resumes from where it stopped", async () => {
    const held = gate();
    let holding = true;
    const { svc, history, calls } = service({}, async (call) => {
      if (holding && call.url.pathname.endsWith("/history") && tokenAfter(call) === 1000) await held.wait(call.signal);
      return undefined;
    });
    const leave = new AbortController();
    const response = await svc.view(viewRequest(closedRun, {}, { signal: leave.signal }));
    const reader = response.body!.getReader();
    await readUntil(reader, (line) => line.t === "progress" && line.read === 1000);
    expect(svc.stats().walks).toBe(1);
    leave.abort();
    expect(svc.stats().walks).toBe(0);
    const pageTwo = history().find((call) => tokenAfter(call) === 1000);
    expect(pageTwo?.signal?.aborted).toBe(true);
    holding = false;
    held.open();
    const debugReads = calls.filter((call) => call.url.pathname.endsWith("/debug")).length;
    const resumed = await svc.view(viewRequest(closedRun));
    expect(resumed.headers.get(RUN_VIEW_HEADER)).toBe("miss");
    const lines = await linesOf(resumed);
    expect(lines[0]).toMatchObject({ t: "meta", from: 0, total: 2500 });
    expect(assembled(lines).list).toEqual(batch.list);
    // The resumed walk read from sequence 1000 on, without a second debug read.
    expect(history().slice(2).map(tokenAfter)).toEqual([1000, 2000]);
    expect(calls.filter((call) => call.url.pathname.endsWith("/debug")).length).toBe(debugReads);
  });

  it("keeps at most BREAKWATER_RUN_VIEW_WALKS walks reading; the rest wait in line", async () => {
    const held = gate();
    const { svc } = service({ BREAKWATER_RUN_VIEW_WALKS: "1" }, async (call) => {
      if (call.url.pathname.endsWith("/debug") && call.url.pathname.includes("wf-long")) await held.wait(call.signal);
      return undefined;
    });
    const other = startOpenRun("wf-queued");
    const first = await svc.view(viewRequest(closedRun));
    const second = await svc.view(viewRequest(other));
    expect(svc.stats()).toMatchObject({ walks: 2, queuedWalks: 1 });
    held.open();
    expect((await linesOf(first)).at(-1)).toEqual({ t: "done", lastSequence: 2500 });
    expect((await linesOf(second)).at(-1)?.t).toBe("done");
    expect(svc.stats()).toMatchObject({ walks: 0, queuedWalks: 0 });
  });
});

describe("the walk's V8 heap", () => {
  it("grows less while a walk reads, not while one waits for a slot, and V8's defaults return after the last", async () => {
    const held = gate();
    const { svc, v8Flags } = service({ BREAKWATER_RUN_VIEW_WALKS: "1" }, async (call) => {
      if (call.url.pathname.endsWith("/debug") && call.url.pathname.includes("wf-long")) await held.wait(call.signal);
      return undefined;
    });
    const first = await svc.view(viewRequest(closedRun));
    const second = await svc.view(viewRequest(startOpenRun("wf-heap-queued")));
    await vi.waitFor(() => expect(v8Flags).toHaveLength(1));
    expect(svc.stats()).toMatchObject({ walks: 2, queuedWalks: 1, smallHeap: true });
    expect(v8Flags).toEqual([SMALL_HEAP_FLAGS]);
    held.open();
    await linesOf(first);
    await linesOf(second);
    await vi.waitFor(() => expect(v8Flags).toHaveLength(4));
    expect(svc.stats()).toMatchObject({ walks: 0, smallHeap: false });
    // The first walk clears it as it gives its slot back; the queued one sets it again for its own read.
    expect(v8Flags).toEqual([SMALL_HEAP_FLAGS, DEFAULT_HEAP_FLAGS, SMALL_HEAP_FLAGS, DEFAULT_HEAP_FLAGS]);
  });

  it("is left to V8's defaults with BREAKWATER_RUN_VIEW_SMALL_HEAP=0", async () => {
    const { svc, v8Flags } = service({ BREAKWATER_RUN_VIEW_SMALL_HEAP: "0" });
    const lines = await linesOf(await svc.view(viewRequest(closedRun)));
    expect(lines.at(-1)).toEqual({ t: "done", lastSequence: 2500 });
    expect(v8Flags).toEqual([]);
  });
});

describe("errors", () => {
  it("answers an unknown run 404 with the server's envelope, before any line", async () => {
    const { svc, history } = service();
    const response = await svc.view(viewRequest({ workflowId: closedRun.workflowId, runId: "no-such-run" }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: "run_not_found" });
    const missing = await svc.view(viewRequest({ workflowId: "no-such-workflow", runId: "x" }));
    expect(missing.status).toBe(404);
    expect(history()).toEqual([]);
  });

  it("authorises every request, a cached one too: 401 and 403 from the server are relayed", async () => {
    // Console auth: admins carry the admin token; operators and viewers DW_OPERATOR_TOKEN, here one
    // the server refuses (a worker token: 403) or does not know (401).
    const auth = {
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: "/unused/users.json",
      BREAKWATER_SESSION_SECRET: "e".repeat(32),
      DW_ADMIN_TOKEN: TOKENS.admin,
    };
    for (const [operatorToken, status] of [
      [TOKENS.worker, 403],
      ["not-a-token", 401],
    ] as const) {
      const { svc, history } = service({ ...auth, DW_TOKEN: "", DW_OPERATOR_TOKEN: operatorToken });
      const as = (role: "admin" | "viewer") =>
        viewRequest(
          closedRun,
          {},
          { headers: Object.fromEntries(forwardHeaders(new Headers(), { user: role, role })) },
        );
      expect((await linesOf(await svc.view(as("admin")))).at(-1)).toEqual({ t: "done", lastSequence: 2500 });
      expect((await svc.view(as("admin"))).headers.get(RUN_VIEW_HEADER)).toBe("hit");
      const reads = history().length;
      const refused = await svc.view(as("viewer"));
      expect(refused.status).toBe(status);
      expect(refused.headers.get(RUN_VIEW_HEADER)).toBeNull();
      expect((await refused.json()) as object).toHaveProperty("message");
      expect(history().length).toBe(reads);
    }
  });

  it("refuses a request without a namespace or a run", async () => {
    const { svc } = service();
    const noNamespace = await svc.view(viewRequest(closedRun, {}, { headers: { "x-namespace": "" } }));
    expect(noNamespace.status).toBe(400);
    expect(await noNamespace.json()).toMatchObject({ reason: "namespace_required" });
    const noRun = await svc.view(
      new Request("http://console.test/api/run-view?workflow_id=x", { headers: { "x-namespace": "default" } }),
    );
    expect(noRun.status).toBe(400);
  });

  it("ends with an error line on a malformed page, keeps the partial view, and a later visit completes it", async () => {
    let broken = true;
    const { svc } = service({}, (call) => {
      if (!broken || !call.url.pathname.endsWith("/history") || tokenAfter(call) !== 1000) return undefined;
      return Response.json({ workflow_id: "x", run_id: "y", events: [{ sequence: 1, event_type: "X" }] });
    });
    const lines = await linesOf(await svc.view(viewRequest(closedRun)));
    const last = lines.at(-1);
    expect(last?.t).toBe("error");
    expect(last?.t === "error" && last.error.reason).toBe("malformed_response");
    expect(lines.some((line) => line.t === "snapshot")).toBe(false);
    expect(progressReads(lines).at(-1)).toBe(1000);
    broken = false;
    const again = await linesOf(await svc.view(viewRequest(closedRun)));
    expect(assembled(again).list).toEqual(batch.list);
  });

  it("ends with a server_unavailable error line when the server goes away mid-walk", async () => {
    const { svc } = service({}, (call) => {
      if (call.url.pathname.endsWith("/history") && tokenAfter(call) === 2000) throw new TypeError("fetch failed");
      return undefined;
    });
    const lines = await linesOf(await svc.view(viewRequest(closedRun)));
    const last = lines.at(-1);
    expect(last?.t === "error" && last.error.reason).toBe("server_unavailable");
    expect(progressReads(lines).at(-1)).toBe(2000);
    expect(svc.stats().walks).toBe(0);
  });
});

describe("open runs", () => {
  it("extends from since, holding one pooled long-poll that a new event releases", async () => {
    const { svc, history } = service({ BREAKWATER_RUN_VIEW_LONG_POLLS: "1" });
    const run = startOpenRun("wf-open-1");
    const first = await linesOf(await svc.view(viewRequest(run)));
    expect(first[0]).toMatchObject({ t: "meta", closed: false, cache: "miss" });
    const done = first.at(-1);
    if (done?.t !== "done") throw new Error("no done line");
    const last = done.lastSequence;
    expect(last).toBeGreaterThan(0);

    const waiting = await svc.view(viewRequest(run, { since: String(last), wait: "1" }));
    expect(waiting.headers.get(RUN_VIEW_HEADER)).toBe("extend");
    const joined = await svc.view(viewRequest(run, { since: String(last), wait: "1" }));
    expect(joined.headers.get(RUN_VIEW_HEADER)).toBe("joined");
    expect(svc.stats()).toMatchObject({ upstreamLongPolls: 1, walks: 1 });
    expect(history().filter((call) => call.url.searchParams.get("wait_new_event") === "1")).toHaveLength(1);

    // Past the cap: another open run is answered at once, without waiting.
    const other = startOpenRun("wf-open-2");
    const otherFirst = await linesOf(await svc.view(viewRequest(other)));
    const otherLast =
      otherFirst.at(-1)?.t === "done" ? (otherFirst.at(-1) as { lastSequence: number }).lastSequence : 0;
    const unheld = await linesOf(await svc.view(viewRequest(other, { since: String(otherLast), wait: "1" })));
    expect(unheld[0]).toMatchObject({ t: "meta", cache: "extend", from: otherLast, held: false });
    expect(unheld.at(-1)).toEqual({ t: "done", lastSequence: otherLast });
    expect(history().filter((call) => call.url.searchParams.get("wait_new_event") === "1")).toHaveLength(1);

    signal(run.workflowId);
    const [extended, alsoExtended] = await Promise.all([linesOf(waiting), linesOf(joined)]);
    expect(extended[0]).toMatchObject({ t: "meta", cache: "extend", from: last, held: true });
    const extendedDone = extended.at(-1);
    expect(extendedDone?.t === "done" && extendedDone.lastSequence).toBeGreaterThan(last);
    const rows = extended.flatMap((line) => (line.t === "list" ? line.rows : []));
    expect(rows.map((row) => row.sequence)[0]).toBe(last + 1);
    expect(rows.some((row) => row.type === "SignalReceived")).toBe(true);
    expect(alsoExtended.filter((line) => line.t !== "meta")).toEqual(extended.filter((line) => line.t !== "meta"));
    expect(svc.stats()).toMatchObject({ upstreamLongPolls: 0, walks: 0 });

    // The whole view so far equals the batch views (the chart's open bars depend on "now": left out).
    const whole = assembled([...first.filter((line) => line.t !== "snapshot"), ...extended]);
    const expected = await batchView(dw.url, run.workflowId, run.runId);
    expect(whole.list).toEqual(expected.list);
    expect(whole.ledger).toEqual(expected.ledger);
  });

  it("answers a since it cannot continue from with the whole view (from 0)", async () => {
    const { svc } = service();
    const run = startOpenRun("wf-open-3");
    const lines = await linesOf(await svc.view(viewRequest(run, { since: "12345" })));
    expect(lines[0]).toMatchObject({ t: "meta", from: 0, cache: "miss" });
  });

  it("lets the last long-poll waiter's leaving release the upstream long-poll", async () => {
    const { svc, history } = service();
    const run = startOpenRun("wf-open-4");
    const first = await linesOf(await svc.view(viewRequest(run)));
    const last = (first.at(-1) as { lastSequence: number }).lastSequence;
    const leave = new AbortController();
    const waiting = await svc.view(viewRequest(run, { since: String(last), wait: "1" }, { signal: leave.signal }));
    expect(svc.stats().upstreamLongPolls).toBe(1);
    leave.abort();
    expect(svc.stats()).toMatchObject({ upstreamLongPolls: 0, walks: 0 });
    const poll = history().find((call) => call.url.searchParams.get("wait_new_event") === "1");
    expect(poll?.signal?.aborted).toBe(true);
    await waiting.body?.cancel().catch(() => undefined);
  });
});

describe("extras", () => {
  it("reads the export once for a closed run and keeps only the export-only sections", async () => {
    const { svc, calls } = service();
    const request = () =>
      new Request(
        `http://console.test/api/run-view/extras?workflow_id=${closedRun.workflowId}&run_id=${closedRun.runId}`,
        { headers: { "x-namespace": "default" } },
      );
    const response = await svc.extras(request());
    expect(response.status).toBe(200);
    const extras = (await response.json()) as RunViewExtras;
    expect(Object.keys(extras).sort()).toEqual(["commands", "exportBytes", "links", "tasks", "waits"]);
    expect(extras.tasks.length).toBeGreaterThan(0);
    expect(extras.exportBytes).toBeGreaterThan(100_000);
    const again = await svc.extras(request());
    expect(again.headers.get(RUN_VIEW_HEADER)).toBe("hit");
    expect(await again.json()).toEqual(extras);
    expect(calls.filter((call) => call.url.pathname.endsWith("/export"))).toHaveLength(1);
  });

  it("authorises first: an unknown run is 404 without reading the export", async () => {
    const { svc, calls } = service();
    const response = await svc.extras(
      new Request(`http://console.test/api/run-view/extras?workflow_id=${closedRun.workflowId}&run_id=nope`, {
        headers: { "x-namespace": "default" },
      }),
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: "run_not_found" });
    expect(calls.some((call) => call.url.pathname.endsWith("/export"))).toBe(false);
  });
});

describe("RunViewCache", () => {
  const entry = (bytes: number): CacheEntry => ({ kind: "extras", body: Buffer.alloc(bytes) });

  it("evicts the least recently used entries by bytes, and refuses one larger than the whole cache", () => {
    const cache = new RunViewCache(1000);
    expect(cache.set("a", entry(400))).toBe(true);
    expect(cache.set("b", entry(400))).toBe(true);
    cache.get("a");
    expect(cache.set("c", entry(400))).toBe(true);
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    expect(cache.bytes).toBe(800);
    expect(cache.set("d", entry(1001))).toBe(false);
    expect(cache.entries).toBe(2);
    expect(new RunViewCache(0).set("a", entry(1))).toBe(false);
  });

  it("bounds the service's cache by BREAKWATER_RUN_VIEW_CACHE_MB", async () => {
    const { svc } = service({ BREAKWATER_RUN_VIEW_CACHE_MB: "0" });
    await linesOf(await svc.view(viewRequest(closedRun)));
    expect(svc.stats()).toMatchObject({ cacheEntries: 0, cacheBytes: 0, cacheMaxBytes: 0 });
    // Too large to cache: the walked view is still answered from memory, without reading again.
    const again = await svc.view(viewRequest(closedRun));
    expect(again.headers.get(RUN_VIEW_HEADER)).toBe("hit");
    expect(assembled(await linesOf(again)).list).toEqual(batch.list);
  });
});
