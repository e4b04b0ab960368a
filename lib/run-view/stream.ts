import { queryOptions } from "@tanstack/react-query";
import { errorFromResponse } from "@/lib/dw/errors";
import { runKey } from "@/lib/queries/keys";
import type { LedgerActivity } from "@/lib/views/attempts";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import type { DerivedChunk, DerivedSnapshot } from "@/lib/views/run-derivation";
import { assembleChart } from "@/lib/views/timeline-chart";
import type { TimelineBar, TimelineChart, TimelineListRow, TimelineMarker } from "@/lib/views/timeline";
import type { RunViewExtras, RunViewLine } from "@/lib/run-view/wire";
import { RUN_VIEW_ENCODING_HEADER, RUN_VIEW_EXTRAS_PATH, RUN_VIEW_PATH } from "@/lib/run-view/wire";
import { takeEarlyRunView } from "@/lib/run-view/early";

/**
 * The run page's views, read from the console's run-view stream (lib/run-view/wire.ts) instead
 * of the export bundle (issue 14). The lines are small slices the console server derived, so the
 * browser only parses and appends them; no worker is needed, but a read that delivers many lines is
 * handled in batches with a yield between them, so no main-thread task runs long.
 */

export type RunViewStatus = "idle" | "reading" | "done" | "error";
/**
 * The meta line, with the service's additive fields (lib/run-view/wire.ts on h-service):
 * `from` (the sequence the chunks follow; 0 = a whole view, drop what is held) and `held` (false:
 * answered at once, so a tailing reader pauses before asking again).
 */
type Meta = Extract<RunViewLine, { t: "meta" }> & { from?: number; held?: boolean };

/**
 * One state of the run's views. The arrays grow in place (appending a chunk never copies what came
 * before); `version` changes whenever anything did, so React can tell two states apart.
 */
export interface RunViewData {
  version: number;
  status: RunViewStatus;
  /** Events read so far and the run's event count (null when the server could not tell). */
  read: number;
  total: number | null;
  meta: Omit<Meta, "t"> | null;
  error: ErrorInfo | null;
  /** An open run's last long-poll failed (the views stay as they were; it is retried with backoff). */
  tailError: ErrorInfo | null;
  /** Every event has been read at least once: the snapshot's exceptions and counts are whole. */
  complete: boolean;
  /** Activities that can no longer change, in ledger order; the snapshot's `openLedger` follows them. */
  closedLedger: readonly LedgerActivity[];
  /** The event list's rows parsed so far (the list is parsed only once something shows it). */
  list: readonly TimelineListRow[];
  /** List chunks read but not parsed into `list` yet. */
  listPending: boolean;
  bars: readonly TimelineBar[];
  markers: readonly TimelineMarker[];
  snapshot: DerivedSnapshot | null;
}

/** Activities known so far (emitted ones plus the snapshot's open ones). */
export function ledgerCount(data: RunViewData): number {
  return data.closedLedger.length + (data.snapshot?.openLedger.length ?? 0);
}

/** Rows `[start, end)` of the ledger without assembling the whole of it. */
export function ledgerSlice(data: RunViewData, start: number, end: number): LedgerActivity[] {
  const closed = data.closedLedger;
  const open = data.snapshot?.openLedger ?? [];
  const out: LedgerActivity[] = [];
  for (let i = start; i < end && i < closed.length + open.length; i++) {
    const row = i < closed.length ? closed[i] : open[i - closed.length];
    if (row) out.push(row);
  }
  return out;
}

/** The whole chart, once a snapshot gave its bounds and open bars (one copy per snapshot, not per chunk). */
export function assembledChart(data: Pick<RunViewData, "snapshot" | "bars" | "markers">): TimelineChart | null {
  const snapshot = data.snapshot;
  if (!snapshot) return null;
  return assembleChart(data.bars, data.markers, snapshot.chart);
}

/**
 * A list chunk as the console serializes it (lib/server/run-view/run-state.ts: `{ t: "list", rows }`).
 * The event list is a large share of a run view's bytes and only the Timeline's list mode and the
 * newest 20 rows use it, so the reader keeps these lines unparsed until something asks for them.
 */
export const LIST_LINE_PREFIX = '{"t":"list",';

function parseListLine(raw: string): TimelineListRow[] {
  const line = parseLine(raw);
  return line.t === "list" ? line.rows : [];
}

