/**
 * The English text of every message the views emit (lib/views/message.ts), apart from the
 * descriptors themselves so that a page's scripts do not carry it: screens render descriptors with
 * next-intl, whose catalogs are messages/*.json. Here for what is not a screen: the retry forecast's
 * English in tests, the catalog's consistency tests, and tests that read a view's sentence.
 */
import { formatTemplate } from "./message";
import type { Message, MessageValues, ViewMessageId } from "./message";

/**
 * English templates for every id the views emit, in the `{name}` placeholder syntax next-intl uses.
 * Ids are dot paths under `views.`; messages/en.json holds exactly this table, nested
 * (`nestMessages`), and messages/de.json its German translation.
 */
export const VIEW_MESSAGES_EN = {
  "views.liveness.closed": "Closed",
  "views.liveness.repair_needed": "Stuck: repair needed",
  "views.liveness.workflow_replay_blocked": "Replay blocked",
  "views.liveness.activity_running_without_task": "Activity running without a task",
  "views.liveness.waiting_for_condition": "Waiting for a condition",
  "views.liveness.waiting_for_signal": "Waiting for a signal",
  "views.liveness.waiting_for_child": "Waiting for a child workflow",
  "views.liveness.timer_scheduled": "Timer scheduled",
  "views.liveness.workflow_task_ready": "Workflow task ready",
  "views.liveness.workflow_task_leased": "Workflow task running",
  "views.liveness.workflow_task_claim_failed": "Workflow task claim failed",
  "views.liveness.workflow_task_waiting_for_compatible_worker": "Workflow task waiting for a compatible worker",
  "views.liveness.activity_task_ready": "Activity task ready",
  "views.liveness.activity_task_leased": "Activity task running",
  "views.liveness.activity_task_claim_failed": "Activity task claim failed",
  "views.liveness.activity_task_waiting_for_compatible_worker": "Activity task waiting for a compatible worker",
  "views.liveness.timer_task_ready": "Timer task ready",
  "views.liveness.timer_task_leased": "Timer task running",
  "views.liveness.timer_task_claim_failed": "Timer task claim failed",
  "views.liveness.timer_task_waiting_for_compatible_worker": "Timer task waiting for a compatible worker",
  "views.liveness.unavailable": "Liveness unknown",
  "views.verbatim": "{text}",

  "views.repairBlocked.unsupported_history": "Repair is blocked because only unsupported diagnostic history remains.",
  "views.repairBlocked.waiting_for_compatible_worker":
    "Repair is blocked because the task is waiting for a compatible worker.",
  "views.repairBlocked.selected_run_not_current": "Repair is blocked because the selected run is no longer current.",
  "views.repairBlocked.run_closed": "Repair is blocked because the selected run is already closed.",
  "views.repairBlocked.repair_not_needed":
    "Repair is not needed because the run already has a healthy durable resume path.",
  "views.repairBlocked.label.unsupported_history": "Replay Blocked",
  "views.repairBlocked.label.waiting_for_compatible_worker": "Compat Blocked",
  "views.repairBlocked.label.selected_run_not_current": "Historical Run",
  "views.repairBlocked.label.run_closed": "Run Closed",
  "views.repairBlocked.label.repair_not_needed": "Repair Not Needed",

  "views.taskProblem.replay_blocked": "Task Failure",
  "views.taskProblem.active": "Task Problem",
  "views.taskProblem.history": "Task History",

  "views.capability.read_only": "The console is in read-only mode.",
  "views.capability.person_role": "Requires the {requiredRole} role; you are signed in as {personRole}.",
  "views.capability.role": "The console's token has the {role} role; this needs {requiredRole}.",
  "views.capability.selected_run_not_current": "This run is historical. Act on the current run instead.",
  "views.capability.run_closed": "The run is closed.",
  "views.capability.run_not_closed": "Only closed runs can be archived.",
  "views.capability.run_archived": "The run is already archived.",
  "views.capability.run_open": "The run is still open; start again once it has closed.",
  "views.capability.liveness_unknown": "Repair needs the run's liveness, which has not loaded.",
  "views.capability.repair_not_needed": "Repair is not needed: the run already has a healthy durable resume path.",
  "views.capability.unsupported_history": "Repair is blocked: only unsupported diagnostic history remains.",
  "views.capability.waiting_for_compatible_worker": "Repair is blocked: the task is waiting for a compatible worker.",
  "views.capability.server_disallowed": "The server does not allow this action on this run.",
  "views.capability.server_capabilities_unknown": "Waiting to read the server's capabilities (cluster/info).",
  "views.capability.cancellation_not_advertised":
    "The server does not advertise cooperative cancellation (cluster/info).",

  "views.forecast.due": "{activity} attempt {attempt} of {max} is due {time} ({relative})",
  "views.forecast.dueUnlimited": "{activity} attempt {attempt} is due {time} ({relative})",
  "views.forecast.overdue": "{activity} attempt {attempt} of {max} was due {time} ({relative})",
  "views.forecast.overdueUnlimited": "{activity} attempt {attempt} was due {time} ({relative})",
  "views.forecast.running": "{activity} attempt {attempt} of {max} is running",
  "views.forecast.runningUnlimited": "{activity} attempt {attempt} is running",
  "views.forecast.waiting": "{activity} attempt {attempt} of {max} is waiting for a worker",
  "views.forecast.waitingUnlimited": "{activity} attempt {attempt} is waiting for a worker",
  "views.forecast.nonRetryableOne": "{types} is non-retryable, so a recurrence fails the workflow",
  "views.forecast.nonRetryableMany": "{types} are non-retryable, so a recurrence fails the workflow",
  "views.forecast.lastAttempt": "this is the last attempt, so another failure fails the workflow",
  "views.forecast.separator": "; ",

  "views.timeline.StartAccepted": "Start accepted as {outcome}.",
  "views.timeline.StartRejected": "Start rejected: {reason}.",
  "views.timeline.WorkflowStarted": "Workflow run started.",
  "views.timeline.WorkflowContinuedAsNew": "Continued as new on run {runId}.",
  "views.timeline.WorkflowCompleted": "Workflow completed.",
  "views.timeline.WorkflowFailed": "Workflow failed: {message}.",
  "views.timeline.WorkflowTimedOutExecution": "Workflow execution deadline expired.",
  "views.timeline.WorkflowTimedOutRun": "Workflow run deadline expired.",
  "views.timeline.CancelRequested": "Cancel requested.",
  "views.timeline.WorkflowCancelled": "Workflow cancelled.",
  "views.timeline.TerminateRequested": "Terminate requested.",
  "views.timeline.WorkflowTerminated": "Workflow terminated.",
  "views.timeline.ArchiveRequested": "Archive requested.",
  "views.timeline.ArchiveRequestedNotNeeded": "Archive accepted; the run was already archived.",
  "views.timeline.WorkflowArchived": "Workflow archived.",
  "views.timeline.ActivityScheduled": "Scheduled {activity}.",
  "views.timeline.ActivityStarted": "Started {activity}.",
  "views.timeline.ActivityHeartbeatRecorded": "Recorded heartbeat for {activity}.",
  "views.timeline.ActivityRetryScheduled": "Scheduled retry {attempt} for {activity}.",
  "views.timeline.ActivityCompleted": "Completed {activity}.",
  "views.timeline.ActivityFailed": "Failed {activity}: {message}.",
  "views.timeline.ActivityCancelled": "Cancelled {activity}.",
  "views.timeline.ActivityTimedOut": "Timed out {activity}: {message}.",
  "views.timeline.FailureHandled": "Handled failure: {message}.",
  "views.timeline.TimerScheduled": "Scheduled timer for {seconds} s.",
  "views.timeline.TimerFired": "Timer fired after {seconds} s.",
  "views.timeline.TimerCancelled": "Timer cancelled.",
  "views.timeline.SignalWaitOpened": "Waiting for signal {name}.",
  "views.timeline.SignalReceived": "Signal {name} received.",
  "views.timeline.SignalApplied": "Applied signal {name}.",
  "views.timeline.UpdateAccepted": "Accepted update {name}.",
  "views.timeline.UpdateRejected": "Rejected update {name}.",
  "views.timeline.UpdateApplied": "Applied update {name}.",
  "views.timeline.UpdateCompleted": "Completed update {name}.",
  "views.timeline.UpdateCompletedFailed": "Update {name} failed: {message}.",
  "views.timeline.ConditionWaitOpened": "Waiting for condition.",
  "views.timeline.ConditionWaitOpenedTimeout": "Waiting for condition or timeout after {seconds} s.",
  "views.timeline.ConditionWaitSatisfied": "Condition satisfied.",
  "views.timeline.ConditionWaitTimedOut": "Condition timed out after {seconds} s.",
  "views.timeline.RepairRequestedDispatched": "Repair recreated {taskType} task.",
  "views.timeline.RepairRequestedNotNeeded": "Repair accepted; the run already had a durable resume source.",
  "views.timeline.ChildWorkflowScheduled": "Scheduled child workflow {name}.",
  "views.timeline.ChildRunStarted": "Child workflow {name} started.",
  "views.timeline.ChildRunCompleted": "Child workflow {name} completed.",
  "views.timeline.ChildRunFailed": "Child workflow {name} failed: {message}.",
  "views.timeline.ChildRunCancelled": "Child workflow {name} cancelled.",
  "views.timeline.ChildRunTerminated": "Child workflow {name} terminated.",
  "views.timeline.SideEffectRecorded": "Recorded side effect.",
  "views.timeline.VersionMarkerRecorded": "Recorded version marker {changeId} = {version}.",
  "views.timeline.SearchAttributesUpserted": "Search attributes upserted.",
  "views.timeline.MemoUpserted": "Memo upserted.",
  "views.timeline.ParentClosePolicyApplied": "Applied parent-close policy {policy} to child {child}.",
  "views.timeline.MessageCursorAdvanced": "Message cursor advanced to {position}.",
  "views.timeline.ParentClosePolicyFailed": "Failed to apply parent-close policy {policy} to child {child}: {error}.",
  "views.timeline.ServiceCallStarted": "Started service call {operation}.",
  "views.timeline.ServiceCallCompleted": "Completed service call {operation}.",
  "views.timeline.ServiceCallFailed": "Service call {operation} failed: {message}.",
  "views.timeline.ServiceCallCancelled": "Service call {operation} cancelled.",
  "views.timeline.SignalWaitReceived": "Signal {name} ended its wait.",
  "views.timeline.SignalWaitReceivedUnnamed": "A signal ended its wait.",
  "views.timeline.SignalWaitTimedOut": "Wait for signal {name} timed out.",
  "views.timeline.SignalWaitTimedOutUnnamed": "Signal wait timed out.",
  "views.timeline.SignalWaitCancelled": "Wait for signal {name} cancelled.",
  "views.timeline.SignalWaitCancelledUnnamed": "Signal wait cancelled.",
  "views.timeline.ConditionWaitCancelled": "Condition wait cancelled.",
  "views.timeline.SelectionResolved": "Selection resolved.",
  "views.timeline.SelectionOperationCancelled": "Cancelled an operation that lost the selection.",
  "views.timeline.CancellationScopeOpened": "Opened cancellation scope {scope}.",
  "views.timeline.CancellationScopeRequested": "Cancellation requested for scope {scope}.",
  "views.timeline.CancellationScopeDeliveryPrepared": "Prepared cancellation of scope {scope}.",
  "views.timeline.CancellationScopeDelivered": "Cancellation delivered to scope {scope}.",
  "views.timeline.CancellationScopeRequestConflicted": "Conflicting cancellation request for scope {scope}.",
  "views.timeline.CooperativeCancellationRequested": "Cooperative cancellation requested.",
  "views.timeline.CooperativeCancellationRequestedReason": "Cooperative cancellation requested: {reason}.",
  "views.timeline.CooperativeCancellationDelivered": "Cooperative cancellation delivered to the workflow.",
  "views.timeline.other": "{type}",
} as const;

