import "server-only";
import { promisify } from "node:util";
import { createGzip, gunzip } from "node:zlib";
import type { Logger } from "pino";
import { LRUCache } from "lru-cache";
import { createDwClient } from "@/lib/dw/client";
import type { DwClient } from "@/lib/dw/client";
import { RunDerivation } from "@/lib/views/run-derivation";
import { toErrorInfo } from "@/lib/views/error-info";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { credentialedFetch } from "@/lib/server/proxy/dw-client";
import { SmallHeap } from "@/lib/server/process/heap";
import type { SetV8Flags } from "@/lib/server/process/heap";
import { getLogger, loggedFetch } from "@/lib/server/process/log";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { RunViewCache } from "./cache";
import type { CachedView } from "./cache";
import { GzipAnswer, cutLines } from "./answer-gzip";
import { readExtras } from "./extras";
import { LongPollPool } from "./long-poll-pool";
import { shutdownSignal } from "@/lib/server/process/lifecycle";
import type { RedisPlaces } from "@/lib/server/shared/leases";
import { sharedPlaces } from "@/lib/server/shared/stores";
import { wantsGzip, bodyOf, bufferedView, errorEnvelope, gzippedView, jsonError, streamedView } from "./responses";
import type { CacheOutcome } from "./responses";
import { RunState, Walk, encodeLine, replayThen } from "./run-state";
import type { Subscriber } from "./run-state";
import { Slots } from "./slots";
import { HISTORY_PAGE_SIZE, readPage, walkPages } from "./walker";
import type { PageRead, WalkTarget } from "./walker";

/**
 * The console-side run view (issue 14, docs/decisions/0020): `GET /api/run-view` answers a run's
 * derived views as NDJSON (lib/run-view/wire.ts). Every request is authorised by describing
 * the run with the person's credentials; then a closed run comes from the byte cache, or one walk
 * per run reads the history pages and feeds the derivation, shared by every viewer.
 */

/** Fields only the export has (docs/research/issue-14-real-server-facts.md §2); `extras` serves the first four. */
export const EXPORT_ONLY_FIELDS = [
  "tasks",
  "commands",
  "waits",
  "links",
  "timeline",
  "failures.trace_preview",
  "failures.file",
  "failures.line",
] as const;

/** Runs whose partial or open derivation is kept between visits (besides the ones being walked). */
const LIVE_RUNS = 32;

export interface RunViewStats {
  walks: number;
  cacheEntries: number;
  cacheBytes: number;
  cacheMaxBytes: number;
  upstreamLongPolls: number;
  queuedWalks: number;
  liveRuns: number;
  /** V8's heap is held small for the walks reading now (lib/server/process/heap.ts; false when turned off). */
  smallHeap: boolean;
}

export interface RunViewServiceOptions {
  /** The fetch under the person's credentials and the request log (tests count calls through it). */
  fetch?: typeof fetch;
  logger?: Logger;
  /** Where the walk's V8 heap sizing goes (lib/server/process/heap.ts); tests record it. */
  setV8Flags?: SetV8Flags;
  /** Cluster-wide long-poll places (BREAKWATER_REDIS_URL); none: this process's cap only. */
  places?: RedisPlaces | null;
}

interface ViewParams {
  target: WalkTarget;
  since: number | null;
  wait: boolean;
}

function viewParams(url: URL): ViewParams | null {
  const workflowId = url.searchParams.get("workflow_id") ?? "";
  const runId = url.searchParams.get("run_id") ?? "";
  const since = url.searchParams.get("since");
  if (workflowId === "" || runId === "") return null;
  if (since !== null && !/^\d{1,15}$/.test(since)) return null;
  return {
    target: { workflowId, runId },
    since: since === null ? null : Number(since),
    wait: url.searchParams.get("wait") === "1",
  };
}

export class RunViewService {
  readonly cache: RunViewCache;
  private readonly live = new LRUCache<string, RunState>({
    max: LIVE_RUNS,
    // An evicted run's unfinished gzip is never read again (a walk still writing it keeps it).
    dispose: (state) => {
      if (state.walk === null) state.answer?.close();
    },
  });
  private readonly walks = new Set<Walk>();
  private readonly storing = new Set<Promise<void>>();
  private readonly slots: Slots;
  private readonly longPolls: LongPollPool;
  private readonly logger: Logger;
  private readonly baseFetch: typeof fetch;
  private readonly smallHeap: SmallHeap | null;

