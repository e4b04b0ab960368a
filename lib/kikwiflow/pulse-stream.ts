import { issuePathOf } from "../dw/client";
import {
  KikwiflowAbortedError,
  KikwiflowMalformedResponseError,
  KikwiflowUnavailableError,
  kikwiflowErrorFromResponse,
} from "./errors";
import { type PulseSnapshot, pulseSnapshotSchema } from "./schemas";
import { sseData } from "./sse";

// In a zod-free module so the browser can read the console's own relay with it.
export { sseData } from "./sse";

/**
 * `GET /pulse/process-definition/{id}/snapshot/stream`: Server-Sent Events, one unnamed `data:` frame
 * per interval (`kikwiflow.pulse.sse-endpoints.interval`, default 5 s) carrying the same KKFProcessStats
 * as the plain snapshot (kikwi-management-rest/.../controller/stats/StatsSSEQueryController.java@3b62f35;
 * the emitter never times out). Browser-safe: fetch and streams only.
 */

export interface PulseStreamRequest {
  /** Full URL of the stream. */
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  /** Bound on the wait for the response headers; the stream itself is open-ended. */
  connectTimeoutMs: number;
  signal?: AbortSignal;
}

export async function* pulseSnapshots(request: PulseStreamRequest): AsyncGenerator<PulseSnapshot> {
  // One controller for the caller's abort and the connect timeout, linked by a plain listener: the
  // stream lives for minutes, and signal-following helpers (AbortSignal.any, a Request's signal)
  // hold their links weakly; a listener on the caller's signal cannot be collected before it.
  const connect = new AbortController();
  const timer = setTimeout(() => connect.abort(), request.connectTimeoutMs);
  const onAbort = () => connect.abort(request.signal?.reason);
  if (request.signal?.aborted) onAbort();
  else request.signal?.addEventListener("abort", onAbort, { once: true });
  const signal = connect.signal;
  try {
    yield* readPulse(request, signal, timer);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

async function* readPulse(
  request: PulseStreamRequest,
  signal: AbortSignal,
  timer: ReturnType<typeof setTimeout>,
): AsyncGenerator<PulseSnapshot> {
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      headers: { ...request.headers, Accept: "text/event-stream" },
      signal,
    });
  } catch (error) {
    if (request.signal?.aborted) throw new KikwiflowAbortedError("stream aborted by caller", { cause: error });
    const timedOut = signal.aborted;
    throw new KikwiflowUnavailableError(
      timedOut ? `no answer within ${request.connectTimeoutMs} ms` : "cannot reach the Kikwiflow engine",
      { unavailableCause: timedOut ? "timeout" : "network", cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => "");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    throw kikwiflowErrorFromResponse(response.status, body);
  }
  try {
    for await (const data of sseData(response.body)) {
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch (cause) {
        throw new KikwiflowMalformedResponseError("pulse stream: event is not JSON", { issuePath: "$", cause });
      }
      const parsed = pulseSnapshotSchema.safeParse(json);
      if (!parsed.success) {
        const issuePath = issuePathOf(parsed.error.issues[0]);
        throw new KikwiflowMalformedResponseError(`pulse stream: unexpected snapshot at ${issuePath}`, {
          issuePath,
          body: json,
          cause: parsed.error,
        });
      }
      yield parsed.data;
    }
  } catch (error) {
    if (request.signal?.aborted) throw new KikwiflowAbortedError("stream aborted by caller", { cause: error });
    throw error;
  }
}
