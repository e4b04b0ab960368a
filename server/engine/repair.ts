import type { CommandRequest, CommandResponse } from "./command-rows";
import { commandResponse, findByRequestId, insertCommand } from "./command-rows";
import { EngineError } from "./errors";
import type { CommandRow, CommandStatus, RunRow, TaskRow } from "./rows";
import { isTerminal, parsePayload } from "./rows";
import type { RunSummary } from "./summary";
import { refreshRunSummary } from "./summary";
import { claimFailed, dispatchFailed, dispatchOverdue, leaseExpired, repairBackoffSeconds } from "./task-health";
import type { JsonObject, Tx } from "./tx";
import { dropNulls, taskSnapshot } from "./tx";

/** What a repair or archive command returns: the fields the control plane renders (`CommandResponse`). */
export type OperatorCommandResult = CommandResponse;

interface OperatorCommandInput {
  namespace: string;
  workflow_id: string;
  request_id?: string | null;
  reason?: string | null;
  request?: CommandRequest | null;
}

interface Target {
  run: RunRow | null;
}

function resolveTarget(tx: Tx, input: OperatorCommandInput): Target {
  const instance = tx.instance(input.namespace, input.workflow_id);
  if (!instance)
    throw new EngineError(404, "instance_not_found", "Workflow not found.", { workflow_id: input.workflow_id });
  return { run: instance.current_run_id ? (tx.run(instance.current_run_id) ?? null) : null };
}

/** Records a repair or archive command against the instance (never a requested run) and marks the run touched. */
function recordCommand(
  tx: Tx,
  input: OperatorCommandInput,
  run: RunRow | null,
  type: string,
  status: CommandStatus,
  outcome: string,
  rejectionReason: string | null,
  payload: JsonObject | null,
): CommandRow {
  const row = insertCommand(tx, {
    namespace: input.namespace,
    instanceId: input.workflow_id,
    run,
    requestedRunId: null,
    type,
    requestId: input.request_id,
    request: input.request,
    status,
    outcome,
    rejectionReason,
    reason: input.reason,
    payload: payload ? { codec: "json", blob: JSON.stringify(payload) } : null,
  });
  if (run) tx.touch(run.id);
  return row;
}

function commandSnapshot(row: CommandRow): JsonObject {
  return dropNulls({
    id: row.id,
    sequence: row.command_sequence,
    type: "repair",
    target_scope: row.target_scope,
    resolved_run_id: row.resolved_workflow_run_id,
    source: row.source,
    status: row.status,
    outcome: row.outcome,
  });
}

/** Marks a task published again: in poll mode the commit that makes it claimable is its dispatch. */
function redispatch(tx: Tx, task: TaskRow, opts: { backoff: boolean }): TaskRow {
  const repairCount = task.repair_count + 1;
  tx.db
    .prepare(
      `UPDATE workflow_tasks SET status = 'ready', available_at = CASE WHEN available_at IS NULL OR available_at < @now OR status = 'leased' THEN @now ELSE available_at END,
         leased_at = NULL, lease_owner = NULL, lease_expires_at = NULL, repair_count = @rc, repair_available_at = @rav, last_error = NULL,
         last_dispatch_attempt_at = @now, last_dispatched_at = @now, last_dispatch_error = NULL, last_claim_error = NULL, last_claim_failed_at = NULL,
         updated_at = @now WHERE id = @id`,
    )
    .run({
      now: tx.now,
      rc: repairCount,
      rav: opts.backoff ? tx.now + repairBackoffSeconds(repairCount) * 1000 : null,
      id: task.id,
    });
  const fresh = tx.task(task.id) as TaskRow;
  tx.markTaskReady(fresh);
  tx.touch(task.workflow_run_id);
  return fresh;
}

/**
 * `TaskRepair::recoverExistingTask`: an expired lease closes the running attempt `expired` and the
 * task is ready again; a failed or overdue dispatch is published again; a replay-blocked workflow
 * task loses its replay_blocked markers. Every path bumps `repair_count`.
 */
