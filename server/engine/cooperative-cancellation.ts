import { isoMicros } from "../clock";
import type { ReportContext } from "./activity-reports";
import { heartbeatRefusal, reportContext } from "./activity-reports";
import type { CommandRequest } from "./command-rows";
import { insertCommand } from "./command-rows";
import { EngineError } from "./errors";
import { encodePageToken } from "./history";
import { cancelOpenWork, EXCEPTION_CLASSES, finishRun, insertFailure, timerEventKeys } from "./lifecycle";
import { readOpenWork } from "./open-work";
import type { RunRow, TaskRow, TimerRow } from "./rows";
import { isTerminal } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { taskSnapshot } from "./tx";

/**
 * Cooperative cancellation: `POST …/request-cancellation` asks a run to clean up within a bound.
 * The request is durable (`CooperativeCancellationRequested`, its context and deadline on the run);
 * a capable worker delivers it at one authored call (`CooperativeCancellationDelivered`), where the
 * workflow sees `WorkflowCancelled`, cleans up and finishes; the run then closes `cancelled`. A run
 * still open at the deadline is closed `cancelled` by the sweep, its open work cancelled.
 *
 * Shapes: sdk-python 2.12.0 (client.py `request_workflow_cancellation`, `deliver_workflow_cancellation`;
 * _cooperative_cancellation.py; cancellation.py `CancellationContext`) and the engine's delivery rules
 * (durable-workflow/workflow@0ef75d3 src/V2/Support/CooperativeCancellationDelivery.php). The real
 * server at 11d35b7 has no such route; docs/contract.md "Cooperative cancellation" says where the rest
 * comes from. As in the reference server this follows, delivery is at a timer (or a call not yet
 * made) only: a run with open activities, children or waits is refused up front.
 */

export const CONTEXT_SCHEMA = "durable-workflow.cancellation-context/v1";
export const DEFAULT_CLEANUP_TIMEOUT_SECONDS = 600;
const EXCEPTION = EXCEPTION_CLASSES.cancelled;
/** Delivery re-reads history from its start: the request and delivery sit anywhere in it. */
const HISTORY_FROM_START = encodePageToken(0);

export interface RequestCancellationInput {
  namespace: string;
  workflow_id: string;
  /** The run the route named (already checked to be current), or null for the instance. */
  run_id: string | null;
  reason: string | null;
  cleanup_timeout_seconds: number;
  /** Who asked (`CancellationContext.requester`: type, id, label). */
  requester: Record<string, string>;
  request: CommandRequest | null;
}

export interface CancellationAnswer {
  status: number;
  body: JsonObject;
}

/** The observation a worker and a caller see: identity, deadline, delivery and where to re-read history. */
export function cancellationObservation(run: RunRow): JsonObject | null {
  if (!run.cancellation_request_command_id) return null;
  return {
    request_id: run.cancellation_request_command_id,
    requested_at: isoMicros(run.cancellation_requested_at ?? null),
    cleanup_deadline_at: isoMicros(run.cancellation_deadline_at ?? null),
    delivery_sequence: run.cancellation_delivery_sequence ?? null,
    delivered_at: isoMicros(run.cancellation_delivered_at ?? null),
    history_refresh_page_token: HISTORY_FROM_START,
  };
}

/** What keeps the request from reaching the workflow: only timers are delivered to (see the header). */
function propagationBlocked(tx: Tx, run: RunRow): boolean {
  const open = readOpenWork(tx.db, run.id, tx.now);
  return (
    open.activities.length > 0 || open.children.length > 0 || open.signalWaits.size > 0 || open.conditionWaits.size > 0
  );
}

/**
 * Accepts the run's one request: 202 with the receipt, or 200 `duplicate` with the original one
 * (read before the run's state, so a repeat never makes a second budget). Refusals: a closed run
 * 409 `run_not_active`, open work the request cannot reach 422.
 */
