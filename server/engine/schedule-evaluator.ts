import type { Engine } from ".";

/**
 * The embedded server's schedule evaluator: just after each whole `intervalMs` of the wall clock
 * (cron times fall on whole seconds, so a pass right after one sees them at once),
 * `engine.scheduleTick()` in batches of `batch` until a batch comes back short, yielding to the
 * event loop between batches so a thousand schedules due together do not hold every request behind
 * them. One pass at a time; a pass still running when the next is due is not doubled.
 */
export function startScheduleEvaluator(
  engine: Engine,
  opts: { intervalMs: number; batch?: number; onError?: (e: unknown) => void; wallClock?: () => number },
): { stop(): void; pass(): Promise<void> } {
  const batch = opts.batch ?? 100;
  const wallClock = opts.wallClock ?? Date.now;
  let running = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const pass = async (): Promise<void> => {
    if (running || stopped) return;
    running = true;
    try {
      for (;;) {
        const fired = engine.scheduleTick(undefined, batch);
        if (fired.length < batch || stopped) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      opts.onError?.(e);
    } finally {
      running = false;
    }
  };
  const arm = (): void => {
    if (stopped) return;
    const delay = opts.intervalMs - (wallClock() % opts.intervalMs) + 5;
    timer = setTimeout(() => {
      void pass();
      arm();
    }, delay);
  };
  arm();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    pass,
  };
}
