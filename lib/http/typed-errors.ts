/**
 * The core both engines' typed errors share (lib/dw/errors.ts, lib/kikwiflow/errors.ts). Browser-safe
 * and free of zod: each engine's error module builds on it and keeps its own error-body decoding.
 */

export interface TypedHttpErrorInit {
  httpStatus?: number | null;
  body?: unknown;
  cause?: unknown;
}

/** A failure with a closed `reason` the UI switches on, the HTTP status (when one arrived) and the body. */
export abstract class TypedHttpError<Reason extends string> extends Error {
  abstract readonly reason: Reason;
  readonly httpStatus: number | null;
  /** The decoded body, when the server sent JSON. */
  readonly body: unknown;

  constructor(message: string, init: TypedHttpErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.httpStatus = init.httpStatus ?? null;
    this.body = init.body;
  }
}

/** Why a server could not answer: unreachable, too slow, a 5xx, or a 429. */
export type UnavailableCause = "network" | "timeout" | "http_5xx" | "throttled";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
