/** Row shapes of the durable tables the engine reads (server/store/migrations.ts). Times are epoch ms. */

export interface InstanceRow {
  id: string;
  namespace: string;
  workflow_class: string | null;
  workflow_type: string;
  business_key: string | null;
  memo: string | null;
  execution_timeout_seconds: number | null;
  current_run_id: string | null;
  run_count: number;
  last_message_sequence: number;
  started_at: number | null;
  created_at: number;
}

export interface RunRow {
  id: string;
  workflow_instance_id: string;
  namespace: string;
  run_number: number;
  workflow_class: string | null;
  workflow_type: string;
  business_key: string | null;
  visibility_labels: string | null;
  memo: string | null;
  search_attributes: string | null;
  status: string;
  closed_reason: string | null;
  compatibility: string | null;
  payload_codec: string | null;
  arguments: string | null;
  output: string | null;
  output_payload_codec: string | null;
  connection: string | null;
  queue: string | null;
  last_history_sequence: number;
  last_command_sequence: number;
  execution_timeout_seconds: number | null;
  run_timeout_seconds: number | null;
  execution_deadline_at: number | null;
  run_deadline_at: number | null;
  started_at: number | null;
  closed_at: number | null;
  archived_at: number | null;
  archive_command_id: string | null;
  archive_reason: string | null;
  last_progress_at: number | null;
  continued_from_run_id: string | null;
  parent_workflow_instance_id: string | null;
  parent_workflow_run_id: string | null;
  /** Cooperative cancellation (migration 11): the accepted request, its deadline and delivery. */
  cancellation_request_command_id?: string | null;
  cancellation_requested_at?: number | null;
  cancellation_deadline_at?: number | null;
  cancellation_delivery_sequence?: number | null;
  cancellation_delivered_at?: number | null;
  created_at: number;
}

export interface TaskRow {
  id: string;
  workflow_run_id: string;
  namespace: string;
  task_type: string;
  status: string;
  compatibility: string | null;
  payload: string | null;
  connection: string | null;
  queue: string | null;
  available_at: number | null;
  leased_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  attempt_count: number;
  last_dispatch_attempt_at: number | null;
  last_dispatched_at: number | null;
  last_dispatch_error: string | null;
  last_claim_failed_at: number | null;
  last_claim_error: string | null;
  repair_count: number;
  repair_available_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ActivityRow {
  id: string;
  workflow_run_id: string;
  sequence: number;
  activity_class: string | null;
  activity_type: string;
  status: string;
  payload_codec: string | null;
  arguments: string | null;
  result: string | null;
  exception: string | null;
  connection: string | null;
  queue: string | null;
  attempt_count: number;
  current_attempt_id: string | null;
  retry_policy: string | null;
  activity_options: string | null;
  schedule_deadline_at: number | null;
  close_deadline_at: number | null;
  schedule_to_close_deadline_at: number | null;
  heartbeat_deadline_at: number | null;
  started_at: number | null;
  closed_at: number | null;
  last_heartbeat_at: number | null;
  created_at: number;
}

export interface AttemptRow {
  id: string;
  workflow_run_id: string;
  activity_execution_id: string;
  workflow_task_id: string | null;
  attempt_number: number;
  status: string;
  lease_owner: string | null;
  started_at: number;
  last_heartbeat_at: number | null;
  lease_expires_at: number | null;
  closed_at: number | null;
}

export interface TimerRow {
  id: string;
  workflow_run_id: string;
  sequence: number;
  status: string;
  delay_seconds: number;
  fire_at: number;
  fired_at: number | null;
  cancelled_at: number | null;
  created_at: number;
}

export interface HistoryRow {
  id: string;
  workflow_run_id: string;
  sequence: number;
  event_type: string;
  payload: string | null;
  workflow_task_id: string | null;
  workflow_command_id: string | null;
  recorded_at: number;
}

export interface FailureRow {
  id: string;
  workflow_run_id: string;
  source_kind: string;
  source_id: string;
  propagation_kind: string;
  failure_category: string | null;
  non_retryable: number;
  handled: number;
  exception_class: string;
  exception_type: string | null;
  message: string;
  file: string;
  line: number | null;
  trace_preview: string | null;
  created_at: number;
}

export type CommandStatus = "accepted" | "rejected";

export interface CommandRow {
  id: string;
  namespace: string;
  workflow_instance_id: string | null;
  workflow_run_id: string | null;
  requested_workflow_run_id: string | null;
  resolved_workflow_run_id: string | null;
  command_type: string;
  target_scope: string;
  target_name: string | null;
  source: string;
  context: string | null;
  request_id: string | null;
  status: CommandStatus;
  outcome: string | null;
  rejection_reason: string | null;
  workflow_class: string | null;
  workflow_type: string | null;
  payload_codec: string | null;
  payload: string | null;
  command_sequence: number | null;
  message_sequence: number | null;
  accepted_at: number | null;
  applied_at: number | null;
  rejected_at: number | null;
  created_at: number;
}

/** Frozen at schedule time (v2-model §8.2). `max_attempts: null` means unlimited. */
export interface RetryPolicySnapshot {
  snapshot_version: 1;
  max_attempts: number | null;
  backoff_seconds: number[];
  start_to_close_timeout: number | null;
  schedule_to_start_timeout: number | null;
  schedule_to_close_timeout: number | null;
  heartbeat_timeout: number | null;
  non_retryable_error_types: string[];
}

export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled", "terminated"]);

export function isTerminal(status: string): boolean {
  return TERMINAL_RUN_STATUSES.has(status);
}

/** A JSON-object column (a task's `payload`, an event's) as an object: `{}` when empty, unparsable or not an object. */
export function parsePayload(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