export function recoverExistingTask(tx: Tx, task: TaskRow, opts: { backoff: boolean }): TaskRow {
  if (task.status === "leased" && task.task_type === "activity") {
    const attempts = tx.db
      .prepare("SELECT id FROM activity_attempts WHERE workflow_task_id = ? AND status = 'running'")
      .all(task.id) as { id: string }[];
    for (const at of attempts) {
      tx.db
        .prepare(
          "UPDATE activity_attempts SET status = 'expired', closed_at = ?, lease_expires_at = NULL, updated_at = ? WHERE id = ?",
        )
        .run(tx.now, tx.now, at.id);
    }
    const executionId = parsePayload(task.payload).activity_execution_id;
    if (typeof executionId === "string") {
      tx.db
        .prepare(
          "UPDATE activity_executions SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'running'",
        )
        .run(tx.now, executionId);
    }
  }
  if (task.status === "failed") {
    const payload = parsePayload(task.payload);
    for (const k of Object.keys(payload)) if (k.startsWith("replay_blocked")) delete payload[k];
    tx.db.prepare("UPDATE workflow_tasks SET payload = ? WHERE id = ?").run(JSON.stringify(payload), task.id);
  }
  return redispatch(tx, task, opts);
}

export function needsRecovery(t: TaskRow, now: number): boolean {
  if (t.status === "failed") return parsePayload(t.payload).replay_blocked === true;
  return leaseExpired(t, now) || dispatchFailed(t) || dispatchOverdue(t, now) || claimFailed(t);
}

function byAvailability(a: TaskRow, b: TaskRow): number {
  return (
    (a.available_at ?? a.created_at) - (b.available_at ?? b.created_at) ||
    a.created_at - b.created_at ||
    (a.id < b.id ? -1 : 1)
  );
}

/** Creates the missing durable task a repair-needed run is owed (`repair_count = 1`). */
function createMissingTask(tx: Tx, run: RunRow, s: RunSummary): TaskRow {
  let taskId: string | null = null;
  if (s.wait_kind === "activity" && s.resume_source_id) {
    const a = tx.activity(s.resume_source_id);
    if (a && (a.status === "pending" || a.status === "running")) {
      const retry = tx.db
        .prepare(
          `SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'ActivityRetryScheduled'
           AND json_extract(payload, '$.activity_execution_id') = ? ORDER BY sequence DESC LIMIT 1`,
        )
        .get(run.id, a.id) as { payload: string | null } | undefined;
      const r = parsePayload(retry?.payload ?? null);
      const retryAt = typeof r.retry_available_at === "string" ? Date.parse(r.retry_available_at) : NaN;
      if (a.status === "running")
        tx.db
          .prepare("UPDATE activity_executions SET status = 'pending', updated_at = ? WHERE id = ?")
          .run(tx.now, a.id);
      taskId = tx.createTask(
        run,
        "activity",
        {
          activity_execution_id: a.id,
          retry_of_task_id: r.retry_of_task_id,
          retry_after_attempt_id: r.retry_after_attempt_id,
          retry_after_attempt: r.retry_after_attempt,
          retry_backoff_seconds: r.retry_backoff_seconds,
          max_attempts: r.max_attempts,
          retry_policy: r.retry_policy,
        },
        { queue: a.queue, attemptCount: a.attempt_count, availableAt: Number.isFinite(retryAt) ? retryAt : tx.now },
      );
    }
  } else if (s.wait_kind === "timer" && s.resume_source_id) {
    const timer = tx.db
      .prepare("SELECT id, fire_at FROM workflow_run_timers WHERE id = ? AND status = 'pending'")
      .get(s.resume_source_id) as { id: string; fire_at: number } | undefined;
    if (timer) taskId = tx.createTask(run, "timer", { timer_id: timer.id }, { availableAt: timer.fire_at });
  }
  taskId ??= tx.createTask(run, "workflow", {
    workflow_wait_kind: s.wait_kind,
    open_wait_id: s.open_wait_id,
    resume_source_kind: s.resume_source_kind ?? "workflow_run",
    resume_source_id: s.resume_source_id ?? run.id,
    reason: "repair",
  });
  tx.db
    .prepare(
      "UPDATE workflow_tasks SET repair_count = 1, last_dispatch_attempt_at = ?, last_dispatched_at = ? WHERE id = ?",
    )
    .run(tx.now, tx.now, taskId);
  return tx.task(taskId) as TaskRow;
}

/**
 * `TaskRepair::repairRun`: recover the earliest unhealthy existing task first; otherwise, when the
 * run is `repair_needed` with no task, create the one it is owed. Returns the task acted on.
 */
