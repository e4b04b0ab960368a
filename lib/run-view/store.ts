import { queryOptions } from "@tanstack/react-query";
import { runKey } from "@/lib/queries/keys";
import type { RunViewData, RunViewStatus } from "@/lib/run-view/stream";
import {
  PAGE_SLICER,
  RUN_VIEW_GC_MS,
  RunViewAccumulator,
  RunViewError,
  fetchRunView,
  runViewErrorInfo,
} from "@/lib/run-view/stream";
import type { ErrorInfo } from "@/lib/views/error-info";
import type { RunViewLine } from "@/lib/run-view/wire";
import type { TimelineListRow } from "@/lib/views/timeline";

/** React re-renders at most this often while lines stream in (meta, snapshot, done and errors show at once). */
export const RUN_VIEW_RENDER_MS = 100;
const TAIL_BACKOFF_MS = 1_000;
/**
 * The longest pause between two tries while the server is away. Short: the page must recover within
 * a few seconds of the server answering again (issue 37: at 30 s the run page said "not reachable"
 * for ~37 s after it was back), and each try is one describe the console's proxy fails fast.
 */
export const TAIL_BACKOFF_MAX_MS = 4_000;
/** After an answer the server did not hold (`held: false`: its long-poll cap was reached), wait this long. */
const TAIL_UNHELD_PAUSE_MS = 5_000;

/**
 * What the run page as a whole shows of the views: a new object only when one of these changes
 * (meta, a snapshot, done, an error), not on every batch of streamed lines, so the page renders a
 * few times per read and only the progress line and the open tab follow the stream.
 */
export type RunViewSummary = Pick<
  RunViewData,
  "status" | "total" | "meta" | "error" | "tailError" | "complete" | "snapshot" | "listPending"
> & {
  /** The newest 20 rows of the event list once the history is read whole, else null. */
  latest: readonly TimelineListRow[] | null;
};

const SUMMARY_KEYS = ["status", "total", "meta", "error", "tailError", "complete", "snapshot", "listPending"] as const;

export interface RunViewTarget {
  namespace: string;
  workflowId: string;
  runId: string;
  fetchImpl?: typeof fetch;
}

/** A pause that ends early on abort; injected by tests, which record and end it themselves. */
export type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

const sleep: Wait = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** A failure the server's return will clear by itself: it was away or slow, not refusing. */
function isTransient(error: ErrorInfo | null): boolean {
  return error?.reason === "server_unavailable";
}

function endedEarly(): RunViewError {
  return new RunViewError({
    reason: "server_unavailable",
    httpStatus: null,
    message: "The run view ended before every history page was read.",
    namespace: null,
  });
}

/**
 * One run's views in the tab: read once while a page shows the run (closed runs then stay as read),
 * extended with `since=lastSequence&wait=1` while an open run's page is mounted. Leaving the page
 * aborts the request, so the console server stops the walk; a partial read is dropped and the next
 * visit starts again (the server's cache makes that cheap). A store for `useSyncExternalStore`.
 */
export class RunViewStore {
  private acc = new RunViewAccumulator();
  private data: RunViewData;
  private summary: RunViewSummary;
  private readonly listeners = new Set<() => void>();
  private retained = 0;
  private live = false;
  private running = false;
  private controller: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private status: RunViewStatus = "idle";
  private error: ErrorInfo | null = null;
  private tailError: ErrorInfo | null = null;
  private complete = false;
  private version = 0;
  private backoff = TAIL_BACKOFF_MS;
  /** Something shows the event list (the Timeline's list mode): parse its chunks. */
  private listWanted = false;
  private parsingList = false;

  constructor(
    private readonly target: RunViewTarget,
    private readonly renderMs: number = RUN_VIEW_RENDER_MS,
    private readonly wait: Wait = sleep,
  ) {
    this.data = this.build();
    this.summary = summarize(this.data, null, () => []);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly getData = (): RunViewData => this.data;

  readonly getSummary = (): RunViewSummary => this.summary;

  /** A page shows the run: read (or go on tailing) until the returned release is called. */
  retain(): () => void {
    this.retained += 1;
    this.ensureRunning();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.retained -= 1;
      if (this.retained === 0) this.stop();
    };
  }