export function requestCancellation(tx: Tx, input: RequestCancellationInput): CancellationAnswer {
  const instance = tx.instance(input.namespace, input.workflow_id);
  if (!instance) {
    throw new EngineError(404, "instance_not_found", "Workflow not found.", { workflow_id: input.workflow_id });
  }
  const run = instance.current_run_id ? tx.run(instance.current_run_id) : undefined;
  if (!run) throw new EngineError(404, "run_not_found", "Workflow run not found.", { workflow_id: instance.id });
  const receipt = (r: RunRow, duplicate: boolean): JsonObject => ({
    workflow_id: instance.id,
    run_id: r.id,
    accepted: true,
    duplicate,
    run_status: r.status,
    cancellation_request: cancellationObservation(r),
  });
  if (run.cancellation_request_command_id) return { status: 200, body: receipt(run, true) };
  if (isTerminal(run.status)) {
    throw new EngineError(409, "run_not_active", "The workflow run is already closed.", {
      workflow_id: instance.id,
      run_id: run.id,
      run_status: run.status,
    });
  }
  if (propagationBlocked(tx, run)) {
    throw new EngineError(
      422,
      "cooperative_cancellation_propagation_not_available",
      "The run has open activities, children or waits, which cooperative cancellation cannot reach here yet. Cancel or terminate it instead.",
      { workflow_id: instance.id, run_id: run.id },
    );
  }
  const deadline = tx.now + input.cleanup_timeout_seconds * 1000;
  const row = insertCommand(tx, {
    namespace: input.namespace,
    instanceId: instance.id,
    run,
    requestedRunId: input.run_id,
    type: "request_cancellation",
    request: input.request,
    reason: input.reason,
    status: "accepted",
    outcome: "cancellation_requested",
  });
  const context = {
    schema: CONTEXT_SCHEMA,
    request_id: row.id,
    root_request_id: row.id,
    root_workflow_instance_id: instance.id,
    root_workflow_run_id: run.id,
    parent_request_id: null,
    reason: input.reason,
    requester: input.requester,
    source: "control_plane",
    requested_at: isoMicros(tx.now),
    cleanup_deadline_at: isoMicros(deadline),
    lineage: [{ request_id: row.id, workflow_instance_id: instance.id, workflow_run_id: run.id }],
  };
  tx.db
    .prepare(
      "UPDATE workflow_runs SET cancellation_request_command_id = ?, cancellation_requested_at = ?, cancellation_deadline_at = ?, updated_at = ? WHERE id = ?",
    )
    .run(row.id, tx.now, deadline, tx.now, run.id);
  const payload: JsonObject = {
    workflow_command_id: row.id,
    workflow_instance_id: instance.id,
    workflow_run_id: run.id,
    command_type: "request_cancellation",
    cleanup_deadline_at: context.cleanup_deadline_at,
    cancellation: context,
  };
  // `reason` only when given: the SDK holds a present key to the context's reason.
  if (input.reason !== null) payload.reason = input.reason;
  tx.appendEvent(run.id, "CooperativeCancellationRequested", payload, { commandId: row.id });
  tx.ensureWorkflowTask(run, {
    resume_source_kind: "cancellation_request",
    resume_source_id: row.id,
    workflow_command_id: row.id,
  });
  tx.touch(run.id);
  return { status: 202, body: { ...receipt(tx.mustRun(run.id), false), reason: null } };
}

export interface DeliveryInput {
  request_id: string;
  sequence: number;
  call_kind: string;
  sequence_span: number;
  operation_sequence: number | null;
  operation_sequence_span: number;
}

const refuse = (status: number, reason: string, message: string, extra: JsonObject = {}): never => {
  throw new EngineError(status, reason, message, extra);
};

function requestPayload(tx: Tx, runId: string, requestId: string): JsonObject | null {
  const row = tx.db
    .prepare(
      "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND workflow_command_id = ? AND event_type = 'CooperativeCancellationRequested' ORDER BY sequence LIMIT 1",
    )
    .get(runId, requestId) as { payload: string } | undefined;
  return row ? (JSON.parse(row.payload) as JsonObject) : null;
}

function deliveredPayload(tx: Tx, runId: string): JsonObject | null {
  const row = tx.db
    .prepare(
      "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'CooperativeCancellationDelivered' ORDER BY sequence LIMIT 1",
    )
    .get(runId) as { payload: string } | undefined;
  return row ? (JSON.parse(row.payload) as JsonObject) : null;
}

