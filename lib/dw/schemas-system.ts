import * as z from "zod";
import { ACTIVITY_TIMEOUT_OUTCOMES } from "./enums";
import { anyMap, nullableString, openEnum, optionalBool, optionalString, timestamp } from "./schema-kit";

/**
 * Admin-only `/system/*` routes (server-api.md §2.9, §4.6). Groups marked † in §4.6 are absent on the
 * engine pinned by the April server, so they are optional here.
 */

const count = z.number().int();
const optionalCount = count.optional();
/** `oldest_*` may be null; `max_*_age_ms` is then 0. */
const oldest = timestamp.nullish();

export const operatorMetricsRunsSchema = z.looseObject({
  total: count,
  current: count,
  running: count,
  completed: count,
  failed: count,
  cancelled: count,
  terminated: count,
  archived: count,
  repair_needed: count,
  oldest_repair_needed_at: oldest,
  max_repair_needed_age_ms: optionalCount,
  claim_failed: count,
  compatibility_blocked: count,
  waiting: optionalCount,
  oldest_wait_started_at: oldest,
  max_wait_age_ms: optionalCount,
});

export const operatorMetricsTasksSchema = z.looseObject({
  open: count,
  ready: count,
  ready_due: count,
  delayed: count,
  leased: count,
  dispatch_failed: count,
  claim_failed: count,
  dispatch_overdue: count,
  lease_expired: count,
  unhealthy: count,
  oldest_lease_expired_at: oldest,
  max_lease_expired_age_ms: optionalCount,
  oldest_unhealthy_at: oldest,
  max_unhealthy_age_ms: optionalCount,
  max_attempt_count: optionalCount,
  max_repair_count: optionalCount,
});

export const operatorMetricsActivitiesSchema = z.looseObject({
  open: count,
  pending: count,
  running: count,
  retrying: count,
  failed_attempts: count,
  max_attempt_count: count,
  oldest_retrying_started_at: oldest,
  max_retrying_age_ms: optionalCount,
  timeout_overdue: optionalCount,
  oldest_timeout_overdue_at: oldest,
  max_timeout_overdue_age_ms: optionalCount,
});

export const operatorMetricsBacklogSchema = z.looseObject({
  runnable_tasks: count,
  delayed_tasks: count,
  leased_tasks: count,
  retrying_activities: count,
  unhealthy_tasks: count,
  repair_needed_runs: count,
  claim_failed_runs: count,
  compatibility_blocked_runs: count,
  tasks_added_last_minute: optionalCount,
  tasks_dispatched_last_minute: optionalCount,
});

export const repairCandidateScopeSchema = z.looseObject({
  scope_key: z.string(),
  connection: optionalString,
  queue: optionalString,
  compatibility: optionalString,
  existing_task_candidates: count,
  missing_task_candidates: count,
  total_candidates: count,
  oldest_task_candidate_created_at: oldest,
  oldest_missing_run_started_at: oldest,
  max_task_candidate_age_ms: optionalCount,
  max_missing_run_age_ms: optionalCount,
  scan_limited_by_global_policy: optionalBool,
});

export const repairCandidatesSchema = z.looseObject({
  existing_task_candidates: count,
  missing_task_candidates: count,
  total_candidates: count,
  scan_limit: optionalCount,
  scan_strategy: optionalString,
  selected_existing_task_candidates: optionalCount,
  selected_missing_task_candidates: optionalCount,
  selected_total_candidates: optionalCount,
  existing_task_scan_limit_reached: optionalBool,
  missing_task_scan_limit_reached: optionalBool,
  scan_pressure: optionalBool,
  oldest_task_candidate_created_at: oldest,
  oldest_missing_run_started_at: oldest,
  max_task_candidate_age_ms: optionalCount,
  max_missing_run_age_ms: optionalCount,
  scopes: z.array(repairCandidateScopeSchema).optional(),
});
export type RepairCandidates = z.infer<typeof repairCandidatesSchema>;

export const repairPolicySchema = z.looseObject({
  redispatch_after_seconds: z.number(),
  loop_throttle_seconds: z.number().optional(),
  scan_limit: optionalCount,
  scan_strategy: optionalString,
  failure_backoff_max_seconds: z.number().optional(),
  failure_backoff_strategy: optionalString,
});
export type RepairPolicy = z.infer<typeof repairPolicySchema>;

