import type { Clock } from "../clock";
import type { Db } from "../store/db";
import type { EngineNotifier } from "./notifier";

/**
 * `wait_for: completed` callers held until their update closes (`waitForAcceptedUpdateToClose`,
 * WorkflowStub.php@8dc90d64) or its deadline passes (`wait_timed_out`). A close is seen through the
 * run's history wake-up; the deadline is read from the Clock, so with a FakeClock tests end waits
 * with `expireDue` (the engine's sweep calls it) and never sleep.
 */

/** `UpdateWaitPolicy::COMPLETION_TIMEOUT_SECONDS`, the wait when the caller names none. */
export const UPDATE_COMPLETION_TIMEOUT_SECONDS = 10;

interface Waiter {
  commandId: string;
  deadlineAt: number;
  finish: (timedOut: boolean) => void;
}

export class UpdateWaits {
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    notifier: EngineNotifier,
  ) {
    notifier.on("history", (runId: string) => this.onHistory(runId));
  }

  private closed(commandId: string): boolean {
    const row = this.db.prepare("SELECT outcome, status FROM workflow_commands WHERE id = ?").get(commandId) as
      { outcome: string | null; status: string } | undefined;
    return !row || row.status === "rejected" || row.outcome !== null;
  }

  private onHistory(runId: string): void {
    for (const w of this.waiters.get(runId) ?? []) if (this.closed(w.commandId)) w.finish(false);
  }

  /** Resolves `false` once the update's command is closed, `true` when its deadline passed (or `abort` fired) first. */
  wait(runId: string, commandId: string, timeoutSeconds: number, abort?: AbortSignal): Promise<boolean> {
    if (this.closed(commandId)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const set = this.waiters.get(runId) ?? new Set<Waiter>();
      this.waiters.set(runId, set);
      const deadlineAt = this.clock.now() + timeoutSeconds * 1000;
      // A real-time backstop for the clock's deadline; with a FakeClock, tests call `expireDue`.
      const timer = setTimeout(() => this.expireDue(), Math.max(0, deadlineAt - this.clock.now()));
      const waiter: Waiter = {
        commandId,
        deadlineAt,
        finish: (timedOut) => {
          clearTimeout(timer);
          set.delete(waiter);
          if (set.size === 0) this.waiters.delete(runId);
          abort?.removeEventListener("abort", onAbort);
          resolve(timedOut);
        },
      };
      const onAbort = (): void => waiter.finish(true);
      abort?.addEventListener("abort", onAbort, { once: true });
      set.add(waiter);
    });
  }

  /** Ends every wait whose deadline has passed at `now`; returns how many. */
  expireDue(now: number = this.clock.now()): number {
    let n = 0;
    for (const set of [...this.waiters.values()]) {
      for (const w of [...set]) {
        if (w.deadlineAt > now) continue;
        w.finish(!this.closed(w.commandId));
        n += 1;
      }
    }
    return n;
  }
}