/** The timer's own cancellation at delivery: TimerCancelled, and its due task withdrawn. */
function cancelTimer(tx: Tx, run: RunRow, timer: TimerRow, requestId: string, taskId: string): void {
  tx.db
    .prepare("UPDATE workflow_run_timers SET status = 'cancelled', cancelled_at = ?, updated_at = ? WHERE id = ?")
    .run(tx.now, tx.now, timer.id);
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET status = 'cancelled', updated_at = ? WHERE workflow_run_id = ? AND task_type = 'timer' AND status = 'ready' AND json_extract(payload, '$.timer_id') = ?",
    )
    .run(tx.now, run.id, timer.id);
  tx.appendEvent(
    run.id,
    "TimerCancelled",
    { ...timerEventKeys(tx, timer), cancelled_at: isoMicros(tx.now) },
    { taskId, commandId: requestId },
  );
}

/**
 * `POST /worker/workflow-tasks/{id}/deliver-cancellation` on the leased task: records where the
 * workflow sees the request, once. A retry with the same call answers the same receipt; another
 * call is `cancellation_delivery_mismatch`. The refusal reasons are CooperativeCancellationDelivery's.
 */
export function deliverCancellation(tx: Tx, task: TaskRow, run: RunRow, d: DeliveryInput): JsonObject {
  const answer = {
    delivered: true,
    task_id: task.id,
    workflow_run_id: run.id,
    request_id: d.request_id,
    sequence: d.sequence,
    call_kind: d.call_kind,
    sequence_span: 1,
    operation_sequence: null,
    operation_sequence_span: 1,
    reason: null,
  };
  if (
    d.call_kind !== "timer" ||
    d.sequence_span !== 1 ||
    d.operation_sequence !== null ||
    d.operation_sequence_span !== 1
  ) {
    refuse(422, "cancellation_delivery_boundary_not_available", "Cancellation is delivered at a timer only.");
  }
  const base = { task_id: task.id, workflow_run_id: run.id };
  if (run.cancellation_request_command_id !== d.request_id) {
    refuse(409, "cancellation_request_mismatch", "The run has no such cancellation request.", base);
  }
  if (run.cancellation_deadline_at == null || run.cancellation_deadline_at <= tx.now) {
    refuse(409, "cancellation_deadline_expired", "The cleanup deadline has passed.", base);
  }
  const requested = requestPayload(tx, run.id, d.request_id);
  if (!requested) refuse(409, "cancellation_request_history_missing", "The request is not in history.", base);
  const existing = deliveredPayload(tx, run.id);
  if (existing) {
    const same =
      existing.workflow_command_id === d.request_id &&
      existing.sequence === d.sequence &&
      existing.call_kind === d.call_kind &&
      run.cancellation_delivery_sequence === d.sequence;
    if (!same) refuse(409, "cancellation_delivery_mismatch", "The request was delivered at another call.", base);
    return answer;
  }
  const next = run.last_command_sequence + 1;
  if (d.sequence > next) {
    refuse(409, "cancellation_delivery_sequence_mismatch", "No authored call has that sequence yet.", base);
  }
  const timer = tx.db
    .prepare("SELECT * FROM workflow_run_timers WHERE workflow_run_id = ? AND sequence = ?")
    .get(run.id, d.sequence) as TimerRow | undefined;
  if (d.sequence < next && !timer) {
    refuse(409, "cancellation_delivery_shape_mismatch", "The call at that sequence is not a timer.", base);
  }
  if (timer && timer.status !== "pending") {
    refuse(409, "cancellation_delivery_not_eligible", "That timer resolved before the request.", base);
  }
  if (timer) cancelTimer(tx, run, timer, d.request_id, task.id);
  tx.db
    .prepare(
      "UPDATE workflow_runs SET cancellation_delivery_sequence = ?, cancellation_delivered_at = ?, last_progress_at = ?, updated_at = ? WHERE id = ?",
    )
    .run(d.sequence, tx.now, tx.now, tx.now, run.id);
  tx.appendEvent(
    run.id,
    "CooperativeCancellationDelivered",
    {
      workflow_command_id: d.request_id,
      workflow_run_id: run.id,
      sequence: d.sequence,
      call_kind: d.call_kind,
      cancellation: (requested as JsonObject).cancellation ?? null,
      task: taskSnapshot(task),
    },
    { taskId: task.id, commandId: d.request_id },
  );
  tx.touch(run.id);
  return answer;
}

