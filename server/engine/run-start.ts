/**
 * A new run and its instance: the rows, the opening history (`StartAccepted`, `WorkflowStarted`) and
 * the first workflow task. A control-plane start, a child workflow and continue-as-new all start a
 * run this way.
 */
import { isoMicros } from "../clock";
import { newId } from "../ids";
import type { InstanceRow, RunRow } from "./rows";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";
import { dropNulls } from "./tx";

/** A run's memo as the caller sent it: PHP arrays are maps or lists, and the engine stores either. */
export type Memo = Record<string, unknown> | unknown[];

export interface StartRunSpec {
  instance: InstanceRow;
  workflowType: string;
  queue: string;
  input: PayloadEnvelope | null;
  businessKey: string | null;
  memo: Memo | null;
  searchAttributes: Record<string, unknown> | null;
  executionDeadlineAt: number | null;
  runTimeoutSeconds: number | null;
  commandId: string | null;
  parent?: { instanceId: string; runId: string; sequence: number; linkId: string; childCallId: string } | null;
  continuedFromRunId?: string | null;
  startAccepted?: boolean;
  /** `declared_*` keys for `WorkflowStarted` (control-plane starts, from the registered worker contract). */
  declaredContract?: JsonObject;
}

/**
 * The queue connection every run, task and activity of this server names. The real engine writes
 * the Laravel queue connection (`config('queue.default')`, `redis` in durable-workflow/server's
 * .env.example@11d35b7); this server has one transport, task rows in its SQLite database claimed by
 * polling workers — what Laravel calls the `database` queue connection. Decision 0014.
 */
export const EMBEDDED_CONNECTION = "database";

/** Creates the next run of an instance (`pending`), writes its opening history and its first workflow task. */
export function startRun(tx: Tx, s: StartRunSpec): RunRow {
  const runId = newId(tx.now);
  const runNumber = s.instance.run_count + 1;
  const runDeadline = s.runTimeoutSeconds ? tx.now + s.runTimeoutSeconds * 1000 : null;
  tx.db
    .prepare(
      `INSERT INTO workflow_runs (id, workflow_instance_id, namespace, run_number, workflow_class, workflow_type, business_key, memo, search_attributes,
         status, payload_codec, arguments, connection, queue, execution_timeout_seconds, run_timeout_seconds, execution_deadline_at, run_deadline_at, started_at,
         last_progress_at, continued_from_run_id, parent_workflow_instance_id, parent_workflow_run_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      runId,
      s.instance.id,
      s.instance.namespace,
      runNumber,
      s.workflowType,
      s.workflowType,
      s.businessKey,
      s.memo ? JSON.stringify(s.memo) : null,
      s.searchAttributes ? JSON.stringify(s.searchAttributes) : null,
      s.input?.codec ?? null,
      s.input?.blob ?? null,
      EMBEDDED_CONNECTION,
      s.queue,
      s.instance.execution_timeout_seconds,
      s.runTimeoutSeconds,
      s.executionDeadlineAt,
      runDeadline,
      tx.now,
      tx.now,
      s.continuedFromRunId ?? null,
      s.parent?.instanceId ?? null,
      s.parent?.runId ?? null,
      tx.now,
      tx.now,
    );
  tx.db
    .prepare(
      "UPDATE workflow_instances SET current_run_id = ?, run_count = ?, started_at = COALESCE(started_at, ?), updated_at = ? WHERE namespace = ? AND id = ?",
    )
    .run(runId, runNumber, tx.now, tx.now, s.instance.namespace, s.instance.id);
  // A new run of the instance makes every earlier run non-current in the list projection.
  tx.db
    .prepare(
      "UPDATE workflow_run_summaries SET is_current_run = 0 WHERE namespace = ? AND workflow_instance_id = ? AND id <> ?",
    )
    .run(s.instance.namespace, s.instance.id, runId);
  const run = tx.mustRun(runId);
  const identity: JsonObject = {
    workflow_command_id: s.commandId,
    workflow_instance_id: s.instance.id,
    workflow_run_id: runId,
    workflow_class: s.workflowType,
    workflow_type: s.workflowType,
    business_key: s.businessKey,
    visibility_labels: null,
    memo: s.memo,
    search_attributes: s.searchAttributes,
  };
  // StartAccepted keeps its nulls and has no rejection_reason; WorkflowStarted is `array_filter`ed
  // of every null (DefaultWorkflowControlPlane::start, durable-workflow/workflow
  // src/V2/Support/DefaultWorkflowControlPlane.php@8dc90d64).
  if (s.startAccepted)
    tx.appendEvent(runId, "StartAccepted", { ...identity, outcome: "started_new" }, { commandId: s.commandId });
  tx.appendEvent(
    runId,
    "WorkflowStarted",
    dropNulls({
      ...identity,
      execution_timeout_seconds: s.instance.execution_timeout_seconds,
      run_timeout_seconds: s.runTimeoutSeconds,
      execution_deadline_at: isoMicros(s.executionDeadlineAt),
      run_deadline_at: isoMicros(runDeadline),
      parent_workflow_instance_id: s.parent?.instanceId,
      parent_workflow_run_id: s.parent?.runId,
      parent_sequence: s.parent?.sequence,
      workflow_link_id: s.parent?.linkId,
      child_call_id: s.parent?.childCallId,
      continued_from_run_id: s.continuedFromRunId ?? undefined,
      ...s.declaredContract,
    }),
    { commandId: s.commandId },
  );
  tx.createTask(run, "workflow", {
    resume_source_kind: "workflow_run",
    resume_source_id: runId,
    workflow_event_type: "WorkflowStarted",
  });
  return run;
}

/** Creates the instance row for a new workflow id. */
export function createInstance(
  tx: Tx,
  namespace: string,
  id: string,
  workflowType: string,
  businessKey: string | null,
  memo: Memo | null,
  executionTimeoutSeconds: number | null,
): InstanceRow {
  tx.db
    .prepare(
      `INSERT INTO workflow_instances (id, namespace, workflow_class, workflow_type, business_key, memo, execution_timeout_seconds, reserved_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      namespace,
      workflowType,
      workflowType,
      businessKey,
      memo ? JSON.stringify(memo) : null,
      executionTimeoutSeconds,
      tx.now,
      tx.now,
      tx.now,
    );
  const row = tx.instance(namespace, id);
  if (!row) throw new Error("instance insert failed");
  return row;
}
