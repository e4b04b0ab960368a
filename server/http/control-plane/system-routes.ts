import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { operatorMetrics } from "../../engine/metrics";
import { systemMetrics } from "../../engine/system-metrics";
import { repairStatus, runRepairPass } from "../../engine/repair-pass";
import type { ControlPlaneDeps } from "./context";
import { ADMIN, intParam, namespaceOf, parseInput, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";

const SCAN_LIMIT_MAX = 100;

const repairPassBody = z
  .object({
    run_ids: z.array(z.string().min(1).max(128)).max(100).optional(),
    instance_id: z.string().min(1).max(191).nullish(),
  })
  .loose();

const timeoutPassBody = z
  .object({
    limit: z.number().int().min(1).optional(),
    execution_ids: z.array(z.string().min(1)).max(100).optional(),
  })
  .loose();

interface ExpiredExecution {
  id: string;
  status: string;
  current_attempt_id: string | null;
  attempt_count: number;
}

/** Open executions past a deadline the enforcer has not acted on yet (`ActivityTimeoutEnforcer` candidates). */
function expiredExecutions(
  deps: ControlPlaneDeps,
  now: number,
  limit: number,
  ids: string[] | null,
): ExpiredExecution[] {
  const filter = ids ? `AND id IN (${ids.map(() => "?").join(", ")})` : "";
  return deps.engine.db
    .prepare(
      `SELECT id, status, current_attempt_id, attempt_count FROM activity_executions WHERE status IN ('pending', 'running') AND (
         (schedule_to_close_deadline_at IS NOT NULL AND schedule_to_close_deadline_at <= @now)
         OR (status = 'pending' AND schedule_deadline_at IS NOT NULL AND schedule_deadline_at <= @now)
         OR (status = 'running' AND ((close_deadline_at IS NOT NULL AND close_deadline_at <= @now) OR (heartbeat_deadline_at IS NOT NULL AND heartbeat_deadline_at <= @now))))
         ${filter} ORDER BY created_at LIMIT @limit`,
    )
    .all({ now, limit }, ...(ids ?? [])) as ExpiredExecution[];
}

export function registerSystemRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  const admin = { config: routeConfig(ADMIN) };

  scope.get("/system/operator-metrics", admin, async (request, reply) => {
    const namespace = namespaceOf(request);
    return sendControlPlane(reply, 200, { namespace, operator_metrics: operatorMetrics(engine, namespace) }, null);
  });

  scope.get("/system/metrics", admin, async (request, reply) => {
    const q = parseInput(
      z.object({ workflow_type_limit: intParam("workflow_type_limit", 1, 100) }).loose(),
      request.query,
    );
    return sendControlPlane(reply, 200, systemMetrics(engine, namespaceOf(request), q.workflow_type_limit ?? 20), null);
  });

  scope.get("/system/repair", admin, async (_request, reply) =>
    sendControlPlane(reply, 200, repairStatus(engine), null),
  );

  scope.post("/system/repair/pass", admin, async (request, reply) => {
    const b = parseInput(repairPassBody, request.body);
    const report = runRepairPass(engine, { runIds: b.run_ids, instanceId: b.instance_id ?? null });
    const partial = report.existing_task_failures.length > 0 || report.missing_run_failures.length > 0;
    return sendControlPlane(reply, partial ? 207 : 200, report, null);
  });

  scope.get("/system/activity-timeouts", admin, async (request, reply) => {
    const q = parseInput(z.object({ limit: intParam("limit", 1, Number.MAX_SAFE_INTEGER) }).loose(), request.query);
    const limit = Math.min(q.limit ?? SCAN_LIMIT_MAX, SCAN_LIMIT_MAX);
    const expired = expiredExecutions(deps, engine.clock.now(), limit + 1, null);
    return sendControlPlane(
      reply,
      200,
      {
        expired_count: Math.min(expired.length, limit),
        expired_execution_ids: expired.slice(0, limit).map((e) => e.id),
        scan_limit: limit,
        scan_pressure: expired.length > limit,
      },
      null,
    );
  });

  /**
   * Runs the engine sweep (which enforces every expired deadline) and reports, per candidate seen
   * before it, whether the sweep enforced it: terminal failure, or a retry (a new attempt is owed).
   */
  scope.post("/system/activity-timeouts/pass", admin, async (request, reply) => {
    const b = parseInput(timeoutPassBody, request.body);
    const now = engine.clock.now();
    const limit = Math.min(b.limit ?? SCAN_LIMIT_MAX, SCAN_LIMIT_MAX);
    const before = expiredExecutions(
      deps,
      now,
      limit,
      b.execution_ids && b.execution_ids.length > 0 ? b.execution_ids : null,
    );
    engine.sweep(now);
    const after = engine.db.prepare("SELECT status, current_attempt_id FROM activity_executions WHERE id = ?");
    const attemptStatus = engine.db.prepare("SELECT status FROM activity_attempts WHERE id = ?");
    const results = before.map((e) => {
      const now2 = after.get(e.id) as { status: string; current_attempt_id: string | null } | undefined;
      const attempt = e.current_attempt_id
        ? (attemptStatus.get(e.current_attempt_id) as { status: string } | undefined)
        : undefined;
      if (!now2) return { execution_id: e.id, outcome: "error", reason: "execution_not_found" };
      if (now2.status === "failed") return { execution_id: e.id, outcome: "enforced", has_retry: false };
      if (now2.status === "pending" && (e.status === "running" || attempt?.status === "failed"))
        return { execution_id: e.id, outcome: "enforced", has_retry: true };
      if (now2.status === "cancelled" || now2.status === "completed")
        return { execution_id: e.id, outcome: "skipped", reason: "execution_already_terminal" };
      return { execution_id: e.id, outcome: "skipped", reason: "run_already_terminal" };
    });
    const enforced = results.filter((r) => r.outcome === "enforced").length;
    const failed = results.filter((r) => r.outcome === "error").length;
    return sendControlPlane(
      reply,
      failed > 0 ? 207 : 200,
      { processed: results.length, enforced, skipped: results.length - enforced - failed, failed, results },
      null,
    );
  });
}