/** Applies wire lines to growing arrays; pure (no fetch), so the parser and the store share it. */
export class RunViewAccumulator {
  readonly closedLedger: LedgerActivity[] = [];
  /** The list's rows, in order, as far as its chunks were parsed. */
  readonly list: TimelineListRow[] = [];
  /** List chunks after `list`'s, in order: raw lines not parsed yet, or rows parsed out of order (for `latestList`). */
  private listQueue: (string | TimelineListRow[])[] = [];
  readonly bars: TimelineBar[] = [];
  readonly markers: TimelineMarker[] = [];
  snapshot: DerivedSnapshot | null = null;
  meta: Omit<Meta, "t"> | null = null;
  read = 0;
  total: number | null = null;
  lastSequence: number | null = null;
  streamError: ErrorInfo | null = null;

  /** Applies one line; returns true when it should be shown at once (not only on the next tick). */
  apply(line: RunViewLine): boolean {
    switch (line.t) {
      case "meta": {
        this.meta = {
          closed: line.closed,
          total: line.total,
          cache: line.cache,
          pageSize: line.pageSize,
          exportOnly: line.exportOnly,
          ...((line as Meta).from !== undefined ? { from: (line as Meta).from } : {}),
          ...((line as Meta).held !== undefined ? { held: (line as Meta).held } : {}),
        };
        if (line.total !== null) this.total = line.total;
        return true;
      }
      case "progress":
        this.read = Math.max(this.read, line.read);
        if (line.total !== null) this.total = line.total;
        return false;
      case "snapshot":
        this.snapshot = line.snapshot;
        this.read = Math.max(this.read, line.snapshot.lastSequence);
        return true;
      case "done":
        this.lastSequence = line.lastSequence;
        this.read = Math.max(this.read, line.lastSequence);
        return true;
      case "error":
        this.streamError = line.error;
        return true;
      default:
        this.addChunk(line);
        return false;
    }
  }

  /** A list line left unparsed by the reader (its text starts with LIST_LINE_PREFIX). */
  applyRawList(raw: string): void {
    this.listQueue.push(raw);
  }

  get listPending(): boolean {
    return this.listQueue.length > 0;
  }

  /** Parses queued list chunks into `list` until `deadline` (by `now`); true when some remain. */
  takeList(now: () => number, deadline: number): boolean {
    let taken = 0;
    while (taken < this.listQueue.length && now() < deadline) {
      const chunk = this.listQueue[taken] as string | TimelineListRow[];
      for (const row of typeof chunk === "string" ? parseListLine(chunk) : chunk) this.list.push(row);
      taken += 1;
    }
    this.listQueue = taken === this.listQueue.length ? [] : this.listQueue.slice(taken);
    return this.listQueue.length > 0;
  }

  /** The newest `n` rows of the list, parsing only the last chunks it needs. */
  latestList(n: number): TimelineListRow[] {
    const tail: TimelineListRow[][] = [];
    let count = 0;
    for (let i = this.listQueue.length - 1; i >= 0 && count < n; i--) {
      const chunk = this.listQueue[i] as string | TimelineListRow[];
      const rows = typeof chunk === "string" ? parseListLine(chunk) : chunk;
      this.listQueue[i] = rows;
      tail.unshift(rows);
      count += rows.length;
    }
    const queued = tail.flat();
    if (count >= n) return queued.slice(-n);
    return [...this.list.slice(Math.max(0, this.list.length - (n - count))), ...queued];
  }

  private addChunk(chunk: DerivedChunk): void {
    if (chunk.t === "ledger") for (const row of chunk.rows) this.closedLedger.push(row);
    else if (chunk.t === "list") {
      // Behind unparsed chunks, rows wait their turn; otherwise they are the list's next rows.
      if (this.listQueue.length > 0) this.listQueue.push(chunk.rows);
      else for (const row of chunk.rows) this.list.push(row);
    } else {
      for (const bar of chunk.bars) this.bars.push(bar);
      for (const marker of chunk.markers) this.markers.push(marker);
    }
  }
}

/** Main-thread time spent on lines before yielding to the page (well under the 100 ms task budget). */
const BATCH_MS = 8;

/**
 * Back to the page between slices. Where the browser has `scheduler.postTask`, the reader goes on
 * at background priority: after every task already queued or queued meanwhile, React's renders
 * (posted on a MessageChannel) among them. The page draws what is on screen first (the ledger
 * a click opened) and the lines nobody waits for are parsed in what time is left (decision 0038).
 * Elsewhere, behind the tasks already queued on a MessageChannel, so renders interleave with
 * parsing. Not `scheduler.yield()`: its continuation runs ahead of other tasks, and React's renders
 * waited for the whole parse. Not `setTimeout(0)` alone: nested timers are clamped to 4 ms, a third
 * of each 8 ms slice.
 */
