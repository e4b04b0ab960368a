import * as z from "zod";
import {
  ACTIVITY_ATTEMPT_STATUSES,
  ACTIVITY_STATUSES,
  CLOSED_REASONS,
  COMMAND_OUTCOMES,
  COMMAND_STATUSES,
  DEBUG_FINDING_CODES,
  DIAGNOSTIC_STATUSES,
  FAILURE_CATEGORIES,
  FAILURE_SOURCE_KINDS,
  HISTORY_EVENT_TYPES,
  LIVENESS_STATES,
  PROPAGATION_KINDS,
  REJECTION_REASONS,
  RUN_STATUSES,
  STATUS_BUCKETS,
  TARGET_SCOPES,
  TASK_STATUSES,
  TASK_TYPES,
  TRANSPORT_STATES,
  WAIT_KINDS,
} from "./enums";
import {
  anyMap,
  controlPlaneSchema,
  memoValue,
  nullableString,
  openEnum,
  optionalBool,
  optionalInt,
  optionalString,
  optionalTimestamp,
  payloadEnvelopeSchema,
  phpMap,
  timestamp,
} from "./schema-kit";
import { taskQueueDetailSchema } from "./schemas-fleet";

/** Control-plane workflow routes: list, describe, runs, debug, history, commands, start (server-api.md §2.1–§2.8). */

const runStatus = openEnum(RUN_STATUSES);
const statusBucket = openEnum(STATUS_BUCKETS);
const validationErrors = phpMap(z.array(z.string()));

// ---------------------------------------------------------------- list

export const workflowListItemSchema = z.looseObject({
  workflow_id: z.string(),
  run_id: z.string(),
  workflow_type: z.string(),
  business_key: nullableString,
  status: runStatus,
  status_bucket: statusBucket,
  task_queue: nullableString,
  is_terminal: z.boolean(),
  started_at: timestamp.nullable(),
  closed_at: timestamp.nullable(),
  search_attributes: anyMap,
});
export type WorkflowListItem = z.infer<typeof workflowListItemSchema>;

export const workflowListSchema = z.looseObject({
  workflows: z.array(workflowListItemSchema),
  workflow_count: z.number().int(),
  next_page_token: nullableString,
  control_plane: controlPlaneSchema,
});
export type WorkflowList = z.infer<typeof workflowListSchema>;

// ---------------------------------------------------------------- describe

export const runActionsSchema = z.looseObject({
  can_signal: z.boolean(),
  can_query: z.boolean(),
  can_update: z.boolean(),
  can_cancel: z.boolean(),
  can_terminate: z.boolean(),
  can_repair: z.boolean(),
  can_archive: z.boolean(),
});
export type RunActions = z.infer<typeof runActionsSchema>;

export const runDescriptionSchema = z.looseObject({
  workflow_id: z.string(),
  run_id: z.string(),
  namespace: z.string(),
  workflow_type: z.string(),
  business_key: nullableString,
  status: runStatus,
  status_bucket: statusBucket.nullable(),
  is_terminal: z.boolean(),
  closed_reason: openEnum(CLOSED_REASONS).nullable(),
  task_queue: nullableString,
  run_number: z.number().int(),
  run_count: z.number().int().nullable(),
  is_current_run: z.boolean().nullable(),
  compatibility: nullableString,
  // `$run->payload_codec`, unset on runs stored before the codec column was filled: the engine's
  // export falls back with `$run->payload_codec ?? CodecRegistry::defaultCodec()`
  // (WorkflowController.php@11d35b7 `formatRun`; HistoryExport.php@8dc90d64).
  payload_codec: nullableString,
  execution_timeout_seconds: z.number().int().nullable(),
  run_timeout_seconds: z.number().int().nullable(),
  execution_deadline_at: timestamp.nullable(),
  run_deadline_at: timestamp.nullable(),
  /** Server-decoded workflow arguments. */
  input: z.unknown(),
  /** Server-decoded result. */
  output: z.unknown(),
  input_envelope: payloadEnvelopeSchema.nullable(),
  output_envelope: payloadEnvelopeSchema.nullable(),
  started_at: timestamp.nullable(),
  closed_at: timestamp.nullable(),
  last_progress_at: timestamp.nullable(),
  wait_kind: openEnum(WAIT_KINDS).nullable(),
  wait_reason: nullableString,
  memo: memoValue,
  search_attributes: anyMap,
  actions: runActionsSchema,
  control_plane: controlPlaneSchema,
});
export type RunDescription = z.infer<typeof runDescriptionSchema>;

