import "server-only";
import type { KikwiflowClient, PulseSnapshot } from "@/lib/kikwiflow";
import { sseFrame } from "@/lib/kikwiflow/sse";
import { kikwiflowFailure, kikwiflowJson } from "@/lib/server/kikwiflow/engine";
import type { InFlightLimiter } from "@/lib/server/proxy/person-limits";
import { personLimiter, tooManyInFlight } from "@/lib/server/proxy/person-limits";

/**
 * The live pulse relay behind `GET /api/kikwiflow/definitions/{id}/pulse` (decision 0028): the
 * browser never reaches the engine, so the console holds one upstream SSE connection per open
 * definition screen and re-encodes each VALIDATED snapshot as its own `data:` frame.
 *
 * - The engine's stream answers 200 and then hangs for an unknown id, while the plain snapshot
 *   answers 404 (StatsSSEQueryController vs StatsQueryController@3b62f35), so the plain snapshot is
 *   read first: it decides the 404, and it is also the first frame, sent without waiting an interval.
 *   Being off the engine's beat, the browser never measures the interval from it (pulse-state.ts).
 * - Each relay holds an upstream connection and an engine polling loop, so at most
 *   PULSE_RELAY_LIMIT run at once; one more is a 503 with a sentence. One person holds at most
 *   their share of them (`perPerson`; more is a 429), so one viewer cannot take every slot.
 * - A relay lives at most `lifetime`, then ends cleanly; the browser reopens it at once (a clean end
 *   means "come back", components/kikwiflow/use-pulse.ts), so a slot is never held for good. Every
 *   other end (upstream gone, a malformed frame) errors the stream, and the browser backs off.
 * - The upstream is aborted when the browser goes (request.signal, or the body being cancelled),
 *   and the slot is released exactly once, whichever way the relay ends.
 */

export const PULSE_RELAY_LIMIT = 16;
let active = 0;

/** Relays running now (for tests and the log). */
export function activePulseRelays(): number {
  return active;
}

const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  // Reverse proxies (nginx) would otherwise buffer the frames.
  "x-accel-buffering": "no",
};

/** Seconds a refused pulse view is told to wait: a relay's slot frees when someone leaves a pulse page. */
const BUSY_RETRY_AFTER_SECONDS = 15;

function busy(): Response {
  const response = kikwiflowJson(
    {
      reason: "relay_busy",
      message: `${PULSE_RELAY_LIMIT} live pulse views are open on this console already; close one or try again later.`,
      httpStatus: 503,
    },
    503,
  );
  response.headers.set("retry-after", String(BUSY_RETRY_AFTER_SECONDS));
  return response;
}

/** When a relay ends, as a timer: `schedule(end)` arms it and returns how to disarm it. */
export type RelayLifetime = (end: () => void) => () => void;

export function lifetimeOf(ms: number): RelayLifetime {
  return (end) => {
    const timer = setTimeout(end, ms);
    return () => clearTimeout(timer);
  };
}

export interface RelayOptions {
  /** Whose relay this is (lib/server/proxy/person-limits.ts personKey). */
  person: string;
  /** Relays one person may hold at once. */
  perPerson: number;
  lifetime: RelayLifetime;
  /** Tests pass their own; the console's shared one otherwise. */
  limiter?: InFlightLimiter;
}

/**
 * Takes the request itself, not only its signal: a Request's signal follows the one it was built with
 * through a weak reference, so once nothing holds the Request (the handler has returned its
 * streaming Response) a garbage collection silently stops the browser's abort from reaching the relay
 * (undici 6.24 on Node 20.20: the follower never fires after GC). Its slot and upstream would then
 * live on. The pump's closure holds the request until the relay ends.
 */
export async function relayPulse(
  client: KikwiflowClient,
  definitionId: string,
  request: Request,
  host: string,
  options: RelayOptions,
): Promise<Response> {
  // Next answers HEAD with this GET handler and never cancels the body: a relay opened for it would
  // hold its slot and the person's share until its lifetime ends. The headers, no relay.
  if (request.method === "HEAD") return new Response(null, { status: 200, headers: EVENT_STREAM_HEADERS });
  const signal = request.signal;
  const share = await (options.limiter ?? personLimiter()).acquire("pulse", options.person, options.perPerson);
  if (share === null) return tooManyInFlight("pulse", options.perPerson);
  if (active >= PULSE_RELAY_LIMIT) {
    share.release();
    return busy();
  }
  active++;
  let released = false;
  const upstream = new AbortController();
  const abort = () => upstream.abort();
  let disarm = () => {};
  const release = () => {
    if (!released) {
      released = true;
      active--;
      share.release();
      disarm();
    }
  };
  signal.addEventListener("abort", abort, { once: true });
  let first: PulseSnapshot;
  try {
    first = await client.getPulseSnapshot(definitionId, { signal: upstream.signal });
  } catch (error) {
    signal.removeEventListener("abort", abort);
    release();
    return kikwiflowFailure(error, host, "definition");
  }
  const encoder = new TextEncoder();
  let expired = false;
  const pump = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    disarm = options.lifetime(() => {
      expired = true;
      upstream.abort();
    });
    try {
      controller.enqueue(encoder.encode(sseFrame(first)));
      for await (const snapshot of client.pulseStream(definitionId, { signal: upstream.signal })) {
        // The abort also ends the read; checked here too so a frame already on its way cannot keep
        // a relay nobody reads (and its slot) alive.
        if (upstream.signal.aborted) break;
        controller.enqueue(encoder.encode(sseFrame(snapshot)));
      }
      if (!expired) throw new Error("the engine ended the pulse stream");
      controller.close();
    } catch (error) {
      // Upstream gone, a malformed frame or the browser left: error the stream, so the browser's
      // state machine shows "reconnecting" and backs off; only the lifetime's end is a clean close.
      upstream.abort();
      try {
        if (expired) controller.close();
        else controller.error(error);
      } catch {
        // Already cancelled by the browser.
      }
    } finally {
      // Through `request`, not `signal`: this closure is what holds the request until the end.
      request.signal.removeEventListener("abort", abort);
      release();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Not awaited: start() must return for the first frame to reach the reader.
      void pump(controller);
    },
    cancel() {
      upstream.abort();
    },
  });
  return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}
