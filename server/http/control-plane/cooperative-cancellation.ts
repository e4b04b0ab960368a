import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { CancellationAnswer } from "../../engine/cooperative-cancellation";
import { DEFAULT_CLEANUP_TIMEOUT_SECONDS, requestCancellation } from "../../engine/cooperative-cancellation";
import { authenticate } from "../auth";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, parseInput } from "./context";
import type { IdParams, RunParams } from "./workflow-routes";
import { cfg, commandRequest, requireCurrentRun, send } from "./workflow-routes";

/**
 * `POST /workflows/{id}/request-cancellation` and `…/runs/{runId}/request-cancellation`, what
 * sdk-python 2.12.0 `Client.request_workflow_cancellation` sends: `{reason?, cleanup_timeout_seconds?}`
 * (1–3600, 600 when left out), answered 202 with the receipt, 200 `duplicate` with the original one.
 * Operators and admins, like cancel. Engine: cooperative-cancellation.ts.
 */

const body = z
  .object({
    reason: z.string().max(1000).nullish(),
    cleanup_timeout_seconds: z.number().int().min(1).max(3600).nullish(),
  })
  .strict();

/** `CancellationContext.requester`: the token's role, as the real server names a token caller. */
function requester(deps: ControlPlaneDeps, request: FastifyRequest): Record<string, string> {
  const principal = authenticate(deps.auth, request.headers.authorization);
  if (!principal || principal.legacyFullAccess) return { type: "auth:token", id: "legacy-token", label: "Admin" };
  const label = principal.role.charAt(0).toUpperCase() + principal.role.slice(1);
  return { type: "auth:token", id: `${principal.role}-token`, label };
}

function run(deps: ControlPlaneDeps, request: FastifyRequest, runId: string | null): CancellationAnswer {
  const { id } = request.params as { id: string };
  const b = parseInput(body, request.body ?? {});
  const reason = b.reason?.trim() ? b.reason.trim() : null;
  return deps.engine.transaction((tx) =>
    requestCancellation(tx, {
      namespace: namespaceOf(request),
      workflow_id: id,
      run_id: runId,
      reason,
      cleanup_timeout_seconds: b.cleanup_timeout_seconds ?? DEFAULT_CLEANUP_TIMEOUT_SECONDS,
      requester: requester(deps, request),
      request: commandRequest(request),
    }),
  );
}

export function registerCooperativeCancellationRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  scope.post<IdParams>("/workflows/:id/request-cancellation", cfg(null), async (request, reply) => {
    const r = run(deps, request, null);
    return send(request, reply, r.status, r.body);
  });
  scope.post<RunParams>("/workflows/:id/runs/:runId/request-cancellation", cfg(null), async (request, reply) => {
    requireCurrentRun(deps, namespaceOf(request), request.params.id, request.params.runId);
    const r = run(deps, request, request.params.runId);
    return send(request, reply, r.status, r.body);
  });
}
