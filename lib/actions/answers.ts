import type { CommandResult } from "@/lib/dw/transport";
import type { CommandResponse, StartResponse } from "@/lib/dw/schemas-workflows";
import type { CancellationResult } from "@/lib/dw/commands";
import type { ActionAnswer } from "./contract";

/** The server's command answers, reduced to the {@link ActionAnswer} the screens show and confirm against. */

export function fromCommand(action: string, result: CommandResult<CommandResponse>, workflowId: string): ActionAnswer {
  const body = result.body;
  return {
    result: result.kind,
    httpStatus: result.httpStatus,
    action,
    workflowId: body.workflow_id ?? workflowId,
    runId: body.run_id ?? body.resolved_run_id ?? null,
    commandId: body.command_id ?? null,
    outcome: body.outcome ?? null,
    rejectionReason: body.rejection_reason ?? (result.kind === "rejected" ? (body.reason ?? null) : null),
    message: typeof body.message === "string" ? body.message : null,
  };
}

export function fromStart(result: CommandResult<StartResponse>, workflowId: string): ActionAnswer {
  const body = result.body;
  return {
    result: result.kind,
    httpStatus: result.httpStatus,
    action: "startAgain",
    workflowId: body.workflow_id ?? workflowId,
    runId: body.run_id ?? null,
    commandId: null,
    outcome: body.outcome ?? null,
    rejectionReason:
      result.kind === "rejected" ? (typeof body.reason === "string" ? body.reason : (body.outcome ?? null)) : null,
    message: typeof body.message === "string" ? body.message : null,
  };
}

/**
 * A cancellation receipt: its request id is the command id the request's history events carry
 * (`workflow_command_id`), so the confirmation finds them by it; a second request answers the
 * first one's receipt, which reads as already requested.
 */
export function fromCancellation(result: CancellationResult, workflowId: string, runId: string): ActionAnswer {
  const base = { httpStatus: result.httpStatus, action: "requestCancellation", workflowId };
  if (result.kind === "rejected") {
    const { reason, message } = result.body;
    return { ...base, result: "rejected", runId, commandId: null, outcome: null, rejectionReason: reason, message };
  }
  const body = result.body;
  return {
    ...base,
    result: "accepted",
    workflowId: body.workflow_id,
    runId: body.run_id,
    commandId: body.cancellation_request.request_id,
    outcome: body.duplicate ? "cancellation_already_requested" : "cancellation_requested",
    rejectionReason: null,
    message: null,
  };
}

/** The console's own refusal of an instance-targeted command aimed from a historical run page. */
export function notCurrentAnswer(action: string, workflowId: string, currentRunId: string | null): ActionAnswer {
  return {
    result: "rejected",
    httpStatus: 409,
    action,
    workflowId,
    runId: currentRunId,
    commandId: null,
    outcome: "rejected_not_current",
    rejectionReason: "selected_run_not_current",
    message: null,
  };
}
