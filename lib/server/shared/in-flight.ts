import "server-only";
import type { InFlightLimiter, Lease, LimitPool } from "@/lib/server/proxy/person-limits";
import { getLogger } from "@/lib/server/process/log";
import type { RedisPlaces } from "./leases";

/**
 * The per-person limits (docs/decisions/0044) counted across replicas: a person's places in a pool
 * are one Redis set (lib/server/shared/leases.ts), so 16 reads in flight means 16 on the whole
 * console, not 16 on each replica. When Redis cannot be reached the limits do not vanish: they fall
 * back to this process's own counts (per replica, as without Redis) until it answers again.
 */
export class RedisInFlightLimiter implements InFlightLimiter {
  constructor(
    private readonly places: RedisPlaces,
    private readonly fallback: InFlightLimiter,
  ) {}

  async acquire(pool: LimitPool, person: string, limit: number): Promise<Lease | null> {
    let place;
    try {
      place = await this.places.take(`person:${pool}:${person}`, limit);
    } catch (error) {
      getLogger().warn(
        { pool, failure: error instanceof Error ? error.message : String(error) },
        "per-person limit counted on this replica only: Redis unavailable",
      );
      return this.fallback.acquire(pool, person, limit);
    }
    if (place === null) return null;
    return { release: () => void place.release() };
  }

  /** This replica's own places (the fallback's); the cluster's count is `places.count`. */
  held(pool: LimitPool, person: string): number {
    return this.fallback.held(pool, person);
  }
}