type PostTask = (callback: () => void, options: { priority: "background" }) => Promise<void>;
const waiting: (() => void)[] = [];
let channel: MessageChannel | null = null;

export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { postTask?: PostTask } }).scheduler;
  if (typeof window === "undefined") return new Promise((resolve) => setTimeout(resolve, 0));
  if (typeof scheduler?.postTask === "function") return scheduler.postTask(() => undefined, { priority: "background" });
  if (typeof MessageChannel === "undefined") return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
    // Node's MessageChannel (tests) would keep the process alive.
    (channel.port1 as { unref?: () => void }).unref?.();
  }
  const port = channel.port2;
  return new Promise((resolve) => {
    waiting.push(resolve);
    port.postMessage(null);
  });
}

function now(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

/** The clock and the yield readNdjson slices its work with (injected by tests). */
export interface Slicer {
  now: () => number;
  yield: () => Promise<void>;
  budgetMs: number;
}

export const PAGE_SLICER: Slicer = { now, yield: yieldToMain, budgetMs: BATCH_MS };

/**
 * Reads an NDJSON body line by line (lines may be split across reads, and one read may carry many
 * lines), JSON-parsing each and handing it to `onLine`. Partial lines are kept as parts and joined
 * once, so a long line costs O(length), not O(length²). The time budget runs across reads: a body
 * already buffered resolves read after read as microtasks, so a budget per read never yields.
 */
export async function readNdjson(
  body: ReadableStream<Uint8Array>,
  onLine: (line: RunViewLine) => void,
  signal?: AbortSignal,
  slicer: Slicer = PAGE_SLICER,
  onRawList?: (raw: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  const slice = { began: slicer.now() };
  const handle = (line: string) => {
    if (onRawList && line.startsWith(LIST_LINE_PREFIX)) onRawList(line);
    else onLine(parseLine(line));
  };
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", abort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      const { value, done } = await reader.read();
      if (signal?.aborted) throw abortError(signal);
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      await splitLines(text, parts, handle, slicer, slice);
      if (done) break;
    }
    const rest = parts.join("");
    if (rest.trim() !== "") handle(rest);
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

async function splitLines(
  text: string,
  parts: string[],
  onLine: (line: string) => void,
  slicer: Slicer,
  slice: { began: number },
): Promise<void> {
  let start = 0;
  for (let end = text.indexOf("\n", start); end >= 0; end = text.indexOf("\n", start)) {
    parts.push(text.slice(start, end));
    start = end + 1;
    const line = parts.join("");
    parts.length = 0;
    if (line.trim() !== "") onLine(line);
    if (slicer.now() - slice.began > slicer.budgetMs) {
      await slicer.yield();
      slice.began = slicer.now();
    }
  }
  if (start < text.length) parts.push(text.slice(start));
}

function parseLine(line: string): RunViewLine {
  try {
    return JSON.parse(line) as RunViewLine;
  } catch {
    throw new RunViewError({
      reason: "malformed_response",
      httpStatus: null,
      message: `The run view sent a line that is not JSON: ${line.slice(0, 80)}`,
      namespace: null,
    });
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The run view read was aborted.", "AbortError");
}

/** A run-view failure with the typed client's reason, status and message. */
export class RunViewError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
    this.name = "RunViewError";
  }
}

export interface RunViewRequest {
  namespace: string;
  workflowId: string;
  runId: string;
  since?: number;
  wait?: boolean;
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
  /** Keep list lines unparsed and hand them here (RunViewAccumulator.applyRawList). */
  onRawList?: (raw: string) => void;
}

/**
 * Next 16 strips Content-Encoding from route-handler answers and does not compress NDJSON, so the
 * console gzips the view itself when asked (`gzip=1`, lib/server/run-view/responses.ts) and the
 * browser inflates it: a run's lines travel as a small fraction of their size.
 */
const CAN_INFLATE = typeof DecompressionStream !== "undefined";

export function runViewUrl(workflowId: string, runId: string, since?: number, wait?: boolean): string {
  const params = new URLSearchParams({ workflow_id: workflowId, run_id: runId });
  if (since !== undefined) params.set("since", String(since));
  if (wait) params.set("wait", "1");
  if (CAN_INFLATE) params.set("gzip", "1");
  return `${RUN_VIEW_PATH}?${params.toString()}`;
}

/** An answer that is not 2xx is a JSON error envelope: mapped like lib/dw/browser-client.ts maps them. */
async function failedResponse(response: Response): Promise<RunViewError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return new RunViewError(toErrorInfo(errorFromResponse(response.status, body)));
}

