import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Work written as a generator that `yield`s at every point where it may pause (a row read, a
 * bundle element encoded). The generator never waits itself: a driver decides whether to run it
 * to the end at once or to hand the event loop a turn now and then.
 */
export type Steps<T> = Generator<void, T, undefined>;

/**
 * Longest stretch of work between two turns of the event loop. Small enough that a worker poll or
 * a health check waiting behind a large export is answered within a few milliseconds; large enough
 * that the turns themselves cost nothing measurable.
 */
export const SLICE_MS = 8;

/** Runs the steps to the end without pausing. */
export function runSync<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps in slices of about `SLICE_MS`, letting the event loop run between slices. On an
 * abort or an error the generator is closed, so its `finally` blocks (open statement iterators)
 * run before the caller releases what they used.
 */
export async function runSliced<T>(steps: Steps<T>, signal?: AbortSignal): Promise<T> {
  let sliceStart = performance.now();
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn();
        signal?.throwIfAborted();
        sliceStart = performance.now();
      }
    }
  } finally {
    steps.return(undefined as T);
  }
}

/**
 * Turns a generator of text chunks (`undefined` = a pause point without output) into Buffers,
 * giving the event loop a turn whenever producing them took longer than `SLICE_MS`.
 */
export async function* slicedChunks(
  chunks: Generator<string | undefined, void, undefined>,
): AsyncGenerator<Buffer, void, undefined> {
  let sliceStart = performance.now();
  for (const chunk of chunks) {
    if (chunk !== undefined && chunk.length > 0) yield Buffer.from(chunk, "utf8");
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}
