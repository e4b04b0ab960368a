import * as z from "zod";
import { ADMISSION_STATUSES, TASK_TYPES, WORKER_STATUSES } from "./enums";
import {
  anyMap,
  nullableString,
  openEnum,
  optionalBool,
  optionalInt,
  optionalString,
  optionalTimestamp,
} from "./schema-kit";

/** Discovery, namespaces, workers and task queues (server-api.md §2.10, §2.11). */

// ---------------------------------------------------------------- probes

export const healthSchema = z.looseObject({
  status: z.string(),
  timestamp: optionalTimestamp,
  checks: anyMap.optional(),
});
export type Health = z.infer<typeof healthSchema>;

const readyCheck = z.looseObject({ status: z.string() });

export const readySchema = z.looseObject({
  status: z.string(),
  timestamp: optionalTimestamp,
  checks: z
    .looseObject({
      database: readyCheck.optional(),
      migrations: readyCheck.optional(),
      default_namespace: readyCheck.optional(),
      cache: readyCheck.optional(),
      auth: readyCheck.optional(),
    })
    .optional(),
});
export type Ready = z.infer<typeof readySchema>;

// ---------------------------------------------------------------- cluster info

export const clusterInfoSchema = z.looseObject({
  server_id: optionalString,
  version: optionalString,
  default_namespace: optionalString,
  supported_sdk_versions: anyMap.optional(),
  capabilities: z
    .looseObject({
      payload_codecs: z.array(z.string()).optional(),
      payload_codecs_engine_specific: anyMap.optional(),
      response_compression: z.array(z.string()).optional(),
    })
    .optional(),
  worker_fleet: z
    .looseObject({
      namespace: optionalString,
      active_workers: optionalInt,
      active_worker_scopes: optionalInt,
      queues: z.array(z.string()).optional(),
      build_ids: z.array(z.string().nullable()).optional(),
      workers: z.array(z.looseObject({ worker_id: z.string() })).optional(),
    })
    .optional(),
  task_repair: anyMap.optional(),
  limits: anyMap.optional(),
  structural_limits: anyMap.optional(),
  client_compatibility: anyMap.optional(),
  auth_composition_contract: anyMap.optional(),
  control_plane: z
    .looseObject({
      version: z.string(),
      header: optionalString,
      response_contract: anyMap.optional(),
      request_contract: anyMap.optional(),
    })
    .optional(),
  worker_protocol: z
    .looseObject({
      version: optionalString,
      // `(int) config('server.polling.timeout')` (WorkerProtocol.php@c816c7a `serverCapabilities`):
      // the console's history long-poll limit follows it (transport.ts `longPollLimitMs`).
      server_capabilities: z.looseObject({ long_poll_timeout: z.number().nonnegative().optional() }).optional(),
    })
    .optional(),
});
export type ClusterInfo = z.infer<typeof clusterInfoSchema>;

// ---------------------------------------------------------------- namespaces

export const namespaceSchema = z.looseObject({
  name: z.string(),
  description: nullableString.optional(),
  retention_days: z.number().int().nullish(),
  status: optionalString,
  external_payload_storage: z.unknown().optional(),
  created_at: optionalTimestamp,
  updated_at: optionalTimestamp,
});
export type Namespace = z.infer<typeof namespaceSchema>;

export const namespaceListSchema = z.looseObject({ namespaces: z.array(namespaceSchema) });
export type NamespaceList = z.infer<typeof namespaceListSchema>;

// ---------------------------------------------------------------- workers

export const workerSchema = z.looseObject({
  worker_id: z.string(),
  namespace: optionalString,
  task_queue: optionalString,
  runtime: optionalString,
  sdk_version: optionalString,
  build_id: optionalString,
  supported_workflow_types: z.array(z.string()).optional(),
  workflow_definition_fingerprints: anyMap.optional(),
  supported_activity_types: z.array(z.string()).optional(),
  max_concurrent_workflow_tasks: optionalInt,
  max_concurrent_activity_tasks: optionalInt,
  status: openEnum(WORKER_STATUSES),
  last_heartbeat_at: optionalTimestamp,
  registered_at: optionalTimestamp,
  updated_at: optionalTimestamp,
  // The newer server's worker status (durable-workflow/server WorkerManagementController.php after @c6de4c3
  // `workerSummary`): free slots as last reported and capacity as declared per task family, the
  // process metrics exactly as the SDK reported them, the cadence, the declared capabilities, and
  // on describe the stale-after window. An older server sends none of them.
  capabilities: z.array(z.string()).optional(),
  max_concurrent_worker_sessions: z.number().int().nullish(),
  task_slots: z
    .looseObject({
      workflow_available: z.number().int().nullish(),
      activity_available: z.number().int().nullish(),
      session_available: z.number().int().nullish(),
      workflow_capacity: z.number().int().nullish(),
      activity_capacity: z.number().int().nullish(),
      session_capacity: z.number().int().nullish(),
    })
    .nullish(),
  process_metrics: z
    .looseObject({
      cpu_percent: z.number().nullish(),
      memory_bytes: z.number().nullish(),
      process_uptime_seconds: z.number().nullish(),
      process_id: z.union([z.number(), z.string()]).nullish(),
      process_started_at: z.string().nullish(),
      host: z.string().nullish(),
    })
    .nullish(),
  heartbeat_interval_seconds: z.number().int().nullish(),
  stale_after_seconds: z.number().int().nullish(),
});
export type Worker = z.infer<typeof workerSchema>;

