import "server-only";

/**
 * The upstream `wait_new_event=1` long-polls the console holds (issue 14). One per run at most — every
 * viewer of an open run waits on the same one (the walk that holds it) — and a global cap
 * (BREAKWATER_RUN_VIEW_LONG_POLLS, default 2), because each one ties up one of the real server's
 * four PHP workers for up to 30 s (durable-workflow/server@11d35b70 Dockerfile:86-100,
 * app/Support/LongPoller.php:24). Past the cap a request is answered without waiting.
 * A closed run is never long-polled: the real server holds the full 30 s even then
 * (HistoryController.php:49-56 does not check the status).
 */
export class LongPollPool {
  private readonly held = new Set<string>();

  constructor(private readonly cap: number) {}

  get size(): number {
    return this.held.size;
  }

  /** Takes the run's long-poll place; false when the cap is reached (or the run already holds one). */
  tryTake(runKey: string): boolean {
    if (this.held.has(runKey) || this.held.size >= this.cap) return false;
    this.held.add(runKey);
    return true;
  }

  release(runKey: string): void {
    this.held.delete(runKey);
  }
}
