import "server-only";
import { createHash } from "node:crypto";
import type { HeldPlace, RedisPlaces } from "@/lib/server/shared/leases";

/**
 * The upstream `wait_new_event=1` long-polls the console holds (issue 14). One per run at most — every
 * viewer of an open run waits on the same one (the walk that holds it) — and a global cap
 * (BREAKWATER_RUN_VIEW_LONG_POLLS, default 2), because each one ties up one of the real server's
 * four PHP workers for up to 30 s (durable-workflow/server@11d35b70 Dockerfile:86-100,
 * app/Support/LongPoller.php:24). Past the cap a request is answered without waiting.
 * A closed run is never long-polled: the real server holds the full 30 s even then
 * (HistoryController.php:49-56 does not check the status).
 *
 * With BREAKWATER_REDIS_URL the cap and the one-per-run rule hold for all replicas together (a place
 * is also taken in Redis: lib/server/shared/leases.ts, docs/decisions/0064); when Redis cannot be
 * reached, no long-poll is held — the answer comes at once, the browser asks again a little later —
 * rather than risk more than the cap on the server's workers.
 */
export const LONG_POLL_POOL = "long-polls";

export class LongPollPool {
  /** Runs holding (or being given) a place here; the value is the cluster place, when there is one. */
  private readonly held = new Map<string, HeldPlace | null>();

  constructor(
    private readonly cap: number,
    private readonly cluster: RedisPlaces | null = null,
  ) {}

  /** Places held by this process. */
  get size(): number {
    return this.held.size;
  }

  /** Takes the run's long-poll place; false when the cap is reached (or the run already holds one). */
  async tryTake(runKey: string): Promise<boolean> {
    if (this.held.has(runKey) || this.held.size >= this.cap) return false;
    // Reserved here before asking Redis, so a second viewer of the run in this process does not also ask.
    this.held.set(runKey, null);
    if (this.cluster === null) return true;
    let place: HeldPlace | null = null;
    try {
      place = await this.cluster.take(LONG_POLL_POOL, this.cap, createHash("sha256").update(runKey).digest("hex"));
    } catch {
      place = null;
    }
    const stillReserved = this.held.has(runKey) && this.held.get(runKey) === null;
    if (place === null || !stillReserved) {
      // Refused cluster-wide, Redis unavailable (fail closed), or released while asking.
      if (stillReserved) this.held.delete(runKey);
      void place?.release();
      return false;
    }
    this.held.set(runKey, place);
    return true;
  }

  release(runKey: string): void {
    const place = this.held.get(runKey);
    this.held.delete(runKey);
    void place?.release();
  }
}
