/**
 * Typed failures of the Durable Workflow client. Browser-safe.
 *
 * Every error carries `reason`, a closed client-side union the UI switches on to render a specific,
 * actionable state, and `serverReason`, the raw `reason` string of the server envelope (when one
 * arrived). A 409 command rejection is not an error: see `CommandResult` in client.ts.
 */

export type DwErrorReason =
  | "unauthorized"
  | "forbidden"
  | "namespace_not_found"
  | "instance_not_found"
  | "run_not_found"
  | "not_found"
  | "route_not_found"
  | "validation_failed"
  | "version_mismatch"
  | "payload_too_large"
  | "conflict"
  | "bad_request"
  | "invalid_argument"
  | "server_unavailable"
  | "malformed_response"
  | "aborted";

export interface DwErrorInit {
  httpStatus?: number | null;
  serverReason?: string | null;
  body?: unknown;
  cause?: unknown;
}

export abstract class DwError extends Error {
  abstract readonly reason: DwErrorReason;
  readonly httpStatus: number | null;
  readonly serverReason: string | null;
  /** The decoded error envelope, when the server sent JSON. */
  readonly body: unknown;

  constructor(message: string, init: DwErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.httpStatus = init.httpStatus ?? null;
    this.serverReason = init.serverReason ?? null;
    this.body = init.body;
  }
}

/** 401: missing or invalid credential. */
export class DwUnauthorizedError extends DwError {
  readonly reason = "unauthorized" as const;
}

/** 403: the token's role may not use this route (system routes are admin-only). */
export class DwForbiddenError extends DwError {
  readonly reason = "forbidden" as const;
  readonly role: string | null;
  readonly allowedRoles: string[];

  constructor(message: string, init: DwErrorInit & { role?: string | null; allowedRoles?: string[] } = {}) {
    super(message, init);
    this.role = init.role ?? null;
    this.allowedRoles = init.allowedRoles ?? [];
  }
}

/** 404 `namespace_not_found`: the `X-Namespace` names no registered namespace. */
export class DwNamespaceNotFoundError extends DwError {
  readonly reason = "namespace_not_found" as const;
  readonly namespace: string | null;
  readonly remediation: string | null;

  constructor(message: string, init: DwErrorInit & { namespace?: string | null; remediation?: string | null } = {}) {
    super(message, init);
    this.namespace = init.namespace ?? null;
    this.remediation = init.remediation ?? null;
  }
}

/** 404 `instance_not_found`: no workflow with this id in the namespace. */
export class DwInstanceNotFoundError extends DwError {
  readonly reason = "instance_not_found" as const;
  readonly workflowId: string | null;

  constructor(message: string, init: DwErrorInit & { workflowId?: string | null } = {}) {
    super(message, init);
    this.workflowId = init.workflowId ?? null;
  }
}

/** 404 `run_not_found`: the workflow exists but has no such run. */
export class DwRunNotFoundError extends DwError {
  readonly reason = "run_not_found" as const;
  readonly workflowId: string | null;
  readonly runId: string | null;

  constructor(message: string, init: DwErrorInit & { workflowId?: string | null; runId?: string | null } = {}) {
    super(message, init);
    this.workflowId = init.workflowId ?? null;
    this.runId = init.runId ?? null;
  }
}

/** Other 404s naming a missing resource (`worker_not_found`, `schedule_not_found`, …). */
export class DwNotFoundError extends DwError {
  readonly reason = "not_found" as const;
}

/**
 * 404 `not_found` for an unknown route, or 405: the server does not implement this route
 * (newer surface on an older server). Feature detection treats it as "absent", not as a failure.
 */
export class DwRouteNotFoundError extends DwError {
  readonly reason = "route_not_found" as const;
}

/** 422: request rejected by validation. `errors` maps field → messages. */
export class DwValidationError extends DwError {
  readonly reason = "validation_failed" as const;
  readonly errors: Record<string, string[]>;

  constructor(message: string, init: DwErrorInit & { errors?: Record<string, string[]> } = {}) {
    super(message, init);
    this.errors = init.errors ?? {};
  }
}

/** 400 `missing_control_plane_version` / `unsupported_control_plane_version`. */
export class DwVersionMismatchError extends DwError {
  readonly reason = "version_mismatch" as const;
  readonly supportedVersion: string | null;
  readonly requestedVersion: string | null;

  constructor(
    message: string,
    init: DwErrorInit & { supportedVersion?: string | null; requestedVersion?: string | null } = {},
  ) {
    super(message, init);
    this.supportedVersion = init.supportedVersion ?? null;
    this.requestedVersion = init.requestedVersion ?? null;
  }
}

/** 413: request body larger than the server's `max_payload_bytes`. */
export class DwPayloadTooLargeError extends DwError {
  readonly reason = "payload_too_large" as const;
  readonly limit: number | null;

  constructor(message: string, init: DwErrorInit & { limit?: number | null } = {}) {
    super(message, init);
    this.limit = init.limit ?? null;
  }
}

/** 409 that is not a command rejection (`historical_run_command_rejected`, `workflow_id_reserved_in_namespace`, …). */
export class DwConflictError extends DwError {
  readonly reason = "conflict" as const;
}

/** Other 4xx the caller can fix (malformed JSON body, unsupported media type, …). */
export class DwBadRequestError extends DwError {
  readonly reason = "bad_request" as const;
}

/** Rejected before sending: the argument cannot be expressed on the wire (e.g. a path id of `.` or `..`). */
export class DwInvalidArgumentError extends DwError {
  readonly reason = "invalid_argument" as const;
}

export type DwUnavailableCause = "network" | "timeout" | "http_5xx" | "throttled";

/** The server could not be reached or could not answer: network failure, timeout, 5xx, 429. */
export class DwServerUnavailableError extends DwError {
  readonly reason = "server_unavailable" as const;
  readonly unavailableCause: DwUnavailableCause;

  constructor(message: string, init: DwErrorInit & { unavailableCause: DwUnavailableCause }) {
    super(message, init);
    this.unavailableCause = init.unavailableCause;
  }
}

/** The response was not JSON, or did not match the contract. `issuePath` names the first offending field. */
export class DwMalformedResponseError extends DwError {
  readonly reason = "malformed_response" as const;
  readonly issuePath: string;

  constructor(message: string, init: DwErrorInit & { issuePath: string }) {
    super(message, init);
    this.issuePath = init.issuePath;
  }
}

/** The caller's own AbortSignal fired (navigation, unmount, stop tailing). */
export class DwAbortedError extends DwError {
  readonly reason = "aborted" as const;
}

export function isDwError(value: unknown): value is DwError {
  return value instanceof DwError;
}
