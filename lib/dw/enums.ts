/**
 * Known members of the Durable Workflow enumerations (server-api.md §3, v2-model.md §2).
 *
 * Schemas accept any string in these positions: newer engines add members (e.g. the
 * `ServiceCall*` event types) and the console must render them verbatim instead of failing.
 * These constants exist so screens can branch on the members they understand.
 */

/** A member of a known set, or any other string the server may send. */
export type Open<T extends string> = T | (string & {});

export const RUN_STATUSES = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "terminated",
] as const;
export type RunStatus = Open<(typeof RUN_STATUSES)[number]>;

export const STATUS_BUCKETS = ["running", "completed", "failed"] as const;
export type StatusBucket = Open<(typeof STATUS_BUCKETS)[number]>;
/** The only values `GET /workflows?status=` accepts; anything else is a 422. */
export type StatusBucketFilter = (typeof STATUS_BUCKETS)[number];

export const CLOSED_REASONS = ["completed", "failed", "cancelled", "terminated", "continued", "timed_out"] as const;
export type ClosedReason = Open<(typeof CLOSED_REASONS)[number]>;

export const COMMAND_STATUSES = ["accepted", "rejected"] as const;
export type CommandStatus = Open<(typeof COMMAND_STATUSES)[number]>;

export const COMMAND_TYPES = ["start", "signal", "update", "repair", "cancel", "terminate", "archive"] as const;
export type CommandType = Open<(typeof COMMAND_TYPES)[number]>;

export const COMMAND_OUTCOMES = [
  "started_new",
  "returned_existing_active",
  "rejected_duplicate",
  "signal_received",
  "update_completed",
  "update_failed",
  "repair_dispatched",
  "repair_not_needed",
  "cancelled",
  "terminated",
  "archived",
  "archive_not_needed",
  "rejected_not_started",
  "rejected_not_active",
  "rejected_not_current",
  "rejected_run_not_closed",
  "rejected_unknown_signal",
  "rejected_unknown_update",
  "rejected_invalid_arguments",
  "rejected_pending_signal",
  "rejected_compatibility_blocked",
  "rejected_workflow_definition_unavailable",
] as const;
export type CommandOutcome = Open<(typeof COMMAND_OUTCOMES)[number]>;

export const REJECTION_REASONS = [
  "instance_not_started",
  "run_not_active",
  "selected_run_not_current",
  "run_not_closed",
  "unknown_signal",
  "unknown_update",
  "invalid_signal_arguments",
  "invalid_update_arguments",
  "structural_limit_exceeded",
  "blocked_by_pending_signal",
  "earlier_signal_pending",
  "workflow_definition_unavailable",
  "configured_workflow_type_invalid",
] as const;
export type RejectionReason = Open<(typeof REJECTION_REASONS)[number]>;

export const TARGET_SCOPES = ["instance", "run"] as const;
export type TargetScope = Open<(typeof TARGET_SCOPES)[number]>;

export const FAILURE_CATEGORIES = [
  "application",
  "cancelled",
  "terminated",
  "timeout",
  "activity",
  "child_workflow",
  "task_failure",
  "internal",
  "structural_limit",
] as const;
export type FailureCategory = Open<(typeof FAILURE_CATEGORIES)[number]>;

export const PROPAGATION_KINDS = [
  "activity",
  "timeout",
  "child",
  "cancelled",
  "terminated",
  "terminal",
  "update",
  "workflow",
  "local",
] as const;
export type PropagationKind = Open<(typeof PROPAGATION_KINDS)[number]>;

export const FAILURE_SOURCE_KINDS = [
  "activity_execution",
  "child_workflow_run",
  "workflow_run",
  "workflow_command",
  "workflow_task",
] as const;
export type FailureSourceKind = Open<(typeof FAILURE_SOURCE_KINDS)[number]>;

export const LIVENESS_STATES = [
  "closed",
  "repair_needed",
  "workflow_replay_blocked",
  "activity_running_without_task",
  "waiting_for_condition",
  "waiting_for_signal",
  "waiting_for_child",
  "timer_scheduled",
  "workflow_task_ready",
  "activity_task_ready",
  "timer_task_ready",
  "workflow_task_leased",
  "activity_task_leased",
  "timer_task_leased",
  "workflow_task_claim_failed",
  "activity_task_claim_failed",
  "timer_task_claim_failed",
  "workflow_task_waiting_for_compatible_worker",
  "activity_task_waiting_for_compatible_worker",
  "timer_task_waiting_for_compatible_worker",
] as const;
export type LivenessState = Open<(typeof LIVENESS_STATES)[number]>;

export const REPAIR_BLOCKED_REASONS = [
  "unsupported_history",
  "waiting_for_compatible_worker",
  "selected_run_not_current",
  "run_closed",
  "repair_not_needed",
] as const;
export type RepairBlockedReason = Open<(typeof REPAIR_BLOCKED_REASONS)[number]>;

export const DIAGNOSTIC_STATUSES = [
  "terminal",
  "needs_attention",
  "pending_work",
  "waiting",
  "queue_backlog",
  "running",
] as const;
export type DiagnosticStatus = Open<(typeof DIAGNOSTIC_STATUSES)[number]>;

export const DEBUG_FINDING_CODES = [
  "no_active_pollers",
  "expired_leases",
  "task_problem",
  "repair_attention",
  "workflow_replay_blocked",
] as const;
export type DebugFindingCode = Open<(typeof DEBUG_FINDING_CODES)[number]>;

