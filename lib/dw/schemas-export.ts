import * as z from "zod";
import {
  ACTIVITY_ATTEMPT_STATUSES,
  ACTIVITY_STATUSES,
  CLOSED_REASONS,
  COMMAND_OUTCOMES,
  FAILURE_CATEGORIES,
  FAILURE_SOURCE_KINDS,
  HISTORY_EVENT_TYPES,
  LIVENESS_STATES,
  PROPAGATION_KINDS,
  REPAIR_BLOCKED_REASONS,
  RUN_STATUSES,
  STATUS_BUCKETS,
  TASK_STATUSES,
  TASK_TYPES,
  WAIT_KINDS,
  WAIT_STATUSES,
} from "./enums";
import {
  anyMap,
  memoValue,
  openEnum,
  optionalBool,
  optionalInt,
  optionalString,
  optionalTimestamp,
  payloadEnvelopeSchema,
  timestamp,
} from "./schema-kit";

/**
 * `GET …/history/export` bundle (server-api.md §2.6, §4; contracts/history-export-bundle.schema.json).
 * The only HTTP surface with activities, attempts, failures, waits and tasks. Nested rows vary with
 * the engine version, so beyond identity every key is optional.
 *
 * Only what the run page reads is validated (decision 0015): the bundle's own `timeline`,
 * `payload_manifest`, `codec_schemas`, `integrity`, `signals`, `updates`, `timers`, `selected_run`,
 * `redaction` and `linked_intakes` pass through unchecked. The page derives its timeline from
 * `history_events` (lib/views/timeline.ts), so a real server's timeline entry — e.g. the
 * ActivityRetryScheduled `failure` with `handled: null, id: null` (durable-workflow/workflow
 * src/V2/Support/HistoryTimeline.php@8dc90d64 `failureMetadata`) — can never break the page.
 * Nullability below follows durable-workflow/workflow src/V2/Support/HistoryExport.php@8dc90d64
 * (and @402470f2, the engine of the April-2026 server 11d35b7): every row builder there reads
 * `$x['key'] ?? null`.
 */

/** Activity arguments/results: a base64 codec blob, or an external-storage envelope on newer engines. */
const blobOrEnvelope = z.union([z.string(), payloadEnvelopeSchema]).nullish();

export const exportHistoryEventSchema = z.looseObject({
  id: optionalString,
  sequence: z.number().int(),
  type: openEnum(HISTORY_EVENT_TYPES),
  workflow_task_id: optionalString,
  workflow_command_id: optionalString,
  recorded_at: optionalTimestamp,
  payload: anyMap,
});
export type ExportHistoryEvent = z.infer<typeof exportHistoryEventSchema>;

export const exportWorkflowSchema = z.looseObject({
  instance_id: z.string(),
  run_id: z.string(),
  run_number: z.number().int(),
  is_current_run: optionalBool,
  current_run_id: optionalString,
  workflow_type: optionalString,
  workflow_class: optionalString,
  business_key: optionalString,
  memo: memoValue.optional(),
  search_attributes: anyMap.optional(),
  status: openEnum(RUN_STATUSES),
  status_bucket: openEnum(STATUS_BUCKETS).nullish(),
  closed_reason: openEnum(CLOSED_REASONS).nullish(),
  archived_at: optionalTimestamp,
  compatibility: optionalString,
  connection: optionalString,
  queue: optionalString,
  last_history_sequence: optionalInt,
  started_at: optionalTimestamp,
  closed_at: optionalTimestamp,
  last_progress_at: optionalTimestamp,
});

const payloadSlotSchema = z.looseObject({
  available: z.boolean(),
  data: blobOrEnvelope,
  codec: optionalString,
});

export const exportPayloadsSchema = z.looseObject({
  codec: optionalString,
  arguments: payloadSlotSchema.optional(),
  output: payloadSlotSchema.optional(),
});

