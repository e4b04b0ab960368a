import type { Engine } from ".";

/**
 * The embedded server's schedule evaluator: every `intervalMs`, `engine.scheduleTick()` in batches
 * of `batch` until a batch comes back short, yielding to the event loop between batches so a
 * thousand schedules due in the same second do not hold every request behind them. One pass at a
 * time; a pass still running when the next is due is not doubled.
 */
export function startScheduleEvaluator(
  engine: Engine,
  opts: { intervalMs: number; batch?: number; onError?: (e: unknown) => void },
): { stop(): void } {
  const batch = opts.batch ?? 100;
  let running = false;
  let stopped = false;
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
  const timer = setInterval(() => void pass(), opts.intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