  constructor(
    private readonly config: ConsoleConfig,
    options: RunViewServiceOptions = {},
  ) {
    this.cache = new RunViewCache(config.runView.cacheMaxBytes);
    this.slots = new Slots(config.runView.maxWalks);
    this.longPolls = new LongPollPool(config.runView.maxLongPolls, options.places ?? null);
    this.logger = options.logger ?? getLogger();
    this.baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.smallHeap = config.runView.smallHeap ? new SmallHeap(options.setV8Flags) : null;
  }

  stats(): RunViewStats {
    return {
      walks: this.walks.size,
      cacheEntries: this.cache.entries,
      cacheBytes: this.cache.bytes,
      cacheMaxBytes: this.cache.maxBytes,
      upstreamLongPolls: this.longPolls.size,
      queuedWalks: this.slots.queued,
      liveRuns: this.live.size,
      smallHeap: this.smallHeap?.held ?? false,
    };
  }

  /** A client that carries the request's person's credentials (lib/server/proxy/dw-client.ts) into the namespace. */
  private clientFor(request: Request, namespace: string): DwClient {
    const person = forwardedPerson(request.headers);
    return createDwClient({
      baseUrl: this.config.serverUrl,
      namespace,
      timeoutMs: this.config.timeoutMs,
      exportTimeoutMs: this.config.exportTimeoutMs,
      fetch: credentialedFetch(this.config, () => Promise.resolve(person), loggedFetch(this.logger, this.baseFetch)),
    });
  }

  private runKey(namespace: string, target: WalkTarget): string {
    return JSON.stringify([this.config.serverUrl, namespace, target.workflowId, target.runId]);
  }

  /** Checks the request and authorises it (describe with the person's credentials) — on every request. */
  private async authorise(
    request: Request,
  ): Promise<
    { refusal: Response } | { params: ViewParams; client: DwClient; namespace: string; closed: boolean; key: string }
  > {
    const params = viewParams(new URL(request.url));
    if (params === null) {
      return {
        refusal: jsonError(400, {
          reason: "bad_request",
          message: "Name the run: workflow_id and run_id, and since as a whole number when given.",
          httpStatus: 400,
        }),
      };
    }
    const namespace = requestNamespace(request.headers);
    if (namespace === null) return { refusal: namespaceRequired() };
    const client = this.clientFor(request, namespace);
    try {
      const run = await client.describeRun(params.target.workflowId, params.target.runId, { signal: request.signal });
      return { params, client, namespace, closed: run.is_terminal, key: this.runKey(namespace, params.target) };
    } catch (error) {
      return { refusal: errorEnvelope(this.config, error) };
    }
  }

