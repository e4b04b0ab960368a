import * as z from "zod";

/**
 * Worker versioning answers (lib/dw/fixtures/build-ids.md): the build-id snapshot of
 * TaskQueueBuildIdRolloutSnapshot, the rollout state the promote / drain / resume routes answer
 * (TaskQueueController) and the deployment list (DeploymentController over WorkerDeployment::toArray),
 * durable-workflow/server as the code index holds it newest. Open objects; enums left as strings so a
 * later server's new status is shown, not refused. The CLI's task-queue-build-ids.schema.json
 * (durable-workflow/cli@bd7053f) requires the same fields.
 */

const count = z.number().int().nonnegative();

export const buildIdCohortSchema = z.looseObject({
  build_id: z.string().nullable(),
  rollout_status: z.string(),
  drain_intent: z.string().optional(),
  drained_at: z.string().nullable().optional(),
  promoted_at: z.string().nullable().optional(),
  rolled_back_at: z.string().nullable().optional(),
  new_start_selected: z.boolean().optional(),
  active_worker_count: count,
  draining_worker_count: count,
  stale_worker_count: count,
  total_worker_count: count,
  runtimes: z.array(z.string()),
  sdk_versions: z.array(z.string()),
  workflow_definition_fingerprint_count: count.optional(),
  workflow_definition_fingerprint_conflicts: z
    .array(z.looseObject({ workflow_type: z.string(), fingerprint_count: count }))
    .optional(),
  last_heartbeat_at: z.string().nullable(),
  first_seen_at: z.string().nullable(),
  pending_workflow_tasks: z
    .looseObject({
      status: z.string(),
      message: z.string().nullable().optional(),
      total_count: count.optional(),
    })
    .optional(),
});
export type BuildIdCohort = z.infer<typeof buildIdCohortSchema>;

export const taskQueueBuildIdsSchema = z.looseObject({
  namespace: z.string(),
  task_queue: z.string(),
  stale_after_seconds: count,
  build_ids: z.array(buildIdCohortSchema),
});
export type TaskQueueBuildIds = z.infer<typeof taskQueueBuildIdsSchema>;

export const buildIdRolloutStateSchema = z.looseObject({
  task_queue: z.string(),
  build_id: z.string().nullable(),
  drain_intent: z.string(),
  drained_at: z.string().nullable().optional(),
  promoted_at: z.string().nullable().optional(),
  new_start_selected: z.boolean().optional(),
});
export type BuildIdRolloutState = z.infer<typeof buildIdRolloutStateSchema>;

export const deploymentSchema = z.looseObject({
  name: z.string(),
  task_queue: z.string(),
  build_id: z.string().nullable(),
  state: z.string(),
  accepts_new_work: z.boolean().optional(),
  promoted_at: z.string().nullable().optional(),
  drained_at: z.string().nullable().optional(),
  rolled_back_at: z.string().nullable().optional(),
});
export type Deployment = z.infer<typeof deploymentSchema>;

export const deploymentListSchema = z.looseObject({
  namespace: z.string(),
  deployments: z.array(deploymentSchema),
});
export type DeploymentList = z.infer<typeof deploymentListSchema>;