/**
 * Compressed bytes handed to the inflater at a time. Chromium's DecompressionStream inflates each
 * chunk it is given in one go, on the page's main thread, and a cached answer is on hand by the time
 * it is read: the network hands it over in large chunks, and inflating was one long task before any
 * line was read (bench profile). A 64 KB piece
 * inflates in about a millisecond, and the next one only when the reader asks for more, so the
 * inflating falls inside readNdjson's slices and their yields.
 */
export const INFLATE_SLICE_BYTES = 64 * 1024;

/** A stream that passes bytes on in pieces of at most `max` (views into the same buffer: no copy). */
export function splitChunks(max: number): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  return new TransformStream({
    transform(chunk, controller) {
      for (let at = 0; at < chunk.byteLength; at += max) controller.enqueue(chunk.subarray(at, at + max));
    },
  });
}

/** One request of the stream: every line goes to `onLine`; resolves after the body ends. */
export async function fetchRunView(request: RunViewRequest, onLine: (line: RunViewLine) => void): Promise<void> {
  const fetchImpl = request.fetchImpl ?? fetch;
  const url = runViewUrl(request.workflowId, request.runId, request.since, request.wait);
  // The page's first read may already be on its way (started by the head script, lib/run-view/early.ts).
  const early = request.since === undefined && !request.wait ? takeEarlyRunView(request.namespace, url) : null;
  let response: Response;
  try {
    if (early) {
      if (request.signal?.aborted) early.abort();
      else request.signal?.addEventListener("abort", early.abort, { once: true });
    }
    response = early
      ? await early.response
      : await fetchImpl(url, {
          headers: { "X-Namespace": request.namespace, Accept: "application/x-ndjson" },
          signal: request.signal,
        });
  } catch (error) {
    if (request.signal?.aborted) throw error;
    throw unavailable(error);
  }
  if (!response.ok) throw await failedResponse(response);
  if (!response.body) throw unavailable(new Error("the run view answered without a body"));
  const body =
    response.headers.get(RUN_VIEW_ENCODING_HEADER) === "gzip"
      ? response.body.pipeThrough(splitChunks(INFLATE_SLICE_BYTES)).pipeThrough(new DecompressionStream("gzip"))
      : response.body;
  await readNdjson(body, onLine, request.signal, PAGE_SLICER, request.onRawList);
}

function unavailable(error: unknown): RunViewError {
  return new RunViewError({
    reason: "server_unavailable",
    httpStatus: null,
    message: `The console could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    namespace: null,
  });
}

export function runViewErrorInfo(error: unknown): ErrorInfo {
  return error instanceof RunViewError ? error.info : toErrorInfo(error);
}

/** `GET /api/run-view/extras` (JSON): the export-only sections, read on the console server. */
export async function fetchRunViewExtras(
  namespace: string,
  workflowId: string,
  runId: string,
  signal?: AbortSignal,
): Promise<RunViewExtras> {
  const params = new URLSearchParams({ workflow_id: workflowId, run_id: runId });
  let response: Response;
  try {
    response = await fetch(`${RUN_VIEW_EXTRAS_PATH}?${params.toString()}`, {
      headers: { "X-Namespace": namespace, Accept: "application/json" },
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw unavailable(error);
  }
  if (!response.ok) throw await failedResponse(response);
  return (await response.json()) as RunViewExtras;
}

/** A closed run's views and extras stay in the tab's cache this long after the page was left. */
export const RUN_VIEW_GC_MS = 30 * 60_000;

/** The export-only sections of a run, fetched when a tab that shows them opens. */
export function runViewExtrasQuery(namespace: string, workflowId: string, runId: string, open: boolean) {
  return queryOptions({
    queryKey: [...runKey(namespace, workflowId, runId), "view-extras"] as const,
    queryFn: ({ signal }) => fetchRunViewExtras(namespace, workflowId, runId, signal),
    // Each read of an open run's extras reads its export on the console server: not on a timer.
    staleTime: open ? 10_000 : Infinity,
    gcTime: RUN_VIEW_GC_MS,
    retry: false,
  });
}
