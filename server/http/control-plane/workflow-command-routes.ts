import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { CommandResult } from "../../engine";
import type { OperatorCommandResult } from "../../engine/repair";
import { archiveWorkflow, repairWorkflow } from "../../engine/repair";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, parseInput } from "./context";
import type { IdParams, NameParams, RunNameParams, RunParams } from "./workflow-routes";
import { cfg, commandRequest, inputField, operationName, requireCurrentRun, send, toEnvelope } from "./workflow-routes";

/**
 * The control plane's workflow commands after start: cancel and terminate, signals, and the operator's
 * repair and archive, each on the instance or on its current run, answered as `ControlPlaneResultMapper` does.
 */

const reasonBody = z
  .object({ reason: z.string().max(1000).nullish(), request_id: z.string().max(255).nullish() })
  .loose();
const repairBody = z.object({ request_id: z.string().max(255).nullish() }).loose();
const signalBody = z.object({ input: inputField, request_id: z.string().max(255).nullish() }).loose();

/** The command response after `ControlPlaneResultMapper` (status, workflow_instance_id, … stripped). */
function commandBody(r: CommandResult | OperatorCommandResult): Record<string, unknown> {
  const body: Record<string, unknown> = {
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
    reason: r.reason,
    rejection_reason: r.rejection_reason,
    validation_errors: [],
  };
  if ("signal_name" in r && r.signal_name !== undefined) body.signal_name = r.signal_name;
  if ("validation_errors" in r && r.validation_errors) body.validation_errors = r.validation_errors;
  // A rejected command adds its message and contract diagnostics (`CommandResponse::payload`, workflow@8dc90d6).
  for (const key of [
    "message",
    "command_contract_source",
    "command_contract_backfill_needed",
    "command_contract_backfill_available",
    "declared_signals",
    "signal_admission",
  ] as const) {
    const value = (r as CommandResult)[key];
    if (value !== undefined && value !== null) body[key] = value;
  }
  return body;
}

/**
 * `DefaultWorkflowControlPlane::signalStatus` (workflow@8dc90d6), which the server's
 * ControlPlaneResultMapper answers with (server@11d35b7): an undeclared signal is 404, invalid
 * arguments 422, another rejection 409, an accepted signal 202.
 */
function signalStatus(r: CommandResult): number {
  if (r.outcome === "rejected_unknown_signal") return 404;
  if (r.outcome === "rejected_invalid_arguments") return 422;
  return r.command_status === "accepted" ? 202 : 409;
}

/** A run-targeted command is answered with its status, or 409 when the command was not accepted. */
const commandStatus = (r: { command_status: string }, accepted: number): number =>
  r.command_status === "accepted" ? accepted : 409;

/** Cancel and terminate, on the instance or on its current run. */
function registerCloseRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  for (const kind of ["cancel", "terminate"] as const) {
    const run = (request: FastifyRequest, runId: string | null) => {
      const params = request.params as { id: string };
      const b = parseInput(reasonBody, request.body);
      const input = {
        namespace: namespaceOf(request),
        workflow_id: params.id,
        run_id: runId,
        reason: b.reason ?? null,
        request_id: b.request_id ?? null,
        request: commandRequest(request),
      };
      return kind === "cancel" ? engine.cancelWorkflow(input) : engine.terminateWorkflow(input);
    };
    scope.post<IdParams>(`/workflows/:id/${kind}`, cfg(kind), async (request, reply) => {
      const r = run(request, null);
      return send(request, reply, commandStatus(r, 200), commandBody(r));
    });
    scope.post<RunParams>(`/workflows/:id/runs/:runId/${kind}`, cfg(kind), async (request, reply) => {
      requireCurrentRun(deps, namespaceOf(request), request.params.id, request.params.runId);
      const r = run(request, request.params.runId);
      return send(request, reply, commandStatus(r, 200), commandBody(r));
    });
  }
}

/** Signals by name, on the instance or on its current run. */
function registerSignalRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  const signal = (request: FastifyRequest, name: string, runId: string | null): CommandResult => {
    const params = request.params as { id: string };
    parseInput(z.object({ name: operationName }), { name });
    const b = parseInput(signalBody, request.body);
    return engine.signalWorkflow({
      namespace: namespaceOf(request),
      workflow_id: params.id,
      run_id: runId,
      signal_name: name,
      input: toEnvelope(b.input),
      request_id: b.request_id ?? null,
      request: commandRequest(request),
    });
  };
  scope.post<NameParams>("/workflows/:id/signal/:name", cfg("signal"), async (request, reply) => {
    const r = signal(request, request.params.name, null);
    return send(request, reply, signalStatus(r), commandBody(r));
  });
  scope.post<RunNameParams>("/workflows/:id/runs/:runId/signal/:name", cfg("signal"), async (request, reply) => {
    requireCurrentRun(deps, namespaceOf(request), request.params.id, request.params.runId);
    const r = signal(request, request.params.name, request.params.runId);
    return send(request, reply, signalStatus(r), commandBody(r));
  });
}

/** The operator commands: repair (redispatch what is stuck) and archive. */
function registerOperatorRoutes(scope: FastifyInstance, { engine }: ControlPlaneDeps): void {
  scope.post<IdParams>("/workflows/:id/repair", cfg("repair"), async (request, reply) => {
    const b = parseInput(repairBody, request.body);
    const r = engine.transaction((tx) =>
      repairWorkflow(tx, {
        namespace: namespaceOf(request),
        workflow_id: request.params.id,
        request_id: b.request_id ?? null,
        request: commandRequest(request),
      }),
    );
    return send(request, reply, commandStatus(r, 200), commandBody(r));
  });

  scope.post<IdParams>("/workflows/:id/archive", cfg("archive"), async (request, reply) => {
    const b = parseInput(reasonBody, request.body);
    const r = engine.transaction((tx) =>
      archiveWorkflow(tx, {
        namespace: namespaceOf(request),
        workflow_id: request.params.id,
        request_id: b.request_id ?? null,
        reason: b.reason ?? null,
        request: commandRequest(request),
      }),
    );
    return send(request, reply, commandStatus(r, 200), commandBody(r));
  });
}

export function registerWorkflowCommandRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  registerCloseRoutes(scope, deps);
  registerSignalRoutes(scope, deps);
  registerOperatorRoutes(scope, deps);
}