  /** Whether the run is open (its page then keeps extending the views with the long-poll). */
  setLive(live: boolean): void {
    this.live = live;
    this.ensureRunning();
  }

  /**
   * The event list is shown: parse its queued chunks in slices (each within the reader's budget),
   * publishing as rows arrive. The list stays unparsed until this is called.
   */
  readonly wantList = (): void => {
    this.listWanted = true;
    void this.parseList();
  };

  private async parseList(): Promise<void> {
    if (this.parsingList || !this.listWanted) return;
    this.parsingList = true;
    try {
      for (;;) {
        const acc = this.acc;
        const more = acc.takeList(PAGE_SLICER.now, PAGE_SLICER.now() + PAGE_SLICER.budgetMs);
        this.emit(!more);
        if (!more) break;
        await PAGE_SLICER.yield();
      }
    } catch (error) {
      this.status = "error";
      this.error = runViewErrorInfo(error);
      this.emit(true);
    } finally {
      this.parsingList = false;
    }
  }

  /** After an error: read again from the start. */
  retry(): void {
    if (this.status !== "error") return;
    this.status = "idle";
    this.error = null;
    this.ensureRunning();
  }

  private needsWork(): boolean {
    if (this.retained === 0 || this.status === "error") return false;
    return !this.complete || this.shouldTail();
  }

  private shouldTail(): boolean {
    return this.complete && this.live && this.acc.meta?.closed !== true && this.retained > 0;
  }

  private ensureRunning(): void {
    if (!this.running && this.needsWork()) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    const controller = new AbortController();
    this.controller = controller;
    try {
      if (!this.complete) await this.readAll(controller.signal);
      // A first read the server's absence failed is tried again, with the tail's backoff, until it
      // answers (the error stays on screen meanwhile); other failures wait for the Retry button.
      while (!this.complete && this.status === "error" && isTransient(this.error) && !controller.signal.aborted) {
        await this.backOff(controller.signal);
        if (!controller.signal.aborted && this.status === "error") await this.readAll(controller.signal, true);
      }
      while (this.shouldTail() && !controller.signal.aborted) await this.tailOnce(controller.signal);
    } finally {
      this.running = false;
      if (this.controller === controller) this.controller = null;
      // Retained again while the aborted request unwound (React's strict-mode remount), or a retry
      // that came while this run was still returning.
      this.ensureRunning();
    }
  }

  private stop(): void {
    this.controller?.abort();
    this.controller = null;
  }

  /** `again`: an automatic retry, which leaves the error shown until the server answers. */
  private async readAll(signal: AbortSignal, again = false): Promise<void> {
    this.acc = new RunViewAccumulator();
    if (!again) {
      this.status = "reading";
      this.emit(true);
    }
    try {
      const acc = this.acc;
      await fetchRunView(
        {
          ...this.target,
          signal,
          onRawList: (raw) => {
            acc.applyRawList(raw);
            if (this.listWanted) void this.parseList();
          },
        },
        (line) => {
          if (this.status === "error") this.answered();
          this.emit(acc.apply(line));
        },
      );
      if (this.acc.streamError) throw new RunViewError(this.acc.streamError);
      if (this.acc.lastSequence === null || this.acc.snapshot === null) throw endedEarly();
      this.complete = true;
      this.status = "done";
      this.backoff = TAIL_BACKOFF_MS;
    } catch (error) {
      if (signal.aborted) {
        this.acc = new RunViewAccumulator();
        this.status = "idle";
      } else {
        this.status = "error";
        this.error = runViewErrorInfo(error);
      }
    }
    this.emit(true);
  }