export const exportSummarySchema = z.looseObject({
  status: openEnum(RUN_STATUSES).nullish(),
  status_bucket: openEnum(STATUS_BUCKETS).nullish(),
  closed_reason: openEnum(CLOSED_REASONS).nullish(),
  wait_kind: openEnum(WAIT_KINDS).nullish(),
  wait_reason: optionalString,
  wait_started_at: optionalTimestamp,
  wait_deadline_at: optionalTimestamp,
  next_task_id: optionalString,
  next_task_type: optionalString,
  next_task_status: optionalString,
  next_task_lease_expires_at: optionalTimestamp,
  liveness_state: openEnum(LIVENESS_STATES).nullish(),
  liveness_reason: optionalString,
  repair_blocked_reason: openEnum(REPAIR_BLOCKED_REASONS).nullish(),
  repair_attention: optionalBool,
  task_problem: optionalBool,
  task_problem_badge: z.unknown().optional(),
  exception_count: optionalInt,
  history_event_count: optionalInt,
  history_size_bytes: optionalInt,
  continue_as_new_recommended: optionalBool,
  duration_ms: optionalInt,
  // Added by the engine after April 2026 (HistoryExport.php@8dc90d64 `summary`; absent @402470f2):
  // the run header says "not reported by this server version" when they are missing.
  history_fan_out: optionalInt,
  history_budget_pressure: optionalString,
});

export const failureSnapshotSchema = z.looseObject({
  // `$failure['id'] ?? null`: a failure rebuilt from a history event with no failure row has none
  // (FailureSnapshots.php@8dc90d64 `'id' => $failure?->id ?? $failureId`); the table skips it.
  id: optionalString,
  source_kind: openEnum(FAILURE_SOURCE_KINDS).nullish(),
  source_id: optionalString,
  propagation_kind: openEnum(PROPAGATION_KINDS).nullish(),
  failure_category: openEnum(FAILURE_CATEGORIES).nullish(),
  non_retryable: optionalBool,
  handled: optionalBool,
  history_authority: optionalString,
  diagnostic_only: optionalBool,
  exception_type: optionalString,
  exception_class: optionalString,
  exception_resolved_class: optionalString,
  exception_resolution_source: optionalString,
  exception_resolution_error: optionalString,
  exception_replay_blocked: optionalBool,
  message: optionalString,
  file: optionalString,
  line: optionalInt,
  trace_preview: optionalString,
  created_at: optionalTimestamp,
});
export type FailureSnapshot = z.infer<typeof failureSnapshotSchema>;