  async view(request: Request): Promise<Response> {
    const checked = await this.authorise(request);
    if ("refusal" in checked) return checked.refusal;
    const { params, client, closed, key } = checked;
    const cached = this.cache.get(`view|${key}`);
    if (cached?.kind === "view") return this.hit(cached, params.since, wantsGzip(request));

    let state = this.live.get(key);
    if (state === undefined) {
      state = new RunState(key, params.target);
      this.live.set(key, state);
    }
    const from = params.since !== null && state.boundaries.has(params.since) ? params.since : 0;
    // A walk that has sent its last line is not joined (it is only waiting to be settled).
    if (state.walk?.over === true) this.settle(state, state.walk);
    // Walked and closed, not in the cache (larger than all of it, or its gzip still being made): from memory.
    if (state.stored !== null && state.walk === null) {
      const entry = await state.stored;
      if (entry !== null) return this.hit(entry, params.since, wantsGzip(request));
      // Its gzip failed: walk the run again.
      state = new RunState(key, params.target);
      this.live.set(key, state);
    }

    let outcome: CacheOutcome = "joined";
    let held = state.walk?.phase === "polling";
    if (state.walk === null) {
      const wantsWait = params.wait && !closed && state.derivation !== null && from === state.lastSequence;
      // Taking a place may ask Redis (a cluster-wide cap): another viewer may start the walk meanwhile.
      const placed = wantsWait && (await this.longPolls.tryTake(key));
      const started = state.walk as Walk | null;
      if (started === null) {
        outcome = state.derivation !== null && !closed ? "extend" : "miss";
        held = placed;
        this.startWalk(state, client, closed, held);
      } else {
        if (placed) this.longPolls.release(key);
        held = started.phase === "polling";
      }
    }
    const walk = state.walk;
    if (walk === null) return jsonError(500, { reason: "unknown", message: "the run view walk did not start" });
    const meta = encodeLine({
      t: "meta",
      closed,
      total: state.total,
      cache: outcome,
      pageSize: HISTORY_PAGE_SIZE,
      exportOnly: [...EXPORT_ONLY_FIELDS],
      from,
      held,
    });
    const run = state;
    let joined: Subscriber | null = null;
    const { response, subscriber } = streamedView(outcome, wantsGzip(request), request, (gone) =>
      this.unsubscribe(run, walk, joined ?? gone),
    );
    const answer = state.answer;
    if (answer === null || !state.hasChunksAfter(from)) {
      subscriber.write([meta, state.progressLine()]);
      walk.subscribers.add(subscriber);
      return response;
    }
    // Subscribed now, the lines emitted so far (kept compressed) inflated meanwhile: none is lost or repeated.
    const failed = (error: unknown) => encodeLine({ t: "error", error: toErrorInfo(error) });
    joined = replayThen(subscriber, [meta], answer.lines(from), [state.progressLine()], failed);
    walk.subscribers.add(joined);
    return response;
  }

  /** A closed run from the byte cache: the pre-built answer, or (after `since`) its tail. */
  private async hit(entry: CachedView, since: number | null, gzip: boolean): Promise<Response> {
    const whole = since === null || since === 0 || !entry.boundaries.includes(since);
    if (whole && gzip && entry.gzip !== null) return gzippedView("hit", entry.gzip);
    if (whole) return bufferedView("hit", [entry.meta, ...(await chunkLines(entry, 0)), ...entry.tail]);
    const meta = encodeLine({
      t: "meta",
      closed: true,
      total: entry.total,
      cache: "hit",
      pageSize: HISTORY_PAGE_SIZE,
      exportOnly: [...EXPORT_ONLY_FIELDS],
      from: since,
      held: false,
    });
    return bufferedView("hit", [meta, ...(await chunkLines(entry, since)), ...entry.tail]);
  }

  private unsubscribe(state: RunState, walk: Walk, subscriber: Subscriber): void {
    walk.subscribers.delete(subscriber);
    if (walk.over || walk.subscribers.size > 0) return;
    // The last viewer left: stop reading, keep what was derived (the next visit resumes from it).
    walk.over = true;
    walk.controller.abort(new DOMException("every viewer left", "AbortError"));
    this.settle(state, walk);
  }

  /** Forgets a walk that is over: stats, the run's slot in the long-poll pool, the run's pointer. */
  private settle(state: RunState, walk: Walk): void {
    this.walks.delete(walk);
    this.releasePollPlace(state, walk);
    if (state.walk === walk) state.walk = null;
  }

  /** Gives the run's long-poll place back, once: a later walk of the same run may hold it by then. */
  private releasePollPlace(state: RunState, walk: Walk): void {
    if (!walk.holdsPollPlace) return;
    walk.holdsPollPlace = false;
    this.longPolls.release(state.key);
  }

  private startWalk(state: RunState, client: DwClient, closed: boolean, wait: boolean): void {
    const walk = new Walk(state.lastSequence, wait);
    state.walk = walk;
    this.walks.add(walk);
    void this.runWalk(state, walk, client, closed).finally(() => this.settle(state, walk));
  }

