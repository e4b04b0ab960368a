import type { FastifyInstance } from "fastify";
import { createSearchAttribute, deleteSearchAttribute, listSearchAttributes } from "../../engine/search-attributes";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, OPERATOR, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";

/**
 * `GET/POST /api/search-attributes`, `DELETE /api/search-attributes/{name}`: durable-workflow/server
 * routes/api.php@11d35b7 puts all three behind `$operator` (operator or admin), the version header
 * and the namespace; SearchAttributeController answers with `ControlPlaneProtocol::json` (no
 * `control_plane` envelope).
 */
export function registerSearchAttributeRoutes(scope: FastifyInstance, { engine }: ControlPlaneDeps): void {
  const operator = { config: routeConfig(OPERATOR) };

  scope.get("/search-attributes", operator, async (request, reply) =>
    sendControlPlane(reply, 200, listSearchAttributes(engine.db, namespaceOf(request)), null),
  );

  scope.post("/search-attributes", operator, async (request, reply) =>
    sendControlPlane(
      reply,
      201,
      createSearchAttribute(engine.db, namespaceOf(request), request.body, engine.clock.now()),
      null,
    ),
  );

  scope.delete<{ Params: { name: string } }>("/search-attributes/:name", operator, async (request, reply) =>
    sendControlPlane(reply, 200, deleteSearchAttribute(engine.db, namespaceOf(request), request.params.name), null),
  );
}