export function repairRun(tx: Tx, run: RunRow, s: RunSummary, opts: { backoff: boolean }): TaskRow | null {
  const tasks = (
    tx.db
      .prepare("SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased', 'failed')")
      .all(run.id) as TaskRow[]
  )
    .filter((t) => needsRecovery(t, tx.now))
    .sort(byAvailability);
  if (tasks[0]) return recoverExistingTask(tx, tasks[0], opts);
  if (s.liveness_state === "repair_needed") return createMissingTask(tx, run, s);
  return null;
}

/**
 * Manual `POST /workflows/{id}/repair` (`WorkflowStub::attemptRepair`): always a command row; on an
 * open current run also a `RepairRequested` event with outcome `repair_dispatched` (a task was
 * recreated or redispatched) or `repair_not_needed`. Closed or unstarted runs are rejected (409).
 */
export function repairWorkflow(tx: Tx, input: OperatorCommandInput): OperatorCommandResult {
  const { run } = resolveTarget(tx, input);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "repair", input.request_id);
  if (prior) return commandResponse(prior);
  if (!run)
    return commandResponse(
      recordCommand(tx, input, null, "repair", "rejected", "rejected_not_started", "instance_not_started", null),
    );
  if (isTerminal(run.status))
    return commandResponse(
      recordCommand(tx, input, run, "repair", "rejected", "rejected_not_active", "run_not_active", null),
    );
  const summary = refreshRunSummary(tx.db, run.id, tx.now);
  if (!summary) throw new Error(`run ${run.id} has no summary`);
  const repairable = summary.liveness_state === "repair_needed" || summary.liveness_state === "workflow_replay_blocked";
  const task = repairable ? repairRun(tx, run, summary, { backoff: false }) : null;
  const outcome = task ? "repair_dispatched" : "repair_not_needed";
  const facts = {
    liveness_state: summary.liveness_state,
    wait_kind: summary.wait_kind,
    task_id: task?.id ?? null,
    task_type: task?.task_type ?? null,
  };
  const row = recordCommand(tx, input, run, "repair", "accepted", outcome, null, facts);
  tx.appendEvent(
    run.id,
    "RepairRequested",
    {
      workflow_command_id: row.id,
      workflow_instance_id: run.workflow_instance_id,
      workflow_run_id: run.id,
      command_type: "repair",
      outcome,
      ...facts,
      task: task ? taskSnapshot(task) : undefined,
      command: commandSnapshot(row),
    },
    { commandId: row.id, taskId: task?.id ?? null },
  );
  return commandResponse(row);
}

/**
 * `POST /workflows/{id}/archive`: a closed run is archived (`archived`, then `archive_not_needed`
 * on repeats), with `ArchiveRequested` and `WorkflowArchived`; an open run is rejected
 * `rejected_run_not_closed` (409).
 */
export function archiveWorkflow(tx: Tx, input: OperatorCommandInput): OperatorCommandResult {
  const { run } = resolveTarget(tx, input);
  const prior = findByRequestId(tx, input.namespace, input.workflow_id, "archive", input.request_id);
  if (prior) return commandResponse(prior);
  if (!run)
    return commandResponse(
      recordCommand(tx, input, null, "archive", "rejected", "rejected_not_started", "instance_not_started", null),
    );
  if (!isTerminal(run.status))
    return commandResponse(
      recordCommand(tx, input, run, "archive", "rejected", "rejected_run_not_closed", "run_not_closed", null),
    );
  const archived =
    (tx.db.prepare("SELECT archived_at FROM workflow_runs WHERE id = ?").get(run.id) as { archived_at: number | null })
      .archived_at !== null;
  const outcome = archived ? "archive_not_needed" : "archived";
  const row = recordCommand(tx, input, run, "archive", "accepted", outcome, null, null);
  const ids = { workflow_command_id: row.id, workflow_instance_id: run.workflow_instance_id, workflow_run_id: run.id };
  tx.appendEvent(
    run.id,
    "ArchiveRequested",
    { ...ids, command_type: "archive", outcome, reason: input.reason ?? null },
    { commandId: row.id },
  );
  if (!archived) {
    tx.db
      .prepare(
        "UPDATE workflow_runs SET archived_at = ?, archive_command_id = ?, archive_reason = ?, updated_at = ? WHERE id = ?",
      )
      .run(tx.now, row.id, input.reason ?? null, tx.now, run.id);
    tx.appendEvent(
      run.id,
      "WorkflowArchived",
      { ...ids, archive_command_id: row.id, reason: input.reason ?? null },
      { commandId: row.id },
    );
  }
  return commandResponse(row);
}
