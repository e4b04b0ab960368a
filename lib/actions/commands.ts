import * as z from "zod";
import type { DwCommandClient } from "@/lib/dw/commands";
import type { ActionAnswer, RequestOf, RunActionName, RunActionRequest } from "./contract";
import { fromCancellation, fromCommand, fromStart, notCurrentAnswer } from "./answers";
import {
  cleanupTimeoutSeconds,
  newWorkflowId,
  reasonOptional,
  reasonRequired,
  signalInput,
  signalName,
  target,
} from "./schemas";

/**
 * The server half of each run action's descriptor (decision 0019): the zod schema the handler
 * parses the request with, and the Durable Workflow server call the request becomes. The browser
 * half (fields, form → request) is forms.ts; the two meet in the request type of contract.ts.
 * The client is passed in, so this stays pure of configuration and tokens (lib/server supplies it).
 */

export interface RunActionCommand<A extends RunActionName> {
  /** The handler's parse of this action's body: it never trusts the browser's shape. */
  schema: z.ZodType<RequestOf<A>>;
  /** Sends the command; a rejection is an answer (409/404/422), a failure to reach the server throws. */
  send(client: DwCommandClient, request: RequestOf<A>): Promise<ActionAnswer>;
}

const schemas = {
  repair: z.object({ action: z.literal("repair"), ...target }),
  requestCancellation: z.object({
    action: z.literal("requestCancellation"),
    ...target,
    cleanupTimeoutSeconds,
    reason: reasonOptional,
  }),
  cancel: z.object({ action: z.literal("cancel"), ...target, reason: reasonRequired }),
  terminate: z.object({ action: z.literal("terminate"), ...target, reason: reasonRequired }),
  archive: z.object({ action: z.literal("archive"), ...target, reason: reasonOptional }),
  signal: z.object({ action: z.literal("signal"), ...target, signalName, input: signalInput }),
  startAgain: z.object({ action: z.literal("startAgain"), ...target, newWorkflowId }),
};

/**
 * Repair and archive reach only the instance's current run (server-api §2.7): from a historical run
 * page they would hit another run, so the console refuses them itself.
 */
async function unlessNotCurrent(
  client: DwCommandClient,
  request: RunActionRequest,
  send: () => Promise<ActionAnswer>,
): Promise<ActionAnswer> {
  const current = await client.describeWorkflow(request.workflowId);
  return current.run_id === request.runId
    ? send()
    : notCurrentAnswer(request.action, request.workflowId, current.run_id);
}

/** Start again reads the old run's input from the server, so the new run gets exactly its arguments. */
async function startAgain(client: DwCommandClient, request: RequestOf<"startAgain">): Promise<ActionAnswer> {
  const old = await client.describeRun(request.workflowId, request.runId);
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

export const RUN_ACTION_COMMANDS: { readonly [A in RunActionName]: RunActionCommand<A> } = {
  repair: {
    schema: schemas.repair,
    send: (client, request) =>
      unlessNotCurrent(client, request, async () =>
        fromCommand(
          "repair",
          await client.repairWorkflow(request.workflowId, { requestId: request.requestId }),
          request.workflowId,
        ),
      ),
  },
  requestCancellation: {
    schema: schemas.requestCancellation,
    send: async (client, { workflowId, runId, reason, cleanupTimeoutSeconds }) =>
      fromCancellation(
        await client.requestWorkflowCancellation(workflowId, {
          runId,
          reason: reason || undefined,
          cleanupTimeoutSeconds,
        }),
        workflowId,
        runId,
      ),
  },
  cancel: {
    schema: schemas.cancel,
    send: async (client, { workflowId, runId, requestId, reason }) =>
      fromCommand("cancel", await client.cancelWorkflow(workflowId, { runId, requestId, reason }), workflowId),
  },
  terminate: {
    schema: schemas.terminate,
    send: async (client, { workflowId, runId, requestId, reason }) =>
      fromCommand("terminate", await client.terminateWorkflow(workflowId, { runId, requestId, reason }), workflowId),
  },
  archive: {
    schema: schemas.archive,
    send: (client, request) =>
      unlessNotCurrent(client, request, async () =>
        fromCommand(
          "archive",
          await client.archiveWorkflow(request.workflowId, {
            requestId: request.requestId,
            reason: request.reason || undefined,
          }),
          request.workflowId,
        ),
      ),
  },
  signal: {
    schema: schemas.signal,
    send: async (client, { workflowId, runId, requestId, signalName, input }) =>
      fromCommand(
        "signal",
        await client.signalWorkflow(workflowId, signalName, { runId, requestId, input }),
        workflowId,
      ),
  },
  startAgain: { schema: schemas.startAgain, send: startAgain },
};

/** Every action's schema in one discriminated union: what `POST /api/actions/runs` accepts. */
export const runActionRequestSchema = z.discriminatedUnion("action", [
  schemas.repair,
  schemas.requestCancellation,
  schemas.cancel,
  schemas.terminate,
  schemas.archive,
  schemas.signal,
  schemas.startAgain,
]) satisfies z.ZodType<RunActionRequest>;

export type ParsedRequest = { ok: true; request: RunActionRequest } | { ok: false; message: string };

/** The body, parsed; a refusal names the first bad field (`reason: A reason is required.`). */
export function parseRunActionRequest(raw: unknown): ParsedRequest {
  const parsed = runActionRequestSchema.safeParse(raw);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}` };
}

/** The request's descriptor sends it. */
export function sendRunCommand(client: DwCommandClient, request: RunActionRequest): Promise<ActionAnswer> {
  return sendWith(RUN_ACTION_COMMANDS[request.action] as RunActionCommand<typeof request.action>, client, request);
}

function sendWith<A extends RunActionName>(
  command: RunActionCommand<A>,
  client: DwCommandClient,
  request: RequestOf<A>,
): Promise<ActionAnswer> {
  return command.send(client, request);
}
