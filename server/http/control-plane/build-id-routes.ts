import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Blockage, Deployment, LifecycleContext, LifecycleResult } from "../../engine/build-id-rollouts";
import {
  deploymentToArray,
  DRAIN_ACTIVE,
  DRAIN_DRAINING,
  drainDeployment,
  findDeployment,
  listDeployments,
  orderBlockages,
  parseBuildIdBody,
  parseDeploymentName,
  promoteDeployment,
  resumeDeployment,
  rollbackDeployment,
  selectedNewStartKey,
  rolloutsForQueue,
  buildIdKey,
  zuluSecond,
  setDrainIntent,
} from "../../engine/build-id-rollouts";
import { EngineError } from "../../engine";
import { buildIdSnapshot } from "../../read/build-ids";
import { WORKER_STALE_AFTER_SECONDS } from "../../read/fleet";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, OPERATOR, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";

/**
 * Worker versioning (durable-workflow/server routes/api.php, newest indexed version): under
 * `task-queues` (`$operator`: operator or admin, version header, namespace) the build-id snapshot and
 * its promote / drain / resume; under `deployments` the same rows as named deployments with
 * promote / drain / resume / rollback. Both answer with `ControlPlaneProtocol::json` (no
 * `control_plane` envelope). The drain-and-resume pair is also in server@11d35b7.
 */
