import "server-only";
import type { RunViewLine } from "@/lib/run-view/wire";
import type { RunDerivation } from "@/lib/views/run-derivation";
import type { GzipAnswer } from "./answer-gzip";
import type { CachedView } from "./cache";
import type { WalkTarget } from "./walker";

/** One NDJSON line, serialised once: every viewer of a walk is sent the same bytes. */
export function encodeLine(line: RunViewLine): Buffer {
  return Buffer.from(`${JSON.stringify(line)}\n`, "utf8");
}

/** Where a viewer's lines go (its response stream). */
export interface Subscriber {
  write(lines: readonly Buffer[]): void;
  end(): void;
}

export type WalkPhase = "queued" | "polling" | "reading";

/** One upstream read in flight for a run, shared by every viewer subscribed to it. */
export class Walk {
  readonly subscribers = new Set<Subscriber>();
  readonly controller = new AbortController();
  phase: WalkPhase = "queued";
  pages = 0;
  events = 0;
  /** Settled: its lines have all been sent (or it was abandoned). */
  over = false;

  constructor(
    readonly from: number,
    /** The walk starts with a long-poll: it holds its run's place in the pool until the poll ends. */
    readonly waits: boolean,
  ) {
    this.holdsPollPlace = waits;
  }

  holdsPollPlace: boolean;

  broadcast(lines: readonly Buffer[]): void {
    if (lines.length === 0) return;
    for (const subscriber of this.subscribers) subscriber.write(lines);
  }

  finish(lines: readonly Buffer[]): void {
    this.over = true;
    for (const subscriber of this.subscribers) {
      subscriber.write(lines);
      subscriber.end();
    }
    this.subscribers.clear();
  }
}

/**
 * A subscriber that holds the walk's lines back while its replay (the chunk lines emitted before it
 * joined, inflated off the event loop) is read: it is subscribed at once, so no line falls between the
 * replay and the live lines, and sends `before`, the replay, `after`, then what it held, in order. A
 * replay that fails ends the answer with `failed`'s line.
 */
export function replayThen(
  target: Subscriber,
  before: readonly Buffer[],
  replay: Promise<Buffer[]>,
  after: readonly Buffer[],
  failed: (error: unknown) => Buffer,
): Subscriber {
  let held: Buffer[][] | null = [];
  let ended = false;
  void replay.then(
    (lines) => {
      target.write([...before, ...lines, ...after]);
      for (const lines of held ?? []) target.write(lines);
      held = null;
      if (ended) target.end();
    },
    (error: unknown) => {
      held = null;
      target.write([...before, failed(error)]);
      target.end();
      ended = true;
    },
  );
  return {
    write(lines) {
      if (held !== null) held.push([...lines]);
      else if (!ended) target.write(lines);
    },
    end() {
      if (held === null && !ended) target.end();
      ended = true;
    },
  };
}

/**
 * What the console knows of one run (keyed by DW server, namespace, workflow id, run id): the
 * derivation fed so far, the chunk lines it emitted (kept compressed, see {@link GzipAnswer}), and the
 * page ends a `since` can continue from. It outlives an aborted walk, so the next visit resumes from
 * `lastSequence`.
 */
export class RunState {
  derivation: RunDerivation | null = null;
  /** The answer's gzip being built, from the walk that began the derivation. */
  answer: GzipAnswer | null = null;
  /** Sequences at which a page ended (and so a `done` may have said): `since` must be one of them. */
  readonly boundaries = new Set<number>([0]);
  total: number | null = null;
  walk: Walk | null = null;
  /** Walked to the end of a run that was closed when the walk began: final. */
  complete = false;
  /** Once complete: its cache entry (null: its gzip failed, walk it again), also while being stored. */
  stored: Promise<CachedView | null> | null = null;

  constructor(
    readonly key: string,
    readonly target: WalkTarget,
  ) {}

  get lastSequence(): number {
    return this.derivation?.lastSequence ?? 0;
  }

  /** Some chunk line was emitted after `since`: a viewer from there needs a replay. */
  hasChunksAfter(since: number): boolean {
    return (this.answer?.index.at(-1)?.at ?? 0) > since;
  }

  progressLine(): Buffer {
    return encodeLine({ t: "progress", read: this.lastSequence, total: this.total });
  }
}
