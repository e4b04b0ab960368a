import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { EngineError } from "../../engine";
import {
  describeNamespace,
  describeWorker,
  listNamespaces,
  listTaskQueues,
  listWorkers,
  queueDetail,
} from "../../read/fleet";
import type { ControlPlaneDeps } from "./context";
import { ADMIN, namespaceOf, OPERATOR, parseInput, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";

const workersQuery = z.object({ task_queue: z.string().optional(), status: z.string().optional() }).loose();

/** Namespaces, workers and task queues (server-api.md §2.10); no `control_plane` envelope on these. */
export function registerFleetRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  const nsExempt = { config: routeConfig(OPERATOR, { namespaced: false }) };
  const operator = { config: routeConfig(OPERATOR) };

  scope.get("/namespaces", nsExempt, async (_request, reply) =>
    sendControlPlane(reply, 200, listNamespaces(engine.db), null),
  );

  scope.get<{ Params: { ns: string } }>("/namespaces/:ns", nsExempt, async (request, reply) => {
    const name = request.params.ns.toLowerCase();
    const ns = describeNamespace(engine.db, name);
    if (!ns) throw new EngineError(404, "namespace_not_found", `Namespace [${name}] not found.`, { namespace: name });
    return sendControlPlane(reply, 200, ns, null);
  });

  scope.get("/workers", operator, async (request, reply) => {
    const q = parseInput(workersQuery, request.query);
    return sendControlPlane(
      reply,
      200,
      listWorkers(engine.db, namespaceOf(request), engine.clock.now(), { taskQueue: q.task_queue, status: q.status }),
      null,
    );
  });

  scope.get<{ Params: { workerId: string } }>("/workers/:workerId", operator, async (request, reply) => {
    const w = describeWorker(engine.db, namespaceOf(request), request.params.workerId, engine.clock.now());
    if (!w)
      throw new EngineError(
        404,
        "worker_not_found",
        `Worker [${request.params.workerId}] not found in namespace [${namespaceOf(request)}].`,
        { worker_id: request.params.workerId },
      );
    return sendControlPlane(reply, 200, w, null);
  });

  // An admin removes a dead worker from the roster (routes/api.php@11d35b7 `workers` group, admin):
  // the registration goes and the workflow tasks it still leased are ready again at once, as the
  // newest server's WorkerRegistrationDeregistrar does; an unknown id is 404 worker_not_found.
  const admin = { config: routeConfig(ADMIN) };
  scope.delete<{ Params: { workerId: string } }>("/workers/:workerId", admin, async (request, reply) => {
    const namespace = namespaceOf(request);
    const workerId = request.params.workerId;
    try {
      return sendControlPlane(reply, 200, engine.deregisterWorker(namespace, workerId), null);
    } catch (error) {
      if (error instanceof EngineError && error.status === 404)
        throw new EngineError(404, "worker_not_found", `Worker [${workerId}] not found in namespace [${namespace}].`, {
          worker_id: workerId,
        });
      throw error;
    }
  });

  const queryAdmission = (namespace: string, queue: string) => engine.queryTasks.queueAdmission(namespace, queue);
  scope.get("/task-queues", operator, async (request, reply) =>
    sendControlPlane(
      reply,
      200,
      listTaskQueues(engine.db, namespaceOf(request), engine.clock.now(), queryAdmission),
      null,
    ),
  );

  scope.get<{ Params: { name: string } }>("/task-queues/:name", operator, async (request, reply) =>
    sendControlPlane(
      reply,
      200,
      queueDetail(engine.db, namespaceOf(request), request.params.name, engine.clock.now(), {
        withAdmission: true,
        queryAdmission,
      }),
      null,
    ),
  );
}
