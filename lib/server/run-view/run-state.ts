import "server-only";
import type { RunViewLine } from "@/lib/views/run-view-wire";
import type { RunDerivation } from "@/lib/views/run-derivation";
import type { ChunkLine } from "./cache";
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
 * What the console knows of one run (keyed by DW server, namespace, workflow id, run id): the
 * derivation fed so far, the chunk lines it emitted (serialised), and the page ends a `since` can
 * continue from. It outlives an aborted walk, so the next visit resumes from `lastSequence`.
 */
export class RunState {
  derivation: RunDerivation | null = null;
  readonly chunks: ChunkLine[] = [];
  /** Sequences at which a page ended (and so a `done` may have said): `since` must be one of them. */
  readonly boundaries = new Set<number>([0]);
  total: number | null = null;
  walk: Walk | null = null;
  /** Walked to the end of a run that was closed when the walk began: final. */
  complete = false;
  /** The last answer's progress + snapshot + done lines, once complete. */
  tail: Buffer[] | null = null;

  constructor(
    readonly key: string,
    readonly target: WalkTarget,
  ) {}

  get lastSequence(): number {
    return this.derivation?.lastSequence ?? 0;
  }

  /** Chunk lines emitted after `since` (a boundary), in order. */
  chunksAfter(since: number): Buffer[] {
    const lines: Buffer[] = [];
    for (const chunk of this.chunks) if (chunk.at > since) lines.push(chunk.line);
    return lines;
  }

  progressLine(): Buffer {
    return encodeLine({ t: "progress", read: this.lastSequence, total: this.total });
  }
}