// ---------------------------------------------------------------- runs

export const runListItemSchema = z.looseObject({
  run_id: z.string(),
  run_number: z.number().int(),
  workflow_type: z.string(),
  business_key: nullableString,
  status: runStatus,
  task_queue: nullableString,
  started_at: timestamp.nullable(),
  closed_at: timestamp.nullable(),
});
export type RunListItem = z.infer<typeof runListItemSchema>;

export const runListSchema = z.looseObject({
  workflow_id: z.string(),
  run_count: z.number().int(),
  runs: z.array(runListItemSchema),
  control_plane: controlPlaneSchema,
});
export type RunList = z.infer<typeof runListSchema>;

// ---------------------------------------------------------------- debug
// Debug objects drop null and `[]` values server-side, so every nested key is optional.

export const payloadSummarySchema = z.looseObject({
  included: optionalBool,
  encoding: optionalString,
  size_bytes: optionalInt,
  top_level_type: optionalString,
  top_level_key_count: optionalInt,
  top_level_keys: z.array(z.string()).optional(),
  top_level_keys_truncated: optionalBool,
  preview_max_bytes: optionalInt,
});

export const debugExecutionSchema = z.looseObject({
  status: runStatus.optional(),
  status_bucket: statusBucket.optional(),
  is_terminal: optionalBool,
  workflow_type: optionalString,
  task_queue: optionalString,
  compatibility: optionalString,
  run_number: optionalInt,
  started_at: optionalTimestamp,
  closed_at: optionalTimestamp,
  last_progress_at: optionalTimestamp,
  wait_kind: openEnum(WAIT_KINDS).nullish(),
  wait_reason: optionalString,
  liveness_state: openEnum(LIVENESS_STATES).nullish(),
  liveness_reason: optionalString,
  repair_attention: optionalBool,
  task_problem: optionalBool,
  task_problem_badge: z.unknown().optional(),
  last_event: z
    .looseObject({
      sequence: z.number().int(),
      event_type: openEnum(HISTORY_EVENT_TYPES),
      timestamp: optionalTimestamp,
      payload_summary: payloadSummarySchema.optional(),
      payload_preview: z
        .looseObject({
          encoding: optionalString,
          size_bytes: optionalInt,
          max_bytes: optionalInt,
          truncated: optionalBool,
          data: z.unknown(),
        })
        .optional(),
    })
    .optional(),
  next_scheduled_event: z
    .looseObject({
      source: optionalString,
      task_id: optionalString,
      task_type: openEnum(TASK_TYPES).nullish(),
      task_status: optionalString,
      available_at: optionalTimestamp,
      lease_expires_at: optionalTimestamp,
      wait_deadline_at: optionalTimestamp,
    })
    .optional(),
});

export const debugPendingTaskSchema = z.looseObject({
  task_id: z.string(),
  task_type: openEnum(TASK_TYPES).nullish(),
  status: openEnum(TASK_STATUSES).nullish(),
  transport_state: openEnum(TRANSPORT_STATES).nullish(),
  summary: optionalString,
  queue: optionalString,
  available_at: optionalTimestamp,
  leased_at: optionalTimestamp,
  lease_owner: optionalString,
  lease_expires_at: optionalTimestamp,
  lease_expired: optionalBool,
  attempt_count: optionalInt,
  repair_count: optionalInt,
  dispatch_failed: optionalBool,
  dispatch_overdue: optionalBool,
  claim_failed: optionalBool,
  last_error: optionalString,
  replay_blocked: optionalBool,
  replay_blocked_reason: optionalString,
  task_missing: optionalBool,
  synthetic: optionalBool,
});

