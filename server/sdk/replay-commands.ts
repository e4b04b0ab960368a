import { encodePayload } from "../codec/codec";
import type { WorkflowCommand } from "./protocol";
import { ActivityFailure, ContinueAsNew } from "./workflow";
import type { ActivityOperation, ChildWorkflowOperation, Operation } from "./workflow";

/**
 * The commands a replay sends: one for each operation history has not seen yet, and the one
 * that closes the run when the code returns or throws (replay.ts decides which).
 */

function scheduleActivityCommand(op: ActivityOperation<unknown>): WorkflowCommand {
  const o = op.options;
  const backoff = o.backoff === undefined ? undefined : Array.isArray(o.backoff) ? o.backoff : [o.backoff];
  return {
    type: "schedule_activity",
    activity_type: op.activityType,
    arguments: encodePayload(op.args),
    retry_policy: {
      // 0 asks for unlimited attempts (the engine snapshots it as max_attempts: null).
      max_attempts: o.tries === undefined ? 1 : Math.max(0, o.tries),
      ...(backoff ? { backoff_seconds: backoff } : {}),
      non_retryable_error_types: o.nonRetryable ?? [],
    },
    ...(o.queue ? { queue: o.queue } : {}),
    ...(o.timeouts?.startToClose !== undefined ? { start_to_close_timeout: o.timeouts.startToClose } : {}),
    ...(o.timeouts?.scheduleToStart !== undefined ? { schedule_to_start_timeout: o.timeouts.scheduleToStart } : {}),
    ...(o.timeouts?.scheduleToClose !== undefined ? { schedule_to_close_timeout: o.timeouts.scheduleToClose } : {}),
    ...(o.timeouts?.heartbeat !== undefined ? { heartbeat_timeout: o.timeouts.heartbeat } : {}),
  };
}

function startChildCommand(op: ChildWorkflowOperation<unknown>): WorkflowCommand {
  const o = op.options;
  return {
    type: "start_child_workflow",
    workflow_type: op.workflowType,
    arguments: encodePayload(op.args),
    ...(o.workflowId ? { workflow_id: o.workflowId } : {}),
    ...(o.queue ? { queue: o.queue } : {}),
    ...(o.executionTimeoutSeconds !== undefined ? { execution_timeout_seconds: o.executionTimeoutSeconds } : {}),
    ...(o.runTimeoutSeconds !== undefined ? { run_timeout_seconds: o.runTimeoutSeconds } : {}),
    ...(o.parentClosePolicy ? { parent_close_policy: o.parentClosePolicy } : {}),
  };
}

/** The command a new (not yet in history) operation asks the server for. */
export function commandFor(op: Operation<unknown>): WorkflowCommand {
  switch (op.kind) {
    case "activity":
      return scheduleActivityCommand(op);
    case "timer":
      return { type: "start_timer", delay_seconds: op.seconds };
    case "child":
      return startChildCommand(op);
    case "signal":
      return {
        type: "open_signal_wait",
        signal_name: op.signalName,
        ...(op.timeoutSeconds !== undefined ? { timeout_seconds: op.timeoutSeconds } : {}),
      };
  }
}

/** An uncaught error closes the run: `fail_workflow` with the error's message and type. */
export function failWorkflowCommand(e: unknown): WorkflowCommand {
  const error = e instanceof Error ? e : new Error(String(e));
  // An uncaught activity failure closes the run with the activity's own error type, so the
  // run's failure names what went wrong (e.g. PaymentDeclined) rather than the wrapper.
  const type = error instanceof ActivityFailure ? (error.failureType ?? error.name) : error.name;
  const flagged =
    error instanceof ActivityFailure
      ? error.nonRetryable
      : (error as Error & { nonRetryable?: unknown }).nonRetryable === true;
  return {
    type: "fail_workflow",
    message: error.message,
    exception_type: type,
    ...(flagged ? { non_retryable: true } : {}),
  };
}

/** The code returned: it completes the run, or continues it as new when it returned `ContinueAsNew`. */
export function returnedCommand(value: unknown): WorkflowCommand {
  if (value instanceof ContinueAsNew) {
    return {
      type: "continue_as_new",
      arguments: encodePayload(value.args),
      ...(value.workflowType ? { workflow_type: value.workflowType } : {}),
    };
  }
  return { type: "complete_workflow", result: encodePayload(value ?? null) };
}
