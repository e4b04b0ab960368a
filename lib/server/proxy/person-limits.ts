import "server-only";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { getConfig } from "@/lib/server/process/config";
import { stampedPeer } from "@/lib/server/auth/peer";
import type { HeaderSource } from "@/lib/server/auth/principal";
import { forwardedPerson } from "@/lib/server/auth/principal";
import { clientAddress } from "@/lib/server/edge/hosts";
import { RedisInFlightLimiter } from "@/lib/server/shared/in-flight";
import { sharedPlaces } from "@/lib/server/shared/stores";

/**
 * Per-person fairness (docs/decisions/0044): one person's reads and streams in flight are bounded, so
 * a flood from one browser or script is answered 429 at once instead of queueing everyone else's
 * reads behind it. In flight, not per second: a slow read holds its place until it has answered,
 * a stream until it ends, the browser leaves or the body is cancelled.
 */

/** What a place is held for; each pool has its own bound per person. */
export type LimitPool = "reads" | "streams" | "pulse";

/** One held place. `release` may be called any number of times; only the first counts. */
export interface Lease {
  release(): void;
}

/**
 * The counts behind the limits. In memory for one console process; in Redis for several replicas
 * with BREAKWATER_REDIS_URL (lib/server/shared/in-flight.ts), which is why acquiring is asynchronous
 * (and why a lease is all a caller holds).
 */
export interface InFlightLimiter {
  /** A place in `pool` for `person` if fewer than `limit` are held now; null when all are. */
  acquire(pool: LimitPool, person: string, limit: number): Promise<Lease | null>;
  /** Places held now (for tests and the log). */
  held(pool: LimitPool, person: string): number;
}

export class MemoryInFlightLimiter implements InFlightLimiter {
  private readonly counts = new Map<string, number>();

  acquire(pool: LimitPool, person: string, limit: number): Promise<Lease | null> {
    const key = `${pool}\u0000${person}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= limit) return Promise.resolve(null);
    this.counts.set(key, count + 1);
    let released = false;
    return Promise.resolve({
      release: () => {
        if (released) return;
        released = true;
        const left = (this.counts.get(key) ?? 1) - 1;
        // Forgotten at zero: the map holds only people with something in flight.
        if (left <= 0) this.counts.delete(key);
        else this.counts.set(key, left);
      },
    });
  }

  held(pool: LimitPool, person: string): number {
    return this.counts.get(`${pool}\u0000${person}`) ?? 0;
  }
}

// On globalThis: proxy.ts and each route handler may be separate bundles in one process.
const SHARED = Symbol.for("breakwater.person-limits");

export function personLimiter(): InFlightLimiter {
  const registry = globalThis as { [SHARED]?: InFlightLimiter };
  if (registry[SHARED] === undefined) {
    const memory = new MemoryInFlightLimiter();
    const places = sharedPlaces();
    registry[SHARED] = places === null ? memory : new RedisInFlightLimiter(places, memory);
  }
  return registry[SHARED];
}

/**
 * Who the limits count for: the person proxy.ts verified (`user:` + their name). With console auth
 * off there is no person, so the client's address stands in (`address:`): everyone on loopback is
 * then one person, which is what a console without auth is for.
 */
export function personKey(config: Pick<ConsoleConfig, "hosts">, headers: HeaderSource): string {
  const person = forwardedPerson(headers);
  if (person) return `user:${person.user}`;
  return `address:${clientAddress(config.hosts, headers, stampedPeer(headers))}`;
}

/** Seconds a refused person is told to wait: a read ends within seconds, a stream's place frees more slowly. */
const RETRY_AFTER_SECONDS: Record<LimitPool, number> = { reads: 1, streams: 5, pulse: 15 };

/** What the person is told; the pulse screen retries by itself, so its sentence says so. */
const MESSAGE: Record<LimitPool, (limit: number, retryAfter: number) => string> = {
  reads: (limit, retryAfter) =>
    `You have ${limit} console reads in flight already; close some of them (other tabs, scripts) or try again in ${retryAfter} s.`,
  streams: (limit, retryAfter) =>
    `You have ${limit} run views or export downloads open already; close some of them (other tabs, scripts) or try again in ${retryAfter} s.`,
  pulse: (limit) =>
    `You have ${limit} live pulse views open already; close one (another tab or script) and this one connects by itself.`,
};

/** The 429 in the console's JSON error envelope, with Retry-After and what to do. */
export function tooManyInFlight(pool: LimitPool, limit: number): Response {
  const retryAfter = RETRY_AFTER_SECONDS[pool];
  const message = MESSAGE[pool](limit, retryAfter);
  return Response.json(
    { reason: "too_many_in_flight", message, httpStatus: 429 },
    { status: 429, headers: { "cache-control": "no-store", "retry-after": String(retryAfter) } },
  );
}

/**
 * The response with its body passed through, releasing the lease once the body ends, fails or is
 * cancelled, or the request is aborted — whichever comes first. It takes the request, not only its
 * signal, and keeps it until then: a Request's signal follows its init signal through a weak
 * reference, so a collected request would stop the abort from arriving (lib/server/kikwiflow/pulse-relay.ts).
 */
export function releasedAtEnd(response: Response, request: Request, lease: Lease): Response {
  const source = response.body;
  if (source === null) {
    lease.release();
    return response;
  }
  // Next answers HEAD with the GET handler and never reads nor cancels the body: the place would be
  // held forever. Same status and headers, no body, the place given back now.
  if (request.method === "HEAD") {
    lease.release();
    source.cancel().catch(() => undefined);
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  const reader = source.getReader();
  const onAbort = () => {
    lease.release();
    reader.cancel(request.signal.reason).catch(() => undefined);
  };
  const done = () => {
    request.signal.removeEventListener("abort", onAbort);
    lease.release();
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          done();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Runs `handle` inside one of this person's places in `pool` ("reads" or "streams"), or answers 429
 * when they hold every one. The place is held until the answer's body is done (releasedAtEnd).
 */
export async function withPersonLimit(
  request: Request,
  pool: Exclude<LimitPool, "pulse">,
  handle: () => Promise<Response>,
): Promise<Response> {
  const config = getConfig();
  const limit = config.personLimits[pool];
  const lease = await personLimiter().acquire(pool, personKey(config, request.headers), limit);
  if (lease === null) return tooManyInFlight(pool, limit);
  let response: Response;
  try {
    response = await handle();
  } catch (error) {
    lease.release();
    throw error;
  }
  return releasedAtEnd(response, request, lease);
}