/** The catalog's English for an id: the translate function of what renders outside a screen. */
export function englishText(id: ViewMessageId, values: MessageValues = {}): string {
  return formatTemplate(VIEW_MESSAGES_EN[id], values);
}

/** English rendering of a descriptor (undefined for none). */
export function messageText(message: Message): string;
export function messageText(message: Message | null | undefined): string | undefined;
export function messageText(message: Message | null | undefined): string | undefined {
  return message ? englishText(message.id, message.values) : undefined;
}

export interface NestedMessages {
  [key: string]: string | NestedMessages;
}

/**
 * The catalog nested by dot path, the shape next-intl reads (it treats dots in keys as nesting).
 * Throws when one id is a prefix of another, which next-intl could not represent.
 */
export function nestMessages(flat: Readonly<Record<string, string>>): NestedMessages {
  const root: NestedMessages = {};
  for (const [id, template] of Object.entries(flat)) {
    const path = id.split(".");
    const leaf = path.pop() ?? id; // split yields at least one segment; path keeps the parents
    let node = root;
    for (const segment of path) {
      const next = (node[segment] ??= {});
      if (typeof next === "string") throw new Error(`message id ${id} nests under the leaf ${segment}`);
      node = next;
    }
    if (leaf in node) throw new Error(`message id ${id} collides with a nested group`);
    node[leaf] = template;
  }
  return root;
}