  private async runWalk(state: RunState, walk: Walk, client: DwClient, closed: boolean): Promise<void> {
    const started = performance.now();
    const signal = walk.controller.signal;
    let release: (() => void) | null = null;
    let releaseHeap: (() => void) | null = null;
    let outcome = "done";
    try {
      let first: PageRead | null = null;
      if (walk.waits) {
        walk.phase = "polling";
        // Waiting takes no walk slot: it reads nothing until the server has something. On SIGTERM the
        // wait ends at once and the walk answers what it has: a clean end, which the browser reopens
        // (on another replica; lib/server/process/lifecycle.ts).
        const drained = shutdownSignal();
        first = await readPage(client, state.target, state.lastSequence, {
          signal: AbortSignal.any([signal, drained]),
          wait: true,
        }).catch((error: unknown) => {
          if (signal.aborted || !drained.aborted) throw error;
          return null;
        });
        this.releasePollPlace(state, walk);
      }
      release = await this.slots.acquire(signal);
      // While pages are read and derived, V8's heap grows less (docs/decisions/0042).
      releaseHeap = this.smallHeap?.hold() ?? null;
      walk.phase = "reading";
      if (state.derivation === null) await this.begin(state, client, signal);
      if (first !== null) this.apply(state, walk, first, signal);
      // After a long-poll (even an empty one: 30 s with nothing new), read on only if there is more.
      if (first === null || first.more) {
        for await (const page of walkPages(client, state.target, state.lastSequence, { signal })) {
          this.apply(state, walk, page, signal);
        }
      }
      signal.throwIfAborted();
      this.finish(state, walk, closed);
    } catch (error) {
      if (signal.aborted) outcome = "aborted";
      else {
        outcome = "error";
        walk.finish([encodeLine({ t: "error", error: toErrorInfo(error) })]);
      }
      // What was derived cannot be answered without its gzip: the next visit walks the run again.
      if (state.answer?.failed === true && this.live.get(state.key) === state) this.live.delete(state.key);
    } finally {
      releaseHeap?.();
      release?.();
      const ms = Math.round(performance.now() - started);
      const { workflowId, runId } = state.target;
      this.logger.debug(
        {
          workflowId,
          runId,
          from: walk.from,
          to: state.lastSequence,
          pages: walk.pages,
          events: walk.events,
          ms,
          outcome,
        },
        "run-view walk",
      );
    }
  }

  /** The walk's one debug read: the event count (progress) and the failures only rows have. */
  private async begin(state: RunState, client: DwClient, signal: AbortSignal): Promise<void> {
    const debug = await client.debugRun(state.target.workflowId, state.target.runId, {}, { signal });
    signal.throwIfAborted();
    state.total = debug.execution.last_event?.sequence ?? null;
    state.derivation = new RunDerivation({ recentFailures: debug.recent_failures ?? [] });
    // Headed as a closed run's cached answer will be; `store` re-heads it if the total moved.
    state.answer = new GzipAnswer(hitMeta(state.total));
  }

  private apply(state: RunState, walk: Walk, page: PageRead, signal: AbortSignal): void {
    // A page that lands after the last viewer left is dropped: the run's state is no longer this walk's.
    signal.throwIfAborted();
    const { derivation, answer } = state;
    if (derivation === null || answer === null || page.events.length === 0) return;
    const lines = derivation.add(page.events).map(encodeLine);
    const at = derivation.lastSequence;
    answer.append(at, lines);
    state.boundaries.add(at);
    walk.pages += 1;
    walk.events += page.events.length;
    if (!page.more || (state.total !== null && at > state.total)) state.total = at;
    walk.broadcast([...lines, state.progressLine()]);
  }

  private finish(state: RunState, walk: Walk, closed: boolean): void {
    const derivation = state.derivation;
    if (derivation === null) throw new Error("the walk ended without a derivation");
    state.total = derivation.lastSequence;
    const snapshot = derivation.snapshot(closed ? undefined : Date.now());
    const tail = [
      state.progressLine(),
      encodeLine({ t: "snapshot", snapshot }),
      encodeLine({ t: "done", lastSequence: derivation.lastSequence }),
    ];
    walk.finish(tail);
    if (!closed) return;
    state.complete = true;
    const stored = this.store(state, tail);
    state.stored = stored;
    const settled: Promise<void> = stored.then(() => {
      this.storing.delete(settled);
    });
    this.storing.add(settled);
  }