export const TRANSPORT_STATES = [
  "leased",
  "lease_expired",
  "scheduled",
  "dispatch_failed",
  "repair_backoff",
  "claim_failed",
  "dispatch_overdue",
  "ready",
  "missing",
  "replay_blocked",
  "completed",
  "cancelled",
  "failed",
] as const;
export type TransportState = Open<(typeof TRANSPORT_STATES)[number]>;

export const WAIT_KINDS = ["activity", "update", "signal", "timer", "condition", "workflow-task", "child"] as const;
export type WaitKind = Open<(typeof WAIT_KINDS)[number]>;

export const WAIT_STATUSES = ["open", "resolved", "cancelled", "unsupported"] as const;
export type WaitStatus = Open<(typeof WAIT_STATUSES)[number]>;

export const ACTIVITY_STATUSES = ["pending", "running", "completed", "failed", "cancelled", "unsupported"] as const;
export type ActivityStatus = Open<(typeof ACTIVITY_STATUSES)[number]>;

export const ACTIVITY_ATTEMPT_STATUSES = ["running", "completed", "failed", "cancelled", "expired"] as const;
export type ActivityAttemptStatus = Open<(typeof ACTIVITY_ATTEMPT_STATUSES)[number]>;

export const TASK_STATUSES = ["ready", "leased", "completed", "failed", "cancelled", "missing"] as const;
export type TaskStatus = Open<(typeof TASK_STATUSES)[number]>;

export const TASK_TYPES = ["workflow", "activity", "timer"] as const;
export type TaskType = Open<(typeof TASK_TYPES)[number]>;

export const TIMELINE_KINDS = [
  "command",
  "signal",
  "update",
  "child",
  "condition",
  "activity",
  "failure",
  "side_effect",
  "version",
  "timer",
  "workflow",
] as const;
export type TimelineKind = Open<(typeof TIMELINE_KINDS)[number]>;

export const WORKER_STATUSES = ["active", "draining", "stale"] as const;
export type WorkerStatus = Open<(typeof WORKER_STATUSES)[number]>;

export const ADMISSION_STATUSES = [
  "accepting",
  "saturated",
  "no_slots",
  "no_active_workers",
  "throttled",
  "unavailable",
  "full",
] as const;
export type AdmissionStatus = Open<(typeof ADMISSION_STATUSES)[number]>;

export const ACTIVITY_TIMEOUT_OUTCOMES = ["enforced", "skipped", "error"] as const;
export type ActivityTimeoutOutcome = Open<(typeof ACTIVITY_TIMEOUT_OUTCOMES)[number]>;

export const HISTORY_EVENT_TYPES = [
  "StartAccepted",
  "StartRejected",
  "WorkflowStarted",
  "WorkflowContinuedAsNew",
  "ChildWorkflowScheduled",
  "ChildRunStarted",
  "ChildRunCompleted",
  "ChildRunFailed",
  "ChildRunCancelled",
  "ChildRunTerminated",
  "ConditionWaitOpened",
  "ConditionWaitSatisfied",
  "ConditionWaitTimedOut",
  "SignalWaitOpened",
  "SignalReceived",
  "SignalApplied",
  "UpdateAccepted",
  "UpdateRejected",
  "UpdateApplied",
  "UpdateCompleted",
  "RepairRequested",
  "CancelRequested",
  "WorkflowCancelled",
  "TerminateRequested",
  "WorkflowTerminated",
  "ArchiveRequested",
  "WorkflowArchived",
  "ActivityScheduled",
  "ActivityStarted",
  "ActivityHeartbeatRecorded",
  "ActivityRetryScheduled",
  "ActivityCompleted",
  "ActivityFailed",
  "ActivityCancelled",
  "ActivityTimedOut",
  "FailureHandled",
  "SideEffectRecorded",
  "VersionMarkerRecorded",
  "TimerScheduled",
  "TimerFired",
  "TimerCancelled",
  "SearchAttributesUpserted",
  "MemoUpserted",
  "WorkflowTimedOut",
  "WorkflowCompleted",
  "WorkflowFailed",
  "ParentClosePolicyApplied",
  "ParentClosePolicyFailed",
  "MessageCursorAdvanced",
  // Service operations (durable-workflow/workflow src/V2/Enums/HistoryEventType.php@8dc90d64).
  "ServiceCallStarted",
  "ServiceCallCompleted",
  "ServiceCallFailed",
  "ServiceCallCancelled",
  // Waits, selections and cancellation that sdk-python 2.12.0 writes and replays (protocol 1.20:
  // durable_workflow/_cancellation_scope.py, _cancellation_scope_history.py, _cooperative_cancellation.py, workflow.py).
  "SignalWaitReceived",
  "SignalWaitTimedOut",
  "SignalWaitCancelled",
  "ConditionWaitCancelled",
  "SelectionResolved",
  "SelectionOperationCancelled",
  "CancellationScopeOpened",
  "CancellationScopeRequested",
  "CancellationScopeDeliveryPrepared",
  "CancellationScopeDelivered",
  "CancellationScopeRequestConflicted",
  "CooperativeCancellationRequested",
  "CooperativeCancellationDelivered",
  "ScheduleCreated",
  "SchedulePaused",
  "ScheduleResumed",
  "ScheduleUpdated",
  "ScheduleTriggered",
  "ScheduleDeleted",
  "ScheduleTriggerSkipped",
] as const;
export type HistoryEventType = Open<(typeof HISTORY_EVENT_TYPES)[number]>;

/** Whether `value` is one of the `known` members (narrowing helper for UI branches). */
export function isKnown<T extends string>(known: readonly T[], value: string): value is T {
  return (known as readonly string[]).includes(value);
}
