import "server-only";

/**
 * A bound on work running at once, with a first-come queue beyond it (walks: BREAKWATER_RUN_VIEW_WALKS).
 * A waiter whose signal fires leaves the queue, so a viewer who left does not hold a place in line.
 */
export class Slots {
  private running = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(private readonly limit: number) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once a slot is free; rejects with the signal's reason if it fires first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    const release = this.releaser();
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          this.running += 1;
          resolve(release);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.waiting.shift()?.grant();
    };
  }
}
