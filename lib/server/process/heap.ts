import "server-only";
import { setFlagsFromString } from "node:v8";

/**
 * While a walk reads: the old generation may grow 30 % over what the last full collection kept
 * (V8's own factor is up to 4×), and the young generation does not grow past what it has.
 */
export const SMALL_HEAP_FLAGS = "--heap-growing-percent=30 --semi-space-growth-factor=1";
/** V8's defaults for the same two flags (`node --v8-options`, Node 20.20.2). */
export const DEFAULT_HEAP_FLAGS = "--heap-growing-percent=0 --semi-space-growth-factor=2";

export type SetV8Flags = (flags: string) => void;

/**
 * Keeps the console's V8 heap from growing much while at least one holder holds it
 * (docs/decisions/0042).
 *
 * A history walk allocates fast while its live state stays small. With V8's default sizing the
 * young generation grows to its maximum, and the old generation fills with promoted garbage before
 * it is collected, so a first view raised the console's memory well over its budget. With these two
 * flags held for the walk it stays under it, for somewhat more walk time (more, smaller
 * collections); the heap then grows back in the requests that follow, the same CPU spent a request
 * earlier. Figures: docs/performance.md, decision 0042.
 *
 * Only these two: `--optimize-for-size` kept memory as low but ran the walk's own code much slower
 * and left the next request dearer. Only while walks read:
 * the rest of the console keeps V8's defaults. Both flags are read each time V8 resizes the heap,
 * so setting them in a running process takes effect (lib/server/process/heap.test.ts checks that on this
 * Node). One per process in the console (the run-view service is process-wide); holders are
 * counted, and the defaults return when the last one releases.
 */
export class SmallHeap {
  private holders = 0;

  constructor(private readonly setFlags: SetV8Flags = setFlagsFromString) {}

  get held(): boolean {
    return this.holders > 0;
  }

  /** Holds it; the returned release may be called more than once. */
  hold(): () => void {
    if (this.holders === 0) this.setFlags(SMALL_HEAP_FLAGS);
    this.holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      if (this.holders === 0) this.setFlags(DEFAULT_HEAP_FLAGS);
    };
  }
}