/** The roster; the newer server leaves stale workers out unless `status=stale` asks for them. */
export const workerListSchema = z.looseObject({
  workers: z.array(workerSchema),
  stale_after_seconds: z.number().int().nullish(),
});
export type WorkerList = z.infer<typeof workerListSchema>;

/** `DELETE /workers/{id}` (WorkerManagementController.php@11d35b7 `destroy`; the count is newer). */
export const workerRemovedSchema = z.looseObject({
  worker_id: z.string(),
  outcome: z.string(),
  recovered_workflow_task_count: z.number().int().nullish(),
});
export type WorkerRemoved = z.infer<typeof workerRemovedSchema>;

// ---------------------------------------------------------------- task queues

const taskCountsSchema = z.looseObject({
  ready_count: z.number().int(),
  leased_count: z.number().int(),
  expired_lease_count: z.number().int(),
  added_last_minute: optionalInt,
  dispatched_last_minute: optionalInt,
});

export const taskQueueStatsSchema = z.looseObject({
  approximate_backlog_count: z.number().int(),
  approximate_backlog_age: optionalString,
  approximate_backlog_age_seconds: optionalInt,
  oldest_ready_task: z
    .looseObject({
      task_id: z.string(),
      task_type: openEnum(TASK_TYPES).nullish(),
      workflow_id: optionalString,
      run_id: optionalString,
      available_at: optionalTimestamp,
      age_seconds: optionalInt,
    })
    .nullish(),
  workflow_tasks: taskCountsSchema.partial().optional(),
  activity_tasks: taskCountsSchema.partial().optional(),
  pollers: z
    .looseObject({ active_count: optionalInt, stale_count: optionalInt, stale_after_seconds: optionalInt })
    .optional(),
});
export type TaskQueueStats = z.infer<typeof taskQueueStatsSchema>;

export const taskQueueRepairSchema = z.looseObject({
  candidates: optionalInt,
  dispatch_failed: optionalInt,
  expired_leases: optionalInt,
  dispatch_overdue: optionalInt,
  needs_attention: optionalBool,
  policy: anyMap.optional(),
});

const admissionSchema = z.looseObject({ status: openEnum(ADMISSION_STATUSES).optional() });

export const taskQueueAdmissionSchema = z.looseObject({
  workflow_tasks: admissionSchema.optional(),
  activity_tasks: admissionSchema.optional(),
  query_tasks: admissionSchema.optional(),
});

export const pollerSchema = z.looseObject({
  // `is_string($poller['worker_id'] ?? null) ? … : null` (durable-workflow/workflow
  // src/V2/Support/OperatorQueueVisibility.php@8dc90d64).
  worker_id: nullableString,
  runtime: optionalString,
  sdk_version: optionalString,
  build_id: optionalString,
  last_heartbeat_at: optionalTimestamp,
  heartbeat_expires_at: optionalTimestamp,
  status: openEnum(WORKER_STATUSES).nullish(),
  is_stale: optionalBool,
  supported_workflow_types: z.array(z.string()).optional(),
  supported_activity_types: z.array(z.string()).optional(),
  max_concurrent_workflow_tasks: optionalInt,
  max_concurrent_activity_tasks: optionalInt,
});

export const currentLeaseSchema = z.looseObject({
  task_id: z.string(),
  task_type: openEnum(TASK_TYPES),
  workflow_id: optionalString,
  run_id: optionalString,
  lease_owner: optionalString,
  lease_expires_at: optionalTimestamp,
  is_expired: optionalBool,
  workflow_task_attempt: optionalInt,
  activity_attempt_id: optionalString,
  attempt_number: optionalInt,
});

export const taskQueueDetailSchema = z.looseObject({
  name: z.string(),
  pollers: z.array(pollerSchema).optional(),
  stats: taskQueueStatsSchema.optional(),
  current_leases: z.array(currentLeaseSchema).optional(),
  repair: taskQueueRepairSchema.optional(),
  admission: taskQueueAdmissionSchema.optional(),
});
export type TaskQueueDetail = z.infer<typeof taskQueueDetailSchema>;

export const taskQueueListSchema = z.looseObject({
  namespace: optionalString,
  task_queues: z.array(
    z.looseObject({
      name: z.string(),
      stats: taskQueueStatsSchema.optional(),
      repair: taskQueueRepairSchema.optional(),
      admission: taskQueueAdmissionSchema.optional(),
    }),
  ),
});
export type TaskQueueList = z.infer<typeof taskQueueListSchema>;
