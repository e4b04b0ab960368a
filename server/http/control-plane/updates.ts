import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { commandResponse } from "../../engine/command-rows";
import { validationError } from "../../engine/errors";
import type { CommandRow } from "../../engine/rows";
import { UPDATE_COMPLETION_TIMEOUT_SECONDS } from "../../engine/update-waits";
import { updateFields, updateState } from "../../engine/updates";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, parseInput } from "./context";
import type { NameParams, RunNameParams } from "./workflow-routes";
import { cfg, commandRequest, inputField, operationName, requireCurrentRun, send, toEnvelope } from "./workflow-routes";

/**
 * Workflow updates: `POST /workflows/{id}/update/{name}` and `…/runs/{runId}/update/{name}`
 * (durable-workflow/server routes/api.php@11d35b7, `WorkflowController::update`), answered as
 * `DefaultWorkflowControlPlane::update` (workflow@8dc90d64) and `ControlPlaneResultMapper::update`.
 * `wait_for` defaults to accepted (202); completed holds the request until the update closes
 * (200, or 422 for a failed handler) or `wait_timeout_seconds` passes (202, `wait_timed_out`).
 */

const updateBody = z
  .object({
    input: inputField.nullable(),
    request_id: z.string().max(255).nullish(),
    wait_for: z.enum(["accepted", "completed"]).nullish(),
    wait_timeout_seconds: z.number().int().min(1).nullish(),
  })
  .loose();

/** `DefaultWorkflowControlPlane::updateStatus`. */
function updateHttpStatus(row: CommandRow, updateStatus: string): number {
  if (row.outcome === "rejected_unknown_update") return 404;
  if (row.outcome === "rejected_invalid_arguments") return 422;
  if (row.status === "rejected") return 409;
  if (row.outcome === "update_failed") return 422;
  return updateStatus === "accepted" ? 202 : 200;
}

/** `CommandResponse::payload` for an `UpdateResult`, after the mapper strips its internal keys. */
function updateBodyOf(
  row: CommandRow,
  state: ReturnType<typeof updateState>,
  wait: { for: string; timedOut: boolean; timeoutSeconds: number | null },
): Record<string, unknown> {
  const r = commandResponse(row);
  return {
    outcome: r.outcome,
    workflow_id: r.workflow_id,
    run_id: r.run_id,
    requested_run_id: r.requested_run_id,
    resolved_run_id: r.resolved_run_id,
    command_id: r.command_id,
    command_sequence: r.command_sequence,
    target_scope: r.target_scope,
    workflow_type: r.workflow_type,
    command_status: r.command_status,
    command_source: r.command_source,
    reason: row.status === "rejected" ? row.rejection_reason : null,
    rejection_reason: r.rejection_reason,
    validation_errors: [],
    ...updateFields(state),
    wait_for: wait.for,
    wait_timed_out: wait.timedOut,
    wait_timeout_seconds: wait.timeoutSeconds,
  };
}

async function update(deps: ControlPlaneDeps, request: FastifyRequest, name: string, runId: string | null) {
  const { id } = request.params as { id: string };
  parseInput(z.object({ name: operationName }), { name });
  const raw = (request.body ?? {}) as Record<string, unknown>;
  // `rejectLegacyUpdateFields`: the pre-v2 name of wait_for is refused, not read.
  if ("wait_policy" in raw)
    throw validationError({ wait_policy: ["The wait_policy field is not supported. Use wait_for."] });
  const b = parseInput(updateBody, raw);
  const waitFor = b.wait_for ?? "accepted";
  const timeoutSeconds = waitFor === "completed" ? (b.wait_timeout_seconds ?? UPDATE_COMPLETION_TIMEOUT_SECONDS) : null;
  const { engine } = deps;
  let row = engine.updateWorkflow({
    namespace: namespaceOf(request),
    workflow_id: id,
    run_id: runId,
    update_name: name,
    input: b.input == null ? null : toEnvelope(b.input),
    request_id: b.request_id ?? null,
    request: commandRequest(request),
  });
  let timedOut = false;
  if (waitFor === "completed" && row.status === "accepted" && row.workflow_run_id) {
    timedOut = await engine.updateWaits.wait(row.workflow_run_id, row.id, timeoutSeconds ?? 0, deps.shutdown);
    row = engine.db.prepare("SELECT * FROM workflow_commands WHERE id = ?").get(row.id) as CommandRow;
  }
  const state = updateState(engine, row);
  const body = updateBodyOf(row, state, { for: waitFor, timedOut, timeoutSeconds });
  return { status: updateHttpStatus(row, state.update_status), body };
}

export function registerUpdateRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  scope.post<NameParams>("/workflows/:id/update/:name", cfg("update"), async (request, reply) => {
    const r = await update(deps, request, request.params.name, null);
    return send(request, reply, r.status, r.body);
  });
  scope.post<RunNameParams>("/workflows/:id/runs/:runId/update/:name", cfg("update"), async (request, reply) => {
    requireCurrentRun(deps, namespaceOf(request), request.params.id, request.params.runId);
    const r = await update(deps, request, request.params.name, request.params.runId);
    return send(request, reply, r.status, r.body);
  });
}
