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
 * A history walk allocates fast (about 490 MB for a 50,000-event run) while its live state stays
 * under 5 MB. With V8's default sizing the young generation grows to its 32 MB maximum, and the
 * old generation fills with promoted garbage before it is collected, so a first view raised the
 * console's memory 74–94 MB over a collected console. With these two flags held for the walk it
 * rose 31–35 MB, for about a quarter more walk time (more, smaller collections). The heap then
 * grows back in the requests that follow: measured over six of them, the same CPU in all, more of
 * it in the first.
 *
 * Only these two: `--optimize-for-size` kept memory as low but ran the walk's own code about three
 * times slower under a profiler and left the next request 40–130 ms dearer. Only while walks read:
 * the rest of the console keeps V8's defaults. Both flags are read each time V8 resizes the heap,
 * so setting them in a running process takes effect (lib/server/heap.test.ts checks that on this
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
