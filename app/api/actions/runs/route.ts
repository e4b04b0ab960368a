import type { NextRequest } from "next/server";
import type { CommandResult, DwClient } from "@/lib/dw/client";
import type { CommandResponse, StartResponse } from "@/lib/dw/schemas-workflows";
import type { ActionAnswer, RunActionRequest } from "@/components/actions/action-api";
import { runActionRequestSchema } from "@/app/api/actions/_shared/schemas";
import { guardAction } from "@/lib/server/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy";
import { requestNamespace } from "@/lib/server/request-namespace";
import { getConfig } from "@/lib/server/config";
import { getDwClient } from "@/lib/server/dw";

/**
 * `POST /api/actions/runs`: one run command (repair, cancel, terminate, archive, signal, start
 * again), after the guard. The answer relays the server's status: 200/202 accepted, 409/404/422
 * rejected with the reason, so the screen can say what happened in words.
 */

function fromCommand(action: string, result: CommandResult<CommandResponse>, workflowId: string): ActionAnswer {
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

function fromStart(result: CommandResult<StartResponse>, workflowId: string): ActionAnswer {
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

/** Repair and archive reach only the instance's current run (server-api §2.7); refuse to aim them from a historical page. */
async function notCurrent(client: DwClient, request: RunActionRequest): Promise<ActionAnswer | null> {
  const current = await client.describeWorkflow(request.workflowId);
  if (current.run_id === request.runId) return null;
  return {
    result: "rejected",
    httpStatus: 409,
    action: request.action,
    workflowId: request.workflowId,
    runId: current.run_id,
    commandId: null,
    outcome: "rejected_not_current",
    rejectionReason: "selected_run_not_current",
    message: null,
  };
}

async function send(client: DwClient, request: RunActionRequest): Promise<ActionAnswer> {
  const { workflowId, runId, requestId } = request;
  switch (request.action) {
    case "repair":
      return (
        (await notCurrent(client, request)) ??
        fromCommand("repair", await client.repairWorkflow(workflowId, { requestId }), workflowId)
      );
    case "archive":
      return (
        (await notCurrent(client, request)) ??
        fromCommand(
          "archive",
          await client.archiveWorkflow(workflowId, { requestId, reason: request.reason || undefined }),
          workflowId,
        )
      );
    case "cancel":
      return fromCommand(
        "cancel",
        await client.cancelWorkflow(workflowId, { runId, requestId, reason: request.reason }),
        workflowId,
      );
    case "terminate":
      return fromCommand(
        "terminate",
        await client.terminateWorkflow(workflowId, { runId, requestId, reason: request.reason }),
        workflowId,
      );
    case "signal":
      return fromCommand(
        "signal",
        await client.signalWorkflow(workflowId, request.signalName, { runId, requestId, input: request.input }),
        workflowId,
      );
    case "startAgain": {
      // The input is read here, from the server, so the new run gets exactly the old run's arguments.
      const old = await client.describeRun(workflowId, runId);
      const started = await client.startWorkflow({
        workflow_type: old.workflow_type,
        workflow_id: request.newWorkflowId,
        task_queue: old.task_queue ?? undefined,
        input: old.input_envelope ?? undefined,
        business_key: old.business_key ?? undefined,
        execution_timeout_seconds: old.execution_timeout_seconds ?? undefined,
        run_timeout_seconds: old.run_timeout_seconds ?? undefined,
        duplicate_policy: "fail",
      });
      return fromStart(started, request.newWorkflowId);
    }
  }
}

export async function POST(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "operator");
  if (refused) return refusal(refused);

  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = runActionRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return jsonAnswer(
      {
        reason: "invalid_request",
        message: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`,
        httpStatus: 400,
      },
      400,
    );
  }

  // The namespace the sending tab shows, never a cookie another tab may have changed since.
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const answer = await send(getDwClient(namespace), parsed.data);
    return jsonAnswer(answer, answer.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
