/**
 * The two completion commands that start a linked run (each writes a `workflow_links` row): a child
 * workflow, and continue-as-new's next run of the same instance.
 */
import { isoMicros } from "../clock";
import { newId } from "../ids";
import { validationError } from "./errors";
import { cancelOpenWork, finishRun } from "./lifecycle";
import type { RunRow } from "./rows";
import type { Memo } from "./run-start";
import { createInstance, startRun } from "./run-start";
import type { Tx } from "./tx";
import { parseJson } from "./tx";
import type { WorkflowTaskCommand } from "./workflow-task-commands";

export function startChild(
  tx: Tx,
  parent: RunRow,
  taskId: string,
  cmd: Extract<WorkflowTaskCommand, { type: "start_child_workflow" }>,
): string[] {
  const sequence = tx.nextCommandSequence(parent.id);
  const childId = cmd.workflow_id ?? `${parent.workflow_instance_id}:child:${sequence}`;
  if (tx.instance(parent.namespace, childId))
    throw validationError({ "commands.workflow_id": [`Workflow id ${childId} is already in use in this namespace.`] });
  const instance = createInstance(
    tx,
    parent.namespace,
    childId,
    cmd.workflow_type,
    null,
    null,
    cmd.execution_timeout_seconds ?? null,
  );
  const linkId = newId(tx.now);
  const callId = newId(tx.now);
  const policy = cmd.parent_close_policy ?? "abandon";
  const child = startRun(tx, {
    instance,
    workflowType: cmd.workflow_type,
    queue: cmd.task_queue ?? cmd.queue ?? parent.queue ?? "default",
    input: cmd.arguments ?? null,
    businessKey: null,
    memo: null,
    searchAttributes: null,
    executionDeadlineAt: cmd.execution_timeout_seconds ? tx.now + cmd.execution_timeout_seconds * 1000 : null,
    runTimeoutSeconds: cmd.run_timeout_seconds ?? null,
    commandId: null,
    parent: { instanceId: parent.workflow_instance_id, runId: parent.id, sequence, linkId, childCallId: callId },
  });
  tx.db
    .prepare(
      `INSERT INTO workflow_links (id, link_type, sequence, parent_workflow_instance_id, parent_workflow_run_id, child_workflow_instance_id, child_workflow_run_id, parent_close_policy, created_at, updated_at)
       VALUES (?, 'child_workflow', ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(linkId, sequence, parent.workflow_instance_id, parent.id, childId, child.id, policy, tx.now, tx.now);
  tx.db
    .prepare(
      `INSERT INTO workflow_child_calls (id, parent_workflow_run_id, sequence, child_workflow_instance_id, child_workflow_run_id, child_workflow_type, status, parent_close_policy, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'started', ?, ?, ?)`,
    )
    .run(callId, parent.id, sequence, childId, child.id, cmd.workflow_type, policy, tx.now, tx.now);
  const identity = {
    sequence,
    workflow_link_id: linkId,
    child_call_id: callId,
    child_workflow_instance_id: childId,
    child_workflow_run_id: child.id,
    child_workflow_class: cmd.workflow_type,
    child_workflow_type: cmd.workflow_type,
    child_run_number: child.run_number,
    parent_close_policy: policy,
  };
  tx.appendEvent(parent.id, "ChildWorkflowScheduled", identity, { taskId });
  tx.appendEvent(
    parent.id,
    "ChildRunStarted",
    {
      ...identity,
      child_status: child.status,
      execution_timeout_seconds: cmd.execution_timeout_seconds ?? null,
      run_timeout_seconds: cmd.run_timeout_seconds ?? null,
      execution_deadline_at: isoMicros(child.execution_deadline_at),
      run_deadline_at: isoMicros(child.run_deadline_at),
    },
    { taskId },
  );
  const childTask = tx.db
    .prepare("SELECT id FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow'")
    .get(child.id) as { id: string };
  return [childTask.id];
}

export function continueAsNew(
  tx: Tx,
  run: RunRow,
  taskId: string,
  cmd: Extract<WorkflowTaskCommand, { type: "continue_as_new" }>,
): string[] {
  const instance = tx.instance(run.namespace, run.workflow_instance_id);
  if (!instance) throw new Error("instance missing for an open run");
  cancelOpenWork(tx, run, { keepTaskId: taskId });
  const sequence = tx.nextCommandSequence(run.id);
  const call = run.parent_workflow_run_id
    ? (tx.db.prepare("SELECT id, sequence FROM workflow_child_calls WHERE child_workflow_run_id = ?").get(run.id) as
        { id: string; sequence: number } | undefined)
    : undefined;
  const parentLink = call
    ? (tx.db
        .prepare(
          "SELECT id FROM workflow_links WHERE parent_workflow_run_id = ? AND sequence = ? AND link_type = 'child_workflow'",
        )
        .get(run.parent_workflow_run_id, call.sequence) as { id: string } | undefined)
    : undefined;
  const next = startRun(tx, {
    instance,
    workflowType: cmd.workflow_type ?? run.workflow_type,
    queue: cmd.task_queue ?? run.queue ?? "default",
    input: cmd.arguments ?? null,
    businessKey: run.business_key,
    memo: parseJson<Memo>(run.memo),
    searchAttributes: parseJson<Record<string, unknown>>(run.search_attributes),
    // The execution deadline spans the whole chain; the run deadline restarts per run.
    executionDeadlineAt: run.execution_deadline_at,
    runTimeoutSeconds: run.run_timeout_seconds,
    commandId: null,
    continuedFromRunId: run.id,
    // A continued child stays the parent's child: the parent waits on the chain, not on one run.
    parent:
      call && run.parent_workflow_instance_id && run.parent_workflow_run_id
        ? {
            instanceId: run.parent_workflow_instance_id,
            runId: run.parent_workflow_run_id,
            sequence: call.sequence,
            linkId: parentLink?.id ?? "",
            childCallId: call.id,
          }
        : null,
  });
  if (call)
    tx.db
      .prepare("UPDATE workflow_child_calls SET child_workflow_run_id = ?, updated_at = ? WHERE id = ?")
      .run(next.id, tx.now, call.id);
  const linkId = newId(tx.now);
  tx.db
    .prepare(
      `INSERT INTO workflow_links (id, link_type, sequence, parent_workflow_instance_id, parent_workflow_run_id, child_workflow_instance_id, child_workflow_run_id, created_at, updated_at)
       VALUES (?, 'continue_as_new', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(linkId, sequence, run.workflow_instance_id, run.id, run.workflow_instance_id, next.id, tx.now, tx.now);
  tx.appendEvent(
    run.id,
    "WorkflowContinuedAsNew",
    {
      sequence,
      continued_to_run_id: next.id,
      continued_to_run_number: next.run_number,
      workflow_link_id: linkId,
      closed_reason: "continued",
    },
    { taskId },
  );
  finishRun(tx, run.id, "completed", "continued");
  const nextTask = tx.db
    .prepare("SELECT id FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow'")
    .get(next.id) as { id: string };
  return [nextTask.id];
}
