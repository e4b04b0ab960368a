import "server-only";
import { promisify } from "node:util";
import { constants, createGzip, gunzip } from "node:zlib";
import type { Gzip } from "node:zlib";

const inflate = promisify(gunzip);

/** One chunk line's place in an answer: the sequence read when it was emitted, and its length. */
export interface ChunkSpan {
  at: number;
  bytes: number;
}

/**
 * The chunk lines after `since` (a page end), cut out of an inflated answer without copies: the
 * answer is `headBytes` of meta, then the first `count` spans' lines in order, then whatever follows.
 */
export function cutLines(
  plain: Buffer,
  headBytes: number,
  index: readonly ChunkSpan[],
  since: number,
  count = index.length,
): Buffer[] {
  const lines: Buffer[] = [];
  let offset = headBytes;
  for (const { at, bytes } of index.slice(0, count)) {
    if (offset + bytes > plain.length) throw new Error("the run view's gzip is shorter than its chunk index");
    if (at > since) lines.push(plain.subarray(offset, offset + bytes));
    offset += bytes;
  }
  return lines;
}

/**
 * A run's answer gzip-compressed as the walk emits it (issue 14): `head` (the `hit` meta), each page's
 * chunk lines, and at the end the tail. The walk keeps no plain line: the lines are over ten
 * times the gzip. A viewer who joins mid-walk, or a plain or `since` answer, gets its
 * lines by inflating what is compressed so far (on zlib's thread pool); a closed run's finished gzip
 * is the cache entry as it is, so the answer is compressed once, not again at the end.
 */
export class GzipAnswer {
  private readonly zip: Gzip = createGzip();
  private readonly out: Buffer[] = [];
  private outBytes = 0;
  private failure: Error | null = null;
  private finished: Promise<Buffer> | null = null;
  /** Each chunk line's sequence and length, in the order they were appended. */
  readonly index: ChunkSpan[] = [];

  constructor(readonly head: Buffer) {
    this.zip.on("data", (chunk: Buffer) => {
      this.out.push(chunk);
      this.outBytes += chunk.length;
    });
    this.zip.on("error", (error) => {
      this.failure = error;
    });
    this.zip.write(head);
  }

  /** zlib failed (it then holds nothing usable): the run must be walked again. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Compressed bytes held so far. */
  get bytes(): number {
    return this.outBytes;
  }

  /** A page's chunk lines; zlib compresses them off the event loop, in the order written. */
  append(at: number, lines: readonly Buffer[]): void {
    if (this.failure !== null) throw this.failure;
    if (this.finished !== null) throw new Error("the run view's answer is already finished");
    for (const line of lines) {
      this.zip.write(line);
      this.index.push({ at, bytes: line.length });
    }
  }

  /**
   * The lines of the first `count` chunks (all of them when omitted) emitted after `since`. The lines
   * appended before the call are flushed first, so what is held inflates to at least those.
   */
  async lines(since: number, count = this.index.length): Promise<Buffer[]> {
    const gzip = this.finished ?? this.flushed();
    const plain = await inflate(await gzip, { finishFlush: constants.Z_SYNC_FLUSH });
    return cutLines(plain, this.head.length, this.index, since, count);
  }

  /** Ends the answer with its tail lines: the whole gzip, ready to be cached and sent as it is. */
  end(tail: readonly Buffer[]): Promise<Buffer> {
    this.finished ??= new Promise<Buffer>((resolve, reject) => {
      if (this.failure !== null) return reject(this.failure);
      this.zip.once("error", reject);
      this.zip.once("end", () => resolve(Buffer.concat(this.out, this.outBytes)));
      for (const line of tail) this.zip.write(line);
      this.zip.end();
    });
    return this.finished;
  }

  /** Frees zlib's state of an answer that will not be finished (its run left the live set). */
  close(): void {
    if (this.finished === null) this.zip.destroy();
  }

  private flushed(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.failure !== null) return reject(this.failure);
      // The callback runs once the flush is processed, after the data it produced was emitted.
      this.zip.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.failure !== null) reject(this.failure);
        else resolve(Buffer.concat(this.out, this.outBytes));
      });
    });
  }
}
