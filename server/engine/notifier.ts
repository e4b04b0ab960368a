import { EventEmitter } from "node:events";

export type TaskKind = "workflow" | "activity";

/**
 * In-process wake-ups, emitted only after the transaction that caused them committed:
 *  - `task-ready:<namespace>\0<queue>\0<kind>` when a task may be claimable (long-polls re-check);
 *  - `history` with the run id after a commit that appended history events.
 */
export class EngineNotifier extends EventEmitter {
  constructor() {
    super();
    // Every held long-poll is one listener; their number is bounded by open connections, not by code.
    this.setMaxListeners(0);
  }

  static taskKey(namespace: string, queue: string, kind: TaskKind): string {
    return `task-ready:${namespace}\u0000${queue}\u0000${kind}`;
  }

  notifyTaskReady(namespace: string, queue: string, kind: TaskKind): void {
    this.emit(EngineNotifier.taskKey(namespace, queue, kind));
  }

  notifyHistory(runId: string): void {
    this.emit("history", runId);
  }

  /**
   * Subscribes to the next task-ready signal for the key. `ready` resolves on that signal, after
   * `timeoutMs`, or when `signal` aborts; subscribe before trying to claim so that a task created
   * while the claim is in flight is not missed.
   */
  taskWaiter(
    namespace: string,
    queue: string,
    kind: TaskKind,
    timeoutMs: number,
    signal?: AbortSignal,
  ): { ready: Promise<void>; cancel: () => void } {
    const key = EngineNotifier.taskKey(namespace, queue, kind);
    let finish: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), Math.max(0, timeoutMs));
      finish = (): void => {
        clearTimeout(timer);
        this.off(key, finish);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      this.on(key, finish);
      signal?.addEventListener("abort", finish, { once: true });
    });
    return { ready, cancel: () => finish() };
  }
}