export const debugPendingActivitySchema = z.looseObject({
  activity_execution_id: z.string(),
  activity_type: optionalString,
  activity_class: optionalString,
  status: openEnum(ACTIVITY_STATUSES).nullish(),
  queue: optionalString,
  attempt_count: optionalInt,
  current_attempt_id: optionalString,
  started_at: optionalTimestamp,
  last_heartbeat_at: optionalTimestamp,
  schedule_deadline_at: optionalTimestamp,
  close_deadline_at: optionalTimestamp,
  schedule_to_close_deadline_at: optionalTimestamp,
  heartbeat_deadline_at: optionalTimestamp,
  current_attempt: z
    .looseObject({
      activity_attempt_id: z.string(),
      attempt_number: optionalInt,
      status: openEnum(ACTIVITY_ATTEMPT_STATUSES).nullish(),
      lease_owner: optionalString,
      started_at: optionalTimestamp,
      last_heartbeat_at: optionalTimestamp,
      lease_expires_at: optionalTimestamp,
      lease_expired: optionalBool,
      closed_at: optionalTimestamp,
    })
    .optional(),
});

export const debugFailureSchema = z.looseObject({
  failure_id: z.string(),
  source_kind: openEnum(FAILURE_SOURCE_KINDS).nullish(),
  source_id: optionalString,
  propagation_kind: openEnum(PROPAGATION_KINDS).nullish(),
  failure_category: openEnum(FAILURE_CATEGORIES).nullish(),
  exception_class: optionalString,
  message: optionalString,
  non_retryable: z.boolean().optional(),
  handled: z.boolean().optional(),
  created_at: optionalTimestamp,
});
export type DebugFailure = z.infer<typeof debugFailureSchema>;

export const debugFindingSchema = z.looseObject({
  severity: z.string(),
  code: openEnum(DEBUG_FINDING_CODES),
  message: z.string(),
});

export const workflowDebugSchema = z.looseObject({
  generated_at: optionalTimestamp,
  workflow_id: z.string(),
  run_id: z.string(),
  namespace: optionalString,
  diagnostic_status: openEnum(DIAGNOSTIC_STATUSES),
  execution: debugExecutionSchema,
  pending_workflow_tasks: z.array(debugPendingTaskSchema).optional(),
  pending_activities: z.array(debugPendingActivitySchema).optional(),
  task_queue: taskQueueDetailSchema.nullish(),
  recent_failures: z.array(debugFailureSchema).optional(),
  compatibility: anyMap.optional(),
  findings: z.array(debugFindingSchema).optional(),
  control_plane: controlPlaneSchema,
});
export type WorkflowDebug = z.infer<typeof workflowDebugSchema>;

// ---------------------------------------------------------------- history

export const historyEventSchema = z.looseObject({
  sequence: z.number().int(),
  event_type: openEnum(HISTORY_EVENT_TYPES),
  // `$event->recorded_at?->toJSON()` (HistoryController.php@11d35b7 `show`).
  timestamp: timestamp.nullable(),
  /** Raw persisted payload: codec blobs stay encoded (see codec.ts). */
  payload: anyMap,
});
export type HistoryEvent = z.infer<typeof historyEventSchema>;

export const historyPageSchema = z.looseObject({
  workflow_id: z.string(),
  run_id: z.string(),
  events: z.array(historyEventSchema),
  next_page_token: nullableString,
  control_plane: controlPlaneSchema,
});
export type HistoryPage = z.infer<typeof historyPageSchema>;

// ---------------------------------------------------------------- commands

export const commandResponseSchema = z.looseObject({
  outcome: openEnum(COMMAND_OUTCOMES).nullable(),
  workflow_id: z.string(),
  run_id: z.string().nullish(),
  requested_run_id: z.string().nullish(),
  resolved_run_id: z.string().nullish(),
  command_id: z.string().nullish(),
  command_sequence: optionalInt,
  target_scope: openEnum(TARGET_SCOPES).nullish(),
  workflow_type: optionalString,
  command_status: openEnum(COMMAND_STATUSES),
  command_source: optionalString,
  reason: optionalString,
  rejection_reason: openEnum(REJECTION_REASONS).nullish(),
  validation_errors: validationErrors.optional(),
  signal_name: optionalString,
  control_plane: controlPlaneSchema,
});
export type CommandResponse = z.infer<typeof commandResponseSchema>;

export const startResponseSchema = z.looseObject({
  workflow_id: z.string(),
  run_id: z.string().nullish(),
  workflow_type: optionalString,
  namespace: optionalString,
  status: runStatus.nullish(),
  business_key: optionalString,
  payload_codec: optionalString,
  outcome: openEnum(COMMAND_OUTCOMES),
  control_plane: controlPlaneSchema.optional(),
});
export type StartResponse = z.infer<typeof startResponseSchema>;