  /** Resolves once every walked closed run being stored is in the cache (tests, measurements). */
  async idle(): Promise<void> {
    await Promise.all([...this.storing]);
  }

  /**
   * Caches a walked closed run: its gzip, made while it was walked, ended with the tail. Until it is
   * stored, repeat views wait for it (`state.stored`); null when zlib failed (then it is walked again).
   */
  private async store(state: RunState, tail: Buffer[]): Promise<CachedView | null> {
    const answer = state.answer;
    if (answer === null) return null;
    const meta = hitMeta(state.total);
    try {
      // The head was written before the total was final: when the walk moved it, compress once more.
      const gzip = meta.equals(answer.head)
        ? await answer.end(tail)
        : await gzipParts([meta, ...(await answer.lines(0)), ...tail]).finally(() => answer.close());
      const entry: CachedView = {
        kind: "view",
        total: state.total,
        lastSequence: state.lastSequence,
        meta,
        chunkIndex: answer.index,
        tail,
        gzip,
        boundaries: [...state.boundaries],
      };
      state.answer = null;
      if (this.cache.set(`view|${state.key}`, entry)) this.live.delete(state.key);
      return entry;
    } catch (error) {
      this.logger.warn({ failure: String(error) }, "run-view gzip failed");
      if (this.live.get(state.key) === state) this.live.delete(state.key);
      return null;
    }
  }

  async extras(request: Request): Promise<Response> {
    const checked = await this.authorise(request);
    if ("refusal" in checked) return checked.refusal;
    const key = `extras|${checked.key}`;
    const cached = this.cache.get(key);
    if (cached?.kind === "extras") return extrasResponse(cached.body, "hit");
    // The export is the heaviest read there is: it takes a walk slot, like a history walk.
    let release: () => void;
    try {
      release = await this.slots.acquire(request.signal);
    } catch {
      return jsonError(499, { reason: "aborted", message: "the request was aborted" });
    }
    const read = await readExtras(
      this.config,
      request,
      checked.namespace,
      checked.params.target,
      this.baseFetch,
      this.logger,
    ).finally(release);
    if ("refusal" in read) return read.refusal;
    if (checked.closed) this.cache.set(key, { kind: "extras", body: read.body });
    return extrasResponse(read.body, "miss");
  }
}

function extrasResponse(body: Buffer, outcome: "hit" | "miss"): Response {
  return new Response(bodyOf(body), {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store", "x-breakwater-run-view": outcome },
  });
}

/** The `meta` line of a closed run's whole answer from the cache. */
function hitMeta(total: number | null): Buffer {
  return encodeLine({
    t: "meta",
    closed: true,
    total,
    cache: "hit",
    pageSize: HISTORY_PAGE_SIZE,
    exportOnly: [...EXPORT_ONLY_FIELDS],
    from: 0,
    held: false,
  });
}

/** A cached view's chunk lines after `since`, cut out of its inflated gzip (on zlib's thread pool) by the index. */
async function chunkLines(entry: CachedView, since: number): Promise<Buffer[]> {
  const plain = await promisify(gunzip)(entry.gzip);
  return cutLines(plain, entry.meta.length, entry.chunkIndex, since);
}

/** Gzips the parts as one stream on zlib's thread pool, without first copying them into one buffer. */
function gzipParts(parts: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = createGzip();
    const out: Buffer[] = [];
    zip.on("data", (chunk: Buffer) => out.push(chunk));
    zip.once("end", () => resolve(Buffer.concat(out)));
    zip.once("error", reject);
    for (const part of parts) zip.write(part);
    zip.end();
  });
}

const SHARED = Symbol.for("breakwater.run-view-service");

/**
 * The process-wide service: one cache and one set of walks for every viewer. Held on globalThis,
 * not in a module variable: Next may evaluate this module once per route bundle (and again on a
 * dev reload), and the stats route must see the walks the view route runs.
 */
export function getRunViewService(config: ConsoleConfig): RunViewService {
  const holder = globalThis as unknown as Record<symbol, RunViewService | undefined>;
  holder[SHARED] ??= new RunViewService(config, { places: sharedPlaces() });
  return holder[SHARED];
}
