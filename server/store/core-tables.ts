/**
 * Migration 1 (`core_tables`) of server/store/migrations.ts: the Durable Workflow v2 tables the
 * embedded server started with. Shipped, so never edited: later changes are new migrations there.
 */
export const CORE_TABLES_SQL = `
CREATE TABLE namespaces (
  name TEXT PRIMARY KEY,
  description TEXT,
  retention_days INTEGER NOT NULL DEFAULT 30,
  status TEXT NOT NULL DEFAULT 'active',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE workflow_instances (
  id TEXT NOT NULL,
  namespace TEXT NOT NULL DEFAULT 'default',
  workflow_class TEXT,
  workflow_type TEXT NOT NULL,
  business_key TEXT,
  visibility_labels TEXT,
  memo TEXT,
  execution_timeout_seconds INTEGER,
  current_run_id TEXT,
  run_count INTEGER NOT NULL DEFAULT 0,
  last_message_sequence INTEGER NOT NULL DEFAULT 0,
  reserved_at INTEGER,
  started_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, id)
);

CREATE TABLE workflow_runs (
  id TEXT PRIMARY KEY,
  workflow_instance_id TEXT NOT NULL,
  namespace TEXT NOT NULL DEFAULT 'default',
  run_number INTEGER NOT NULL,
  workflow_class TEXT,
  workflow_type TEXT NOT NULL,
  business_key TEXT,
  visibility_labels TEXT,
  memo TEXT,
  search_attributes TEXT,
  status TEXT NOT NULL,
  closed_reason TEXT,
  compatibility TEXT,
  payload_codec TEXT,
  arguments TEXT,
  output TEXT,
  output_payload_codec TEXT,
  connection TEXT,
  queue TEXT,
  priority INTEGER NOT NULL DEFAULT 5,
  last_history_sequence INTEGER NOT NULL DEFAULT 0,
  last_command_sequence INTEGER NOT NULL DEFAULT 0,
  message_cursor_position INTEGER NOT NULL DEFAULT 0,
  execution_timeout_seconds INTEGER,
  run_timeout_seconds INTEGER,
  execution_deadline_at INTEGER,
  run_deadline_at INTEGER,
  started_at INTEGER,
  closed_at INTEGER,
  archived_at INTEGER,
  archive_command_id TEXT,
  archive_reason TEXT,
  last_progress_at INTEGER,
  continued_from_run_id TEXT,
  parent_workflow_instance_id TEXT,
  parent_workflow_run_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (namespace, workflow_instance_id, run_number)
);
CREATE INDEX workflow_runs_status ON workflow_runs (status);

CREATE TABLE workflow_history_events (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT,
  workflow_task_id TEXT,
  workflow_command_id TEXT,
  recorded_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (workflow_run_id, sequence)
);

CREATE TABLE workflow_tasks (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  namespace TEXT NOT NULL DEFAULT 'default',
  task_type TEXT NOT NULL,
  status TEXT NOT NULL,
  compatibility TEXT,
  payload TEXT,
  connection TEXT,
  queue TEXT,
  priority INTEGER NOT NULL DEFAULT 5,
  available_at INTEGER,
  leased_at INTEGER,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  last_dispatch_attempt_at INTEGER,
  last_dispatched_at INTEGER,
  last_dispatch_error TEXT,
  last_claim_failed_at INTEGER,
  last_claim_error TEXT,
  repair_count INTEGER NOT NULL DEFAULT 0,
  repair_available_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_tasks_status_available ON workflow_tasks (status, available_at);
CREATE INDEX workflow_tasks_run ON workflow_tasks (workflow_run_id, status);
CREATE INDEX workflow_tasks_poll ON workflow_tasks (namespace, task_type, queue, status, available_at);
CREATE INDEX workflow_tasks_lease ON workflow_tasks (status, lease_expires_at);

CREATE TABLE activity_executions (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  activity_class TEXT,
  activity_type TEXT NOT NULL,
  status TEXT NOT NULL,
  payload_codec TEXT,
  arguments TEXT,
  result TEXT,
  exception TEXT,
  connection TEXT,
  queue TEXT,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  current_attempt_id TEXT,
  retry_policy TEXT,
  activity_options TEXT,
  schedule_deadline_at INTEGER,
  close_deadline_at INTEGER,
  schedule_to_close_deadline_at INTEGER,
  heartbeat_deadline_at INTEGER,
  started_at INTEGER,
  closed_at INTEGER,
  last_heartbeat_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (workflow_run_id, sequence)
);
CREATE INDEX activity_executions_status ON activity_executions (status);

CREATE TABLE activity_attempts (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  activity_execution_id TEXT NOT NULL,
  workflow_task_id TEXT,
  attempt_number INTEGER NOT NULL,
  status TEXT NOT NULL,
  lease_owner TEXT,
  started_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER,
  lease_expires_at INTEGER,
  closed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (activity_execution_id, attempt_number)
);
CREATE INDEX activity_attempts_status ON activity_attempts (status);

CREATE TABLE workflow_failures (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  source_kind TEXT NOT NULL,
  source_id TEXT NOT NULL,
  propagation_kind TEXT NOT NULL,
  failure_category TEXT,
  non_retryable INTEGER NOT NULL DEFAULT 0,
  handled INTEGER NOT NULL DEFAULT 0,
  exception_class TEXT NOT NULL,
  exception_type TEXT,
  message TEXT NOT NULL,
  file TEXT NOT NULL DEFAULT '',
  line INTEGER,
  trace_preview TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_failures_run ON workflow_failures (workflow_run_id);
CREATE INDEX workflow_failures_category ON workflow_failures (failure_category);

CREATE TABLE workflow_run_timers (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  status TEXT NOT NULL,
  delay_seconds INTEGER NOT NULL,
  fire_at INTEGER NOT NULL,
  fired_at INTEGER,
  cancelled_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_run_timers_run ON workflow_run_timers (workflow_run_id, status);

CREATE TABLE workflow_commands (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL DEFAULT 'default',
  workflow_instance_id TEXT,
  workflow_run_id TEXT,
  requested_workflow_run_id TEXT,
  resolved_workflow_run_id TEXT,
  command_type TEXT NOT NULL,
  target_scope TEXT NOT NULL DEFAULT 'instance',
  target_name TEXT,
  source TEXT NOT NULL DEFAULT 'control_plane',
  context TEXT,
  request_id TEXT,
  status TEXT NOT NULL,
  outcome TEXT,
  rejection_reason TEXT,
  workflow_class TEXT,
  workflow_type TEXT,
  payload_codec TEXT,
  payload TEXT,
  command_sequence INTEGER,
  message_sequence INTEGER,
  accepted_at INTEGER,
  applied_at INTEGER,
  rejected_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_commands_run ON workflow_commands (workflow_run_id);
CREATE UNIQUE INDEX workflow_commands_request ON workflow_commands (namespace, workflow_instance_id, command_type, request_id) WHERE request_id IS NOT NULL;

CREATE TABLE workflow_signal_records (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  workflow_command_id TEXT,
  signal_name TEXT NOT NULL,
  status TEXT NOT NULL,
  payload_codec TEXT,
  arguments TEXT,
  message_sequence INTEGER,
  received_at INTEGER NOT NULL,
  applied_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_signal_records_run ON workflow_signal_records (workflow_run_id, status);

CREATE TABLE workflow_links (
  id TEXT PRIMARY KEY,
  link_type TEXT NOT NULL,
  sequence INTEGER,
  parent_workflow_instance_id TEXT NOT NULL,
  parent_workflow_run_id TEXT NOT NULL,
  child_workflow_instance_id TEXT NOT NULL,
  child_workflow_run_id TEXT NOT NULL,
  is_primary_parent INTEGER NOT NULL DEFAULT 1,
  parent_close_policy TEXT NOT NULL DEFAULT 'abandon',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_links_parent ON workflow_links (parent_workflow_run_id);
CREATE INDEX workflow_links_child ON workflow_links (child_workflow_run_id);

CREATE TABLE workflow_child_calls (
  id TEXT PRIMARY KEY,
  parent_workflow_run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  child_workflow_instance_id TEXT NOT NULL,
  child_workflow_run_id TEXT,
  child_workflow_type TEXT NOT NULL,
  status TEXT NOT NULL,
  closed_reason TEXT,
  parent_close_policy TEXT NOT NULL DEFAULT 'abandon',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (parent_workflow_run_id, sequence)
);
CREATE INDEX workflow_child_calls_child ON workflow_child_calls (child_workflow_run_id);

CREATE TABLE worker_registrations (
  worker_id TEXT NOT NULL,
  namespace TEXT NOT NULL DEFAULT 'default',
  task_queue TEXT NOT NULL,
  runtime TEXT,
  sdk_version TEXT,
  build_id TEXT,
  host TEXT,
  process_id TEXT,
  supported_workflow_types TEXT,
  supported_activity_types TEXT,
  max_concurrent_workflow_tasks INTEGER,
  max_concurrent_activity_tasks INTEGER,
  status TEXT NOT NULL DEFAULT 'active',
  registered_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, worker_id)
);

CREATE TABLE workflow_run_summaries (
  id TEXT PRIMARY KEY,
  workflow_instance_id TEXT NOT NULL,
  namespace TEXT NOT NULL DEFAULT 'default',
  run_number INTEGER NOT NULL,
  is_current_run INTEGER NOT NULL DEFAULT 1,
  engine_source TEXT NOT NULL DEFAULT 'v2',
  projection_schema_version INTEGER NOT NULL DEFAULT 2,
  class TEXT,
  workflow_type TEXT NOT NULL,
  compatibility TEXT,
  business_key TEXT,
  visibility_labels TEXT,
  status TEXT NOT NULL,
  status_bucket TEXT NOT NULL,
  closed_reason TEXT,
  connection TEXT,
  queue TEXT,
  started_at INTEGER,
  sort_timestamp INTEGER,
  sort_key TEXT,
  closed_at INTEGER,
  archived_at INTEGER,
  archive_command_id TEXT,
  archive_reason TEXT,
  duration_ms INTEGER,
  wait_kind TEXT,
  wait_reason TEXT,
  wait_started_at INTEGER,
  wait_deadline_at INTEGER,
  open_wait_id TEXT,
  resume_source_kind TEXT,
  resume_source_id TEXT,
  next_task_at INTEGER,
  next_task_id TEXT,
  next_task_type TEXT,
  next_task_status TEXT,
  next_task_lease_expires_at INTEGER,
  liveness_state TEXT,
  liveness_reason TEXT,
  repair_blocked_reason TEXT,
  repair_attention INTEGER NOT NULL DEFAULT 0,
  task_problem INTEGER NOT NULL DEFAULT 0,
  exception_count INTEGER NOT NULL DEFAULT 0,
  history_event_count INTEGER NOT NULL DEFAULT 0,
  history_size_bytes INTEGER NOT NULL DEFAULT 0,
  history_fan_out INTEGER NOT NULL DEFAULT 0,
  continue_as_new_recommended INTEGER NOT NULL DEFAULT 0,
  history_budget_pressure TEXT NOT NULL DEFAULT 'ok',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workflow_run_summaries_list ON workflow_run_summaries (namespace, sort_key);
CREATE INDEX workflow_run_summaries_bucket ON workflow_run_summaries (namespace, status_bucket, sort_key);
CREATE INDEX workflow_run_summaries_type ON workflow_run_summaries (namespace, workflow_type, sort_key);
CREATE INDEX workflow_run_summaries_liveness ON workflow_run_summaries (namespace, liveness_state);
`;
