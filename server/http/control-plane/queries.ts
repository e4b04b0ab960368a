import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { QueryAnswer } from "../../engine/query-tasks";
import type { InstanceRow, RunRow } from "../../engine/rows";
import { currentRun } from "../../read/runs";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, OPERATOR, parseInput, routeConfig } from "./context";
import { inputField, instanceOr404, operationName, requireCurrentRun, send, toEnvelope } from "./workflow-routes";

/**
 * Workflow queries: `POST /workflows/{id}/query/{name}` and `…/runs/{runId}/query/{name}`
 * (durable-workflow/server routes/api.php@11d35b7), operator and admin like every workflow route.
 * `WorkflowController::query`: with a fresh non-PHP worker for the run, the query becomes a worker
 * task (QueryTaskBroker); without one the server falls back to its PHP engine, which cannot run a
 * workflow defined in another runtime. Queries write nothing to history.
 */

type NameParams = { Params: { id: string; name: string } };
type RunNameParams = { Params: { id: string; runId: string; name: string } };

const queryBody = z.object({ input: inputField }).loose();
const cfg = { config: routeConfig(OPERATOR, { operation: "query" }) };

/** The names the run's `WorkflowStarted` declared (`RunCommandContract::hasQueryMethod`). */
function declaredQueries(deps: ControlPlaneDeps, run: RunRow): string[] {
  const row = deps.engine.db
    .prepare(
      "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'WorkflowStarted' ORDER BY sequence LIMIT 1",
    )
    .get(run.id) as { payload: string | null } | undefined;
  const declared = (row?.payload ? (JSON.parse(row.payload) as { declared_queries?: unknown }) : {}).declared_queries;
  return Array.isArray(declared) ? declared.filter((x): x is string => typeof x === "string") : [];
}

/**
 * No worker for the run: `DefaultWorkflowControlPlane::query` (durable-workflow/workflow@8dc90d64).
 * An undeclared name is 404 `query_not_found`; a declared one is refused 409 because the workflow's
 * definition is not loadable here (`WorkflowExecutionGate`, `workflow_definition_unavailable`).
 */
function withoutWorker(deps: ControlPlaneDeps, instance: InstanceRow, run: RunRow, name: string): QueryAnswer {
  const base = { workflow_id: instance.id, run_id: run.id, target_scope: "instance", query_name: name, result: null };
  if (!declaredQueries(deps, run).includes(name)) {
    return {
      status: 404,
      body: {
        ...base,
        reason: "query_not_found",
        message: `Workflow query [${name}] is not declared on workflow [${instance.id}].`,
      },
    };
  }
  return {
    status: 409,
    body: {
      ...base,
      reason: "workflow_definition_unavailable",
      blocked_reason: "workflow_definition_unavailable",
      message: `Workflow ${run.id} [${instance.id}] cannot execute query [${name}] because the workflow definition is unavailable for durable type [${run.workflow_type}].`,
    },
  };
}

async function answer(deps: ControlPlaneDeps, request: FastifyRequest, name: string): Promise<QueryAnswer> {
  const { id } = request.params as { id: string };
  parseInput(z.object({ name: operationName }), { name });
  const namespace = namespaceOf(request);
  const instance = instanceOr404(deps, namespace, id);
  const b = parseInput(queryBody, request.body);
  const run = currentRun(deps.engine.db, instance);
  if (!run) {
    const body = { workflow_id: instance.id, query_name: name, result: null, reason: "query_not_found" };
    return { status: 404, body: { ...body, message: `Workflow query [${name}] is not declared on workflow [${id}].` } };
  }
  const envelope = Array.isArray(b.input) && b.input.length === 0 ? null : toEnvelope(b.input);
  const broker = deps.engine.queryTasks;
  if (!broker.hasWorkerFor(namespace, run)) return withoutWorker(deps, instance, run, name);
  // No input: `queryTaskPayload`'s own fallback, the codec named and no blob. (`{codec: null}`, what
  // PayloadEnvelopeResolver::resolve gives for no input, is refused by sdk-python 2.12.0's decoder.)
  const args = envelope ?? { codec: run.payload_codec ?? "avro", blob: null };
  return broker.query(namespace, run, name, args, deps.shutdown);
}

export function registerQueryRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  scope.post<NameParams>("/workflows/:id/query/:name", cfg, async (request, reply) => {
    const r = await answer(deps, request, request.params.name);
    return send(request, reply, r.status, r.body);
  });
  scope.post<RunNameParams>("/workflows/:id/runs/:runId/query/:name", cfg, async (request, reply) => {
    // `withCurrentRunGuard`: a run that is not the current one, unknown included, is 409.
    requireCurrentRun(deps, namespaceOf(request), request.params.id, request.params.runId);
    const r = await answer(deps, request, request.params.name);
    return send(request, reply, r.status, r.body);
  });
}
