/**
 * The one way both engines' clients send a JSON request (lib/dw/transport.ts, lib/kikwiflow/client.ts):
 * a per-request timeout joined with the caller's AbortSignal, the body read as text and parsed as JSON
 * when it is JSON. Browser-safe and free of zod; each engine names its own failures through
 * {@link SendFailures} and keeps its own error-body decoding.
 */

/** What came back: the status and the parsed body (`isJson` false when it was empty or not JSON). */
export interface RawResponse {
  status: number;
  json: unknown;
  /** False when the body was empty or not JSON; `json` then holds the text (undefined when empty). */
  isJson: boolean;
}

/** What a decoder made of a JSON body: the typed value, or the first offending field. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; issuePath: string; message: string; cause?: unknown };
export type Decoder<T> = (json: unknown) => Decoded<T>;

/** How an engine names the three ways a request fails before any answer arrives. */
export interface SendFailures<E extends Error> {
  /** The caller's own signal fired. */
  aborted(cause: unknown): E;
  /** No answer within `timeoutMs`. */
  timedOut(timeoutMs: number, cause: unknown): E;
  /** The server could not be reached; `detail` is the underlying error's message. */
  unreachable(detail: string, cause: unknown): E;
}

export interface JsonRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Sent as JSON (with `Content-Type: application/json`) unless undefined. */
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function sendJsonRequest<E extends Error>(
  fetchImpl: typeof fetch,
  request: JsonRequest,
  failures: SendFailures<E>,
): Promise<RawResponse> {
  const { timeoutMs, signal: callerSignal } = request;
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers = payload === undefined ? request.headers : { ...request.headers, "Content-Type": "application/json" };
  const timeoutSignal = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeoutSignal]) : timeoutSignal;

  const failed = (error: unknown): E => {
    if (callerSignal?.aborted) return failures.aborted(error);
    if (timeoutSignal.aborted) return failures.timedOut(timeoutMs, error);
    return failures.unreachable(error instanceof Error ? error.message : String(error), error);
  };

  if (callerSignal?.aborted) throw failed(callerSignal.reason);
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(request.url, { method: request.method, headers, body: payload, signal });
    text = await response.text();
  } catch (error) {
    throw failed(error);
  }
  return parseBody(response.status, text);
}

function parseBody(status: number, text: string): RawResponse {
  if (text.trim() === "") return { status, json: undefined, isJson: false };
  try {
    return { status, json: JSON.parse(text) as unknown, isJson: true };
  } catch {
    return { status, json: text, isJson: false };
  }
}
