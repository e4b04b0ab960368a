import * as z from "zod";
import type { DwCommandClient } from "@/lib/dw/commands";
import type { UpdateResponse } from "@/lib/dw/schemas-updates";
import type { CommandResult } from "@/lib/dw/transport";
import type { UpdateActionAnswer, UpdateActionRequest } from "./update-action";
import { UPDATE_NAME_MAX } from "./update-action";
import { signalInput, target } from "./schemas";

/**
 * The server half of sending an update (update-action.ts is the browser's): the schema the handler
 * parses the body with, and the call. A refusal (404 unknown_update, 409 run_not_active, 422 a failed
 * handler) is an answer; an unreachable server, an unknown workflow or a request-id conflict throws.
 */

export const updateActionSchema = z.object({
  ...target,
  updateName: z.string().trim().min(1).max(UPDATE_NAME_MAX),
  input: signalInput,
  waitFor: z.enum(["accepted", "completed"]),
}) satisfies z.ZodType<UpdateActionRequest>;

export type ParsedUpdate = { ok: true; request: UpdateActionRequest } | { ok: false; message: string };

export function parseUpdateAction(raw: unknown): ParsedUpdate {
  const parsed = updateActionSchema.safeParse(raw);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}` };
}

/** The server's update answer reduced to what the tab shows (fixtures: lib/dw/fixtures/update-*.json). */
export function fromUpdate(result: CommandResult<UpdateResponse>, request: UpdateActionRequest): UpdateActionAnswer {
  const body = result.body;
  return {
    result: result.kind,
    httpStatus: result.httpStatus,
    workflowId: body.workflow_id,
    runId: body.run_id ?? body.resolved_run_id ?? null,
    commandId: body.command_id ?? null,
    updateId: body.update_id ?? null,
    updateName: body.update_name ?? request.updateName,
    outcome: body.outcome ?? null,
    updateStatus: body.update_status ?? null,
    waitFor: body.wait_for ?? null,
    waitTimedOut: body.wait_timed_out === true,
    rejectionReason: body.rejection_reason ?? (result.kind === "rejected" ? (body.reason ?? null) : null),
    failureMessage: body.failure_message ?? null,
  };
}

/** Run-targeted: the update goes to the run the page shows, never to a newer one the instance moved to. */
export async function sendUpdate(client: DwCommandClient, request: UpdateActionRequest): Promise<UpdateActionAnswer> {
  const answer = await client.updateWorkflow(request.workflowId, request.updateName, {
    runId: request.runId,
    requestId: request.requestId,
    input: request.input.length > 0 ? request.input : undefined,
    waitFor: request.waitFor,
  });
  return fromUpdate(answer, request);
}