export const retryPolicySchema = z.looseObject({
  max_attempts: optionalInt,
  backoff_seconds: z.array(z.number()).optional(),
  non_retryable_error_types: z.array(z.string()).optional(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** `activityAttempts()` in HistoryExport.php@8dc90d64 emits `'id' => $attempt['id'] ?? null`, likewise
 *  `attempt_number` and `status`: rows normalised from older history may lack any of them. */
export const activityAttemptSchema = z.looseObject({
  id: optionalString,
  activity_execution_id: optionalString,
  workflow_task_id: optionalString,
  attempt_number: optionalInt,
  status: openEnum(ACTIVITY_ATTEMPT_STATUSES).nullish(),
  lease_owner: optionalString,
  started_at: optionalTimestamp,
  last_heartbeat_at: optionalTimestamp,
  last_heartbeat_progress: z.unknown().optional(),
  lease_expires_at: optionalTimestamp,
  closed_at: optionalTimestamp,
  stop_reason: optionalString,
});
export type ActivityAttempt = z.infer<typeof activityAttemptSchema>;

export const exportActivitySchema = z.looseObject({
  id: z.string(),
  idempotency_key: optionalString,
  sequence: optionalInt,
  activity_type: optionalString,
  activity_class: optionalString,
  // `'status' => $activity['status'] ?? null` (HistoryExport.php@8dc90d64 `activity`).
  status: openEnum(ACTIVITY_STATUSES).nullish(),
  source_status: optionalString,
  history_authority: optionalString,
  diagnostic_only: optionalBool,
  history_event_types: z.array(z.string()).optional(),
  connection: optionalString,
  queue: optionalString,
  retry_policy: retryPolicySchema.nullish(),
  attempt_count: optionalInt,
  current_attempt_id: optionalString,
  payload_codec: optionalString,
  arguments: blobOrEnvelope,
  result: blobOrEnvelope,
  created_at: optionalTimestamp,
  started_at: optionalTimestamp,
  last_heartbeat_at: optionalTimestamp,
  last_heartbeat_progress: z.unknown().optional(),
  closed_at: optionalTimestamp,
  attempts: z.array(activityAttemptSchema),
});
export type ExportActivity = z.infer<typeof exportActivitySchema>;

export const waitSchema = z.looseObject({
  id: z.string(),
  kind: openEnum(WAIT_KINDS),
  sequence: optionalInt,
  status: openEnum(WAIT_STATUSES),
  summary: optionalString,
  opened_at: optionalTimestamp,
  deadline_at: optionalTimestamp,
  resolved_at: optionalTimestamp,
  target_name: optionalString,
  task_id: optionalString,
});

export const exportTaskSchema = z.looseObject({
  id: z.string(),
  type: openEnum(TASK_TYPES),
  status: openEnum(TASK_STATUSES),
  payload: anyMap.nullish(),
  queue: optionalString,
  attempt_count: optionalInt,
  repair_count: optionalInt,
  available_at: optionalTimestamp,
  leased_at: optionalTimestamp,
  lease_owner: optionalString,
  lease_expires_at: optionalTimestamp,
  last_dispatch_error: optionalString,
  last_claim_error: optionalString,
  created_at: optionalTimestamp,
});

export const exportCommandSchema = z.looseObject({
  id: z.string(),
  sequence: optionalInt,
  type: z.string(),
  target_scope: optionalString,
  status: z.string(),
  outcome: openEnum(COMMAND_OUTCOMES).nullish(),
  rejection_reason: optionalString,
  source: optionalString,
  request_id: optionalString,
  // Who sent it (HistoryExport::command@8dc90d64; lib/dw/fixtures/command-attribution-export.md).
  caller_label: optionalString,
  principal_type: optionalString,
  principal_id: optionalString,
  principal_label: optionalString,
  auth_status: optionalString,
  auth_method: optionalString,
  correlation_id: optionalString,
  accepted_at: optionalTimestamp,
  applied_at: optionalTimestamp,
  rejected_at: optionalTimestamp,
});

export const linkSchema = z.looseObject({
  id: optionalString,
  type: optionalString,
  parent_workflow_instance_id: optionalString,
  parent_workflow_run_id: optionalString,
  child_workflow_instance_id: optionalString,
  child_workflow_run_id: optionalString,
  run_number: optionalInt,
  workflow_type: optionalString,
  status: optionalString,
});

export const historyExportSchema = z.looseObject({
  schema: z.literal("durable-workflow.v2.history-export"),
  schema_version: z.literal(1),
  exported_at: timestamp,
  dedupe_key: z.string().min(1),
  history_complete: z.boolean(),
  workflow: exportWorkflowSchema,
  payloads: exportPayloadsSchema,
  summary: exportSummarySchema.nullish(),
  history_events: z.array(exportHistoryEventSchema),
  waits: z.array(waitSchema).optional(),
  commands: z.array(exportCommandSchema).optional(),
  tasks: z.array(exportTaskSchema).optional(),
  activities: z.array(exportActivitySchema).optional(),
  failures: z.array(failureSnapshotSchema).optional(),
  links: z
    .looseObject({
      projection_source: optionalString,
      parents: z.array(linkSchema).optional(),
      children: z.array(linkSchema).optional(),
    })
    .optional(),
  // Read by no screen: relayed as sent (the download route serves the bundle byte for byte).
  timeline: z.unknown().optional(),
  payload_manifest: z.unknown().optional(),
  integrity: z.unknown().optional(),
});
export type HistoryExport = z.infer<typeof historyExportSchema>;
