import type { UpdateActionAnswer } from "@/lib/actions/update-action";

/**
 * What the Updates tab says of one sent update (`run.updates.outcome.<kind>`): the server's answer
 * (lib/actions/update-action.ts) or the handler's error envelope, in words. Pure. The kinds follow
 * the answers of docs/contract.md "Updates" (lib/dw/fixtures/update-*.json): 202 accepted or a
 * completion wait that timed out, 200 completed, 422 a failed handler, 409 run_not_active, 404
 * unknown_update; a repeated request id for another update is 409 request_id_conflict.
 */
export type UpdateOutcomeKind =
  | "accepted"
  | "completed"
  | "failed"
  | "wait_timed_out"
  | "run_not_active"
  | "unknown_update"
  | "not_current_run"
  | "invalid_arguments"
  | "rejected"
  | "request_id_conflict"
  | "workflow_not_found"
  | "server_down"
  | "read_only"
  | "not_allowed"
  | "invalid_request"
  | "other";

export interface UpdateOutcome {
  kind: UpdateOutcomeKind;
  /** The update sent succeeded as far as the server said (accepted or completed); a refusal or failure is not. */
  ok: boolean;
  /** The server's own words (a failing handler's message, a refusal's message), shown as text. */
  detail: string | null;
  httpStatus: number | null;
}

const REJECTION: Readonly<Record<string, UpdateOutcomeKind>> = {
  run_not_active: "run_not_active",
  unknown_update: "unknown_update",
  selected_run_not_current: "not_current_run",
  invalid_arguments: "invalid_arguments",
};

/** An answer from the server: its update status, then the refusal's reason. */
export function answerOutcome(answer: UpdateActionAnswer): UpdateOutcome {
  const httpStatus = answer.httpStatus;
  if (answer.result === "accepted") {
    if (answer.updateStatus === "completed") return { kind: "completed", ok: true, detail: null, httpStatus };
    const kind = answer.waitTimedOut ? "wait_timed_out" : "accepted";
    return { kind, ok: true, detail: null, httpStatus };
  }
  if (answer.updateStatus === "failed" || answer.outcome === "update_failed")
    return { kind: "failed", ok: false, detail: answer.failureMessage, httpStatus };
  const reason = answer.rejectionReason ?? "";
  const kind =
    REJECTION[reason] ??
    (answer.outcome === "rejected_unknown_update"
      ? "unknown_update"
      : answer.outcome === "rejected_not_active"
        ? "run_not_active"
        : "rejected");
  return { kind, ok: false, detail: kind === "rejected" ? reason || answer.outcome : null, httpStatus };
}

/** The handler's error envelope: `{reason, serverReason?, message, httpStatus}` (app/api/actions/_shared/respond.ts). */
export interface UpdateErrorLike {
  reason: string;
  serverReason?: string | null;
  message: string;
  httpStatus?: number | null;
}

const ERROR_REASON: Readonly<Record<string, UpdateOutcomeKind>> = {
  request_id_conflict: "request_id_conflict",
  instance_not_found: "workflow_not_found",
  run_not_found: "workflow_not_found",
  not_found: "workflow_not_found",
  historical_run_command_rejected: "not_current_run",
  server_unavailable: "server_down",
  server_timeout: "server_down",
  console_unreachable: "server_down",
  read_only: "read_only",
  forbidden: "not_allowed",
  person_role: "not_allowed",
  role: "not_allowed",
  cross_origin: "not_allowed",
  unauthorized: "not_allowed",
  invalid_request: "invalid_request",
  validation_failed: "invalid_request",
};

export function errorOutcome(error: UpdateErrorLike): UpdateOutcome {
  const kind =
    (error.serverReason ? ERROR_REASON[error.serverReason] : undefined) ?? ERROR_REASON[error.reason] ?? "other";
  const detail = kind === "server_down" || kind === "read_only" ? null : error.message;
  return { kind, ok: false, detail, httpStatus: error.httpStatus ?? null };
}