  /** One long-poll: its lines are applied only once it is done, so a failed one adds nothing twice. */
  private async tailOnce(signal: AbortSignal): Promise<void> {
    const pending: RunViewLine[] = [];
    const since = this.acc.lastSequence ?? 0;
    const began = Date.now();
    try {
      await fetchRunView({ ...this.target, since, wait: true, signal }, (line) => {
        pending.push(line);
        // The console sends meta once it has described the run through the server: the server is
        // back, even if this long-poll then holds until the next event.
        if (line.t === "meta" && this.tailError !== null) {
          this.tailError = null;
          this.backoff = TAIL_BACKOFF_MS;
          this.emit(true);
        }
      });
      const failed = pending.find((line) => line.t === "error");
      if (failed) throw new RunViewError(failed.error);
      if (!pending.some((line) => line.t === "done")) throw endedEarly();
      const meta = pending.find((line) => line.t === "meta") as { from?: number; held?: boolean } | undefined;
      // `from: 0` is a whole view (the server could not continue from `since`): drop every chunk held.
      if (meta?.from !== undefined && meta.from !== since) this.acc = new RunViewAccumulator();
      for (const line of pending) this.acc.apply(line);
      if (this.listWanted) void this.parseList();
      this.tailError = null;
      this.backoff = TAIL_BACKOFF_MS;
      this.emit(true);
      // A server that answers at once (not held, or nothing new) must not be asked in a tight loop.
      if (meta?.held === false) await this.wait(TAIL_UNHELD_PAUSE_MS, signal);
      else if (this.acc.lastSequence === since && Date.now() - began < TAIL_BACKOFF_MS)
        await this.wait(TAIL_BACKOFF_MS, signal);
    } catch (error) {
      if (signal.aborted) return;
      this.tailError = runViewErrorInfo(error);
      this.emit(true);
      await this.backOff(signal);
    }
  }

  /** Waits the current backoff, then doubles it up to {@link TAIL_BACKOFF_MAX_MS}. */
  private async backOff(signal: AbortSignal): Promise<void> {
    const ms = this.backoff;
    this.backoff = Math.min(this.backoff * 2, TAIL_BACKOFF_MAX_MS);
    await this.wait(ms, signal);
  }

  /** The first line of an automatic retry: the server answers again, the read goes on. */
  private answered(): void {
    this.status = "reading";
    this.error = null;
    this.backoff = TAIL_BACKOFF_MS;
  }

  private emit(now: boolean): void {
    if (!now) {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.publish();
      }, this.renderMs);
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.publish();
  }

  private publish(): void {
    this.data = this.build();
    const acc = this.acc;
    this.summary = summarize(this.data, this.summary, (n) => acc.latestList(n));
    for (const listener of this.listeners) listener();
  }

  private build(): RunViewData {
    const acc = this.acc;
    this.version += 1;
    return {
      version: this.version,
      status: this.status,
      read: acc.read,
      total: acc.total,
      meta: acc.meta,
      error: this.error,
      tailError: this.tailError,
      complete: this.complete,
      closedLedger: acc.closedLedger,
      list: acc.list,
      listPending: acc.listPending,
      bars: acc.bars,
      markers: acc.markers,
      snapshot: acc.snapshot,
    };
  }
}

/**
 * The summary of `data`: `previous` itself when nothing it holds changed. `latest` gives the list's
 * newest rows (RunViewAccumulator.latestList: parses only the last chunks, not the whole list).
 */
export function summarize(
  data: RunViewData,
  previous: RunViewSummary | null,
  latest: (n: number) => readonly TimelineListRow[],
): RunViewSummary {
  if (previous && SUMMARY_KEYS.every((key) => previous[key] === data[key])) return previous;
  return {
    status: data.status,
    total: data.total,
    meta: data.meta,
    error: data.error,
    tailError: data.tailError,
    complete: data.complete,
    snapshot: data.snapshot,
    listPending: data.listPending,
    latest: data.complete ? nonEmpty(latest(20)) : null,
  };
}

function nonEmpty<T>(rows: readonly T[]): readonly T[] | null {
  return rows.length > 0 ? rows : null;
}

/**
 * The run's view store, kept in the TanStack Query cache (one per run and namespace, long gcTime), so
 * a second visit in the same tab reuses a closed run's views without reading them again. Invalidating
 * the run's keys after an action hands back the same store: an open run's long-poll already extends it.
 */
export function runViewQuery(namespace: string, workflowId: string, runId: string) {
  const queryKey = [...runKey(namespace, workflowId, runId), "view"] as const;
  const create = () => new RunViewStore({ namespace, workflowId, runId });
  return queryOptions({
    queryKey,
    queryFn: ({ client }) => client.getQueryData<RunViewStore>(queryKey) ?? create(),
    initialData: create,
    staleTime: Infinity,
    gcTime: RUN_VIEW_GC_MS,
    structuralSharing: false,
    retry: false,
  });
}
