/**
 * Typed failures of the Durable Workflow client. Browser-safe.
 *
 * Every error carries `reason`, a closed client-side union the UI switches on to render a specific,
 * actionable state, and `serverReason`, the raw `reason` string of the server envelope (when one
 * arrived). A 409 command rejection is not an error: see `CommandResult` in client.ts.
 */

import { isRecord, str, TypedHttpError, type TypedHttpErrorInit, type UnavailableCause } from "../http/typed-errors";

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

export interface DwErrorInit extends TypedHttpErrorInit {
  serverReason?: string | null;
}

export abstract class DwError extends TypedHttpError<DwErrorReason> {
  readonly serverReason: string | null;

  constructor(message: string, init: DwErrorInit = {}) {
    super(message, init);
    this.serverReason = init.serverReason ?? null;
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

export type DwUnavailableCause = UnavailableCause;

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

/**
 * The console's read proxy validates every server body it relays; a body that breaks the contract
 * is answered with 502 and this reason (plus `issue_path`), so the browser still sees a
 * malformed-response error without validating again.
 */
export const MALFORMED_UPSTREAM_REASON = "malformed_response";

function stringArrayMap(value: unknown): Record<string, string[]> {
  if (!isRecord(value)) return {};
  const out: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(value)) {
    out[key] = Array.isArray(messages) ? messages.filter((m): m is string => typeof m === "string") : [];
  }
  return out;
}

/**
 * Map a non-success HTTP answer to its typed error. Exported so a same-origin proxy can rebuild
 * the same error from a relayed status and body. Lives here, beside the classes and away from the
 * schemas, so browser bundles can map errors without pulling zod in.
 */
export function errorFromResponse(status: number, body: unknown): DwError {
  const envelope = isRecord(body) ? body : {};
  const serverReason = str(envelope.reason);
  const message = str(envelope.message) ?? str(envelope.error) ?? `HTTP ${status}`;
  const init = { httpStatus: status, serverReason, body };

  if (status === 401) return new DwUnauthorizedError(message, init);
  if (status === 403) {
    const allowed = Array.isArray(envelope.allowed_roles)
      ? envelope.allowed_roles.filter((r): r is string => typeof r === "string")
      : [];
    return new DwForbiddenError(message, { ...init, role: str(envelope.role), allowedRoles: allowed });
  }
  if (status === 404) {
    switch (serverReason) {
      case "namespace_not_found":
        return new DwNamespaceNotFoundError(message, {
          ...init,
          namespace: str(envelope.namespace),
          remediation: str(envelope.remediation),
        });
      case "instance_not_found":
        return new DwInstanceNotFoundError(message, { ...init, workflowId: str(envelope.workflow_id) });
      case "run_not_found":
        return new DwRunNotFoundError(message, {
          ...init,
          workflowId: str(envelope.workflow_id),
          runId: str(envelope.run_id),
        });
      case null:
      case "not_found":
        return new DwRouteNotFoundError(message, init);
      default:
        return new DwNotFoundError(message, init);
    }
  }
  if (status === 405) return new DwRouteNotFoundError(message, init);
  if (
    status === 400 &&
    (serverReason === "missing_control_plane_version" || serverReason === "unsupported_control_plane_version")
  ) {
    return new DwVersionMismatchError(message, {
      ...init,
      supportedVersion: str(envelope.supported_version),
      requestedVersion: str(envelope.requested_version),
    });
  }
  if (status === 409) return new DwConflictError(message, init);
  if (status === 413) {
    return new DwPayloadTooLargeError(message, {
      ...init,
      limit: typeof envelope.limit === "number" ? envelope.limit : null,
    });
  }
  if (status === 422) {
    const errors = envelope.errors ?? envelope.validation_errors;
    return new DwValidationError(message, { ...init, errors: stringArrayMap(errors) });
  }
  if (status === 502 && serverReason === MALFORMED_UPSTREAM_REASON) {
    return new DwMalformedResponseError(message, { ...init, issuePath: str(envelope.issue_path) ?? "$" });
  }
  if (status === 429) return new DwServerUnavailableError(message, { ...init, unavailableCause: "throttled" });
  if (status >= 500) return new DwServerUnavailableError(message, { ...init, unavailableCause: "http_5xx" });
  return new DwBadRequestError(message, init);
}