export function registerBuildIdRoutes(scope: FastifyInstance, { engine }: ControlPlaneDeps): void {
  const operator = { config: routeConfig(OPERATOR) };
  const staleAfterMs = WORKER_STALE_AFTER_SECONDS * 1000;
  const lifecycle = <T>(fn: (ctx: LifecycleContext) => T): T =>
    engine.transaction((tx) => fn({ db: tx.db, now: tx.now, staleAfterMs }));

  scope.get<{ Params: { name: string } }>("/task-queues/:name/build-ids", operator, async (request, reply) =>
    sendControlPlane(
      reply,
      200,
      buildIdSnapshot(engine.db, namespaceOf(request), request.params.name, engine.clock.now()),
      null,
    ),
  );

  for (const intent of [DRAIN_DRAINING, DRAIN_ACTIVE] as const) {
    const path = intent === DRAIN_DRAINING ? "drain" : "resume";
    scope.post<{ Params: { name: string } }>(
      `/task-queues/:name/build-ids/${path}`,
      operator,
      async (request, reply) => {
        const buildId = parseBuildIdBody(request.body);
        const namespace = namespaceOf(request);
        const body = engine.transaction((tx) =>
          setDrainIntent(tx.db, tx.now, namespace, request.params.name, buildId, intent),
        );
        return sendControlPlane(reply, 200, body, null);
      },
    );
  }

  // TaskQueueController::promoteBuildId: the lifecycle's promote, answered in the build-id shape
  // (200) or as a rejected control-plane command with the ordered blockages (409).
  scope.post<{ Params: { name: string } }>("/task-queues/:name/build-ids/promote", operator, async (request, reply) => {
    const buildId = parseBuildIdBody(request.body);
    const namespace = namespaceOf(request);
    const taskQueue = request.params.name;
    const { result, selected } = lifecycle((ctx) => {
      const r = promoteDeployment(ctx, namespace, taskQueue, buildId);
      return { result: r, selected: selectedNewStartKey(rolloutsForQueue(ctx.db, namespace, taskQueue).values()) };
    });
    const deployment = result.deployment ? lifecyclePayload(result.deployment) : null;
    if (result.blockages.length > 0) {
      const blockages = orderBlockages(result.blockages);
      const primary: Partial<Blockage> = blockages[0] ?? {};
      const reason = primary.reason || "deployment_lifecycle_blocked";
      return sendControlPlane(
        reply,
        409,
        {
          message: primary.message || "Deployment lifecycle action was rejected.",
          reason,
          rejection_reason: reason,
          expected_resolution: primary.expected_resolution || null,
          outcome: `rejected_${reason}`,
          control_plane_outcome: `rejected_${reason}`,
          command_status: "rejected",
          command_source: "control_plane",
          namespace,
          task_queue: taskQueue,
          build_id: buildId,
          deployment,
          blockages,
        },
        null,
      );
    }
    const d = deployment ?? {};
    return sendControlPlane(
      reply,
      200,
      {
        namespace,
        task_queue: taskQueue,
        build_id: buildId,
        drain_intent: result.deployment?.state === "draining" ? DRAIN_DRAINING : DRAIN_ACTIVE,
        drained_at: (d as { drained_at?: string | null }).drained_at ?? null,
        promoted_at: (d as { promoted_at?: string | null }).promoted_at ?? null,
        rolled_back_at: (d as { rolled_back_at?: string | null }).rolled_back_at ?? null,
        new_start_selected: selected !== null && selected === buildIdKey(buildId),
        deployment: d,
      },
      null,
    );
  });

  // DeploymentController: names are `namespace/task_queue@build_id`, so they take the rest of the path.
  scope.get("/deployments", operator, async (request, reply) => {
    const namespace = namespaceOf(request);
    return sendControlPlane(
      reply,
      200,
      { namespace, deployments: listDeployments(engine.db, namespace).map(deploymentToArray) },
      null,
    );
  });

  const ACTIONS = {
    promote: promoteDeployment,
    drain: drainDeployment,
    resume: resumeDeployment,
    rollback: rollbackDeployment,
  } as const;

  scope.get<{ Params: { "*": string } }>("/deployments/*", operator, async (request, reply) => {
    const target = parsedTarget(request, reply, request.params["*"]);
    if (!target) return reply;
    const d = findDeployment(engine.db, target.namespace, target.taskQueue, target.buildId);
    if (!d) return sendControlPlane(reply, 404, { error: "deployment_not_found" }, null);
    return sendControlPlane(reply, 200, deploymentToArray(d), null);
  });

  scope.post<{ Params: { "*": string } }>("/deployments/*", operator, async (request, reply) => {
    const rest = request.params["*"];
    const slash = rest.lastIndexOf("/");
    const action = slash < 0 ? "" : rest.slice(slash + 1);
    if (!Object.prototype.hasOwnProperty.call(ACTIONS, action))
      throw new EngineError(404, "not_found", `The route api/deployments/${rest} could not be found.`);
    const target = parsedTarget(request, reply, rest.slice(0, slash));
    if (!target) return reply;
    const run = ACTIONS[action as keyof typeof ACTIONS];
    const result: LifecycleResult = lifecycle((ctx) => run(ctx, target.namespace, target.taskQueue, target.buildId));
    if (result.blockages.length > 0)
      return sendControlPlane(
        reply,
        409,
        {
          deployment: result.deployment ? deploymentToArray(result.deployment) : null,
          blockages: orderBlockages(result.blockages),
        },
        null,
      );
    return sendControlPlane(reply, 200, result.deployment ? deploymentToArray(result.deployment) : {}, null);
  });

  function parsedTarget(request: FastifyRequest, reply: FastifyReply, raw: string) {
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // rawurldecode leaves a malformed escape as it is
    }
    let parsed: ReturnType<typeof parseDeploymentName>;
    try {
      parsed = parseDeploymentName(decoded);
    } catch (e) {
      if (e instanceof EngineError) {
        void sendControlPlane(reply, 400, { error: e.message }, null);
        return null;
      }
      throw e;
    }
    const namespace = namespaceOf(request);
    if (parsed.namespace !== namespace) {
      void sendControlPlane(
        reply,
        400,
        {
          error: "namespace_mismatch",
          message: `Deployment name ${decoded} is in namespace ${parsed.namespace} but the request targets ${namespace}.`,
        },
        null,
      );
      return null;
    }
    return parsed;
  }
}

/** `buildIdLifecyclePayload`'s deployment: `toArray` with the lifecycle times at whole seconds, `Z`. */
function lifecyclePayload(d: Deployment) {
  return {
    ...deploymentToArray(d),
    drained_at: zuluSecond(d.drainedAt),
    promoted_at: zuluSecond(d.promotedAt),
    rolled_back_at: zuluSecond(d.rolledBackAt),
  };
}