/**
 * Closes a run that has a request `cancelled`: when its workflow finishes cleanup (whatever it
 * returned), or at the deadline. `cancellation_cleanup.outcome` says which: `completed` after a
 * delivery, `not_delivered` when it finished before reaching a call, `deadline_expired`.
 */
export function finishCooperativeCancellation(tx: Tx, run: RunRow, taskId: string | null): void {
  const requestId = run.cancellation_request_command_id as string;
  const deadline = run.cancellation_deadline_at as number;
  const expired = tx.now >= deadline;
  const delivered = run.cancellation_delivery_sequence ?? null;
  const outcome = expired ? "deadline_expired" : delivered !== null ? "completed" : "not_delivered";
  const reason = expired ? "Cooperative cancellation cleanup deadline expired." : "Cooperative cancellation completed.";
  const deliveryEvent =
    delivered === null
      ? undefined
      : (tx.db
          .prepare(
            "SELECT id FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'CooperativeCancellationDelivered' LIMIT 1",
          )
          .get(run.id) as { id: string } | undefined);
  cancelOpenWork(tx, run, { commandId: requestId, keepTaskId: taskId });
  const message = `Workflow cancelled: ${reason}`;
  const failureId = insertFailure(tx, {
    runId: run.id,
    sourceKind: "workflow_run",
    sourceId: run.id,
    propagationKind: "cancelled",
    failureCategory: "cancelled",
    nonRetryable: false,
    exceptionClass: EXCEPTION,
    message,
  });
  tx.appendEvent(
    run.id,
    "WorkflowCancelled",
    {
      workflow_command_id: requestId,
      workflow_instance_id: run.workflow_instance_id,
      workflow_run_id: run.id,
      failure_id: failureId,
      failure_category: "cancelled",
      closed_reason: "cancelled",
      exception_class: EXCEPTION,
      message,
      reason,
      cancellation_cleanup: {
        request_id: requestId,
        outcome,
        cleanup_deadline_at: isoMicros(deadline),
        delivery_history_event_id: deliveryEvent?.id ?? null,
        delivery_sequence: delivered,
        finished_at: isoMicros(tx.now),
      },
    },
    { taskId, commandId: requestId },
  );
  finishRun(tx, run.id, "cancelled", "cancelled");
}

/** The sweep's duty: open runs past their cleanup deadline close `cancelled` (`deadline_expired`). */
export function expireCancellationDeadlines(tx: Tx): number {
  const runs = tx.db
    .prepare(
      "SELECT * FROM workflow_runs INDEXED BY workflow_runs_open_cancellation_deadline WHERE status IN ('pending','running','waiting') AND cancellation_deadline_at IS NOT NULL AND cancellation_deadline_at <= ? ORDER BY cancellation_deadline_at, id LIMIT 50",
    )
    .all(tx.now) as RunRow[];
  for (const run of runs) finishCooperativeCancellation(tx, run, null);
  return runs.length;
}

/**
 * `POST /worker/activity-tasks/{id}/status`: a protocol-1.20 worker's read of its activity claim, which
 * sdk-python 2.12.0 makes before and while it runs an activity under a cooperative worker
 * (worker.py `_assert_remote_activity_claim`). Nothing is recorded and nothing renewed; a claim the
 * run no longer wants is `can_continue: false` with `cancel_requested`, as a heartbeat answers it.
 */
export function activityTaskStatus(
  tx: Tx,
  taskId: string,
  attemptId: string,
  leaseOwner: string | undefined,
): JsonObject {
  let ctx: ReportContext;
  try {
    ctx = reportContext(tx, taskId, attemptId, leaseOwner);
  } catch (e) {
    if (e instanceof EngineError && e.status === 409 && e.reason !== "lease_owner_mismatch") return heartbeatRefusal(e);
    throw e;
  }
  const { task, attempt } = ctx;
  return {
    task_id: task.id,
    activity_attempt_id: attempt.id,
    lease_owner: attempt.lease_owner,
    cancel_requested: false,
    can_continue: true,
    reason: null,
    heartbeat_recorded: false,
    lease_expires_at: isoMicros(attempt.lease_expires_at),
    last_heartbeat_at: isoMicros(attempt.last_heartbeat_at ?? null),
  };
}
