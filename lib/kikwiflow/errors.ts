/**
 * Typed failures of the Kikwiflow client, mirroring lib/dw/errors.ts: every error carries `reason`, a
 * closed union the UI switches on, and `code`, the engine's own `{code, message}` code when one arrived.
 * Browser-safe.
 *
 * What the engine answers (kikwi-management-rest/.../exception/KikwiflowExceptionHandler.java@3b62f35):
 * 404 NOT_FOUND (unknown instance/incident/task), 409 CONFLICT (any IllegalStateException, e.g. retrying
 * an incident that is not OPEN), 400 BAD_REQUEST (IllegalArgumentException, e.g. an orderBy outside the
 * whitelist), 501 NOT_IMPLEMENTED (unsupported filter combinations); anything else is Spring's own 500
 * `{timestamp, status, error, path}`. A route the engine does not serve is Spring's 404/405 without a
 * `code` — told apart from a missing resource.
 */

import { isRecord, str, TypedHttpError, type TypedHttpErrorInit, type UnavailableCause } from "../http/typed-errors";

export type KikwiflowErrorReason =
  | "not_found"
  | "route_not_found"
  | "conflict"
  | "bad_request"
  | "not_implemented"
  | "server_error"
  | "server_unavailable"
  | "malformed_response"
  | "invalid_argument"
  | "aborted";

export interface KikwiflowErrorInit extends TypedHttpErrorInit {
  code?: string | null;
}

export abstract class KikwiflowError extends TypedHttpError<KikwiflowErrorReason> {
  /** The engine's `code` (NOT_FOUND, CONFLICT, …), when the body was its error envelope. */
  readonly code: string | null;

  constructor(message: string, init: KikwiflowErrorInit = {}) {
    super(message, init);
    this.code = init.code ?? null;
  }
}

/** 404 NOT_FOUND: no such instance, incident or task — finished instances are deleted from the live store. */
export class KikwiflowNotFoundError extends KikwiflowError {
  readonly reason = "not_found" as const;
}

/** Spring's 404/405 without the engine's envelope: this engine does not serve the route (older version, REST module off). */
export class KikwiflowRouteNotFoundError extends KikwiflowError {
  readonly reason = "route_not_found" as const;
}

/** 409 CONFLICT: the engine refused the state change (e.g. "Only OPEN incidents can be retried."). */
export class KikwiflowConflictError extends KikwiflowError {
  readonly reason = "conflict" as const;
}

/** 400 (and other 4xx): the request cannot be served as sent. */
export class KikwiflowBadRequestError extends KikwiflowError {
  readonly reason = "bad_request" as const;
}

/** 501 NOT_IMPLEMENTED: the engine lacks this query combination. */
export class KikwiflowNotImplementedError extends KikwiflowError {
  readonly reason = "not_implemented" as const;
}

/** 500: the engine failed while answering (Spring's default error body). */
export class KikwiflowServerError extends KikwiflowError {
  readonly reason = "server_error" as const;
}

/** Rejected before sending: the argument cannot be expressed on the wire (a path id of `.` or `..`). */
export class KikwiflowInvalidArgumentError extends KikwiflowError {
  readonly reason = "invalid_argument" as const;
}

export type KikwiflowUnavailableCause = UnavailableCause;

/** The engine could not be reached or a gateway in front of it failed: network, timeout, 502/503/504, 429. */
export class KikwiflowUnavailableError extends KikwiflowError {
  readonly reason = "server_unavailable" as const;
  readonly unavailableCause: KikwiflowUnavailableCause;

  constructor(message: string, init: KikwiflowErrorInit & { unavailableCause: KikwiflowUnavailableCause }) {
    super(message, init);
    this.unavailableCause = init.unavailableCause;
  }
}

/** The body was not JSON or did not match the schema; `issuePath` names the first offending field. */
export class KikwiflowMalformedResponseError extends KikwiflowError {
  readonly reason = "malformed_response" as const;
  readonly issuePath: string;

  constructor(message: string, init: KikwiflowErrorInit & { issuePath: string }) {
    super(message, init);
    this.issuePath = init.issuePath;
  }
}

/** The caller's own AbortSignal fired. */
export class KikwiflowAbortedError extends KikwiflowError {
  readonly reason = "aborted" as const;
}

export function isKikwiflowError(value: unknown): value is KikwiflowError {
  return value instanceof KikwiflowError;
}

function envelopeOf(body: unknown): { code: string; message: string | null } | null {
  if (!isRecord(body)) return null;
  const code = str(body.code);
  return code === null ? null : { code, message: str(body.message) };
}

/** Spring's own error body names the status (`"error": "Internal Server Error"`) and the path. */
function springErrorOf(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const error = str(body.error);
  const path = str(body.path);
  if (error === null) return null;
  return path === null ? error : `${error} (${path})`;
}

/** Maps a non-success answer to its typed error; `body` is the parsed JSON, or undefined. */
export function kikwiflowErrorFromResponse(status: number, body: unknown): KikwiflowError {
  const envelope = envelopeOf(body);
  const init: KikwiflowErrorInit = { httpStatus: status, code: envelope?.code ?? null, body };
  const message = envelope?.message ?? envelope?.code ?? springErrorOf(body) ?? `HTTP ${status}`;
  if (status === 404) {
    return envelope ? new KikwiflowNotFoundError(message, init) : new KikwiflowRouteNotFoundError(message, init);
  }
  if (status === 405) return new KikwiflowRouteNotFoundError(message, init);
  if (status === 409) return new KikwiflowConflictError(message, init);
  if (status === 429) return new KikwiflowUnavailableError(message, { ...init, unavailableCause: "throttled" });
  if (status === 501) return new KikwiflowNotImplementedError(message, init);
  if (status === 502 || status === 503 || status === 504) {
    return new KikwiflowUnavailableError(message, { ...init, unavailableCause: "http_5xx" });
  }
  if (status >= 500) return new KikwiflowServerError(message, init);
  return new KikwiflowBadRequestError(message, init);
}