export const operatorMetricsSchema = z.looseObject({
  generated_at: timestamp,
  runs: operatorMetricsRunsSchema,
  tasks: operatorMetricsTasksSchema,
  activities: operatorMetricsActivitiesSchema,
  backlog: operatorMetricsBacklogSchema,
  /** Always zeroed through the server (namespace-pinned); use `GET /system/repair`. */
  repair: repairCandidatesSchema,
  starts: z.looseObject({
    pending_runs: count,
    pending_commands: count,
    ready_tasks: count,
    max_pending_ms: optionalCount,
  }),
  history: z.looseObject({
    continue_as_new_recommended_runs: count,
    approaching_budget_runs: optionalCount,
    events: count,
    max_event_count: optionalCount,
    max_size_bytes: optionalCount,
    event_threshold: optionalCount,
    size_bytes_threshold: optionalCount,
  }),
  command_contracts: anyMap.optional(),
  projections: anyMap.optional(),
  schedules: anyMap.optional(),
  workers: z.looseObject({
    compatibility_namespace: optionalString,
    required_compatibility: optionalString,
    active_workers: count,
    active_worker_scopes: optionalCount,
    active_workers_supporting_required: optionalCount,
    fleet: z.array(z.looseObject({ worker_id: z.string() })).optional(),
  }),
  backend: z
    .looseObject({
      supported: optionalBool,
      severity: optionalString,
      issues: z
        .array(
          z.looseObject({
            component: optionalString,
            severity: optionalString,
            code: optionalString,
            message: optionalString,
          }),
        )
        .optional(),
    })
    .optional(),
  structural_limits: anyMap.optional(),
  update_wait: anyMap.optional(),
  repair_policy: repairPolicySchema.optional(),
  matching_role: anyMap.optional(),
  sticky_execution: anyMap.optional(),
});
export type OperatorMetrics = z.infer<typeof operatorMetricsSchema>;

export const operatorMetricsResponseSchema = z.looseObject({
  namespace: z.string(),
  operator_metrics: operatorMetricsSchema,
});
export type OperatorMetricsResponse = z.infer<typeof operatorMetricsResponseSchema>;

export const systemMetricsSchema = z.looseObject({
  generated_at: timestamp,
  namespace: optionalString,
  metrics: z.looseObject({
    dw_workflow_task_consecutive_failures: z
      .looseObject({
        max_consecutive_failures: count,
        failed_task_count: count,
        workflow_type_count: optionalCount,
        workflow_type_limit: optionalCount,
        workflow_types_truncated: optionalBool,
        by_workflow_type: z.array(
          z.looseObject({ workflow_type: z.string(), max_consecutive_failures: count, failed_task_count: count }),
        ),
      })
      .optional(),
    dw_projection_drift_total: z
      .looseObject({
        total: count,
        table_count: optionalCount,
        tables_with_drift: optionalCount,
        scope: optionalString,
        by_table: z.array(z.looseObject({ table: z.string(), needs_rebuild: count })),
      })
      .optional(),
  }),
  cardinality: anyMap.optional(),
});
export type SystemMetrics = z.infer<typeof systemMetricsSchema>;

export const repairStatusSchema = z.looseObject({
  policy: repairPolicySchema,
  candidates: repairCandidatesSchema,
});
export type RepairStatus = z.infer<typeof repairStatusSchema>;

const failureItem = z.looseObject({ message: optionalString });

export const repairPassReportSchema = z.looseObject({
  connection: optionalString,
  queue: optionalString,
  run_ids: z.array(z.string()).optional(),
  instance_id: optionalString,
  respect_throttle: optionalBool,
  throttled: optionalBool,
  selected_existing_task_candidates: count,
  selected_missing_task_candidates: count,
  selected_total_candidates: count,
  repaired_existing_tasks: count,
  repaired_missing_tasks: count,
  dispatched_tasks: count,
  existing_task_failures: z.array(failureItem.extend({ candidate_id: optionalString })),
  missing_run_failures: z.array(failureItem.extend({ run_id: optionalString })),
  deadline_expired_candidates: optionalCount,
  deadline_expired_tasks_created: optionalCount,
  deadline_expired_failures: z.array(failureItem.extend({ run_id: optionalString })).optional(),
  activity_timeout_candidates: optionalCount,
  activity_timeouts_enforced: optionalCount,
  activity_timeout_failures: z.array(failureItem.extend({ execution_id: optionalString })).optional(),
  selected_command_contract_candidates: optionalCount,
  backfilled_command_contracts: optionalCount,
  command_contract_backfill_unavailable: optionalCount,
  command_contract_failures: z.array(failureItem).optional(),
});
export type RepairPassReport = z.infer<typeof repairPassReportSchema>;

export const activityTimeoutStatusSchema = z.looseObject({
  expired_count: count,
  expired_execution_ids: z.array(z.string()),
  scan_limit: optionalCount,
  scan_pressure: optionalBool,
});
export type ActivityTimeoutStatus = z.infer<typeof activityTimeoutStatusSchema>;

export const activityTimeoutPassReportSchema = z.looseObject({
  processed: count,
  enforced: count,
  skipped: count,
  failed: count,
  results: z.array(
    z.looseObject({
      execution_id: z.string(),
      outcome: openEnum(ACTIVITY_TIMEOUT_OUTCOMES),
      has_retry: optionalBool,
      reason: nullableString.optional(),
    }),
  ),
});
export type ActivityTimeoutPassReport = z.infer<typeof activityTimeoutPassReportSchema>;
