import { isoMicros } from "../clock";
import type { Db } from "../store/db";
import type { HistoryRow, RunRow } from "./rows";

/**
 * A query task and the bodies the broker (query-tasks.ts) answers with: the task a worker claims,
 * the refusal of an answer, and a query that produced no result, after the real server's
 * `WorkflowQueryTaskBroker` (durable-workflow/server app/Support/WorkflowQueryTaskBroker.php@11d35b7).
 */

export interface PayloadEnvelopeIn {
  codec: string | null;
  blob: string | null;
}

export type QueryTaskStatus = "pending" | "leased" | "completed" | "failed" | "timed_out";

export interface QueryTask {
  id: string;
  status: QueryTaskStatus;
  namespace: string;
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string;
  payloadCodec: string;
  queryName: string;
  queryArguments: PayloadEnvelopeIn;
  attempt: number;
  admittedAt: number;
  deadlineAt: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  result?: unknown;
  resultEnvelope?: PayloadEnvelopeIn | null;
  reason?: string;
  message?: string;
  httpStatus?: number;
  endedAt?: number;
}

/** A query's answer: the HTTP status and the body before the control-plane envelope is attached. */
export interface QueryAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A worker-plane answer (complete, fail, status): its HTTP status and body. */
export interface QueryTaskReply {
  status: number;
  body: Record<string, unknown>;
}

/** `queryTaskPayload`, plus the original timing protocol 1.20 adds (`query_admitted_at`, `query_deadline_at`, `server_time`). */
export function queryTaskPayload(db: Db, task: QueryTask, now: number): Record<string, unknown> {
  const run = db
    .prepare("SELECT arguments, payload_codec, status, last_history_sequence FROM workflow_runs WHERE id = ?")
    .get(task.runId) as Pick<RunRow, "arguments" | "payload_codec" | "status" | "last_history_sequence"> | undefined;
  return {
    query_task_id: task.id,
    query_task_attempt: task.attempt,
    workflow_id: task.workflowId,
    run_id: task.runId,
    workflow_type: task.workflowType,
    query_name: task.queryName,
    payload_codec: task.payloadCodec,
    workflow_arguments:
      run && typeof run.arguments === "string" ? { codec: run.payload_codec ?? "avro", blob: run.arguments } : null,
    query_arguments: task.queryArguments,
    run_status: run?.status ?? null,
    last_history_sequence: run?.last_history_sequence ?? 0,
    history_events: historyEvents(db, task.runId),
    task_queue: task.taskQueue,
    lease_owner: task.leaseOwner,
    lease_expires_at: isoMicros(task.leaseExpiresAt),
    query_admitted_at: isoMicros(task.admittedAt),
    query_deadline_at: isoMicros(task.deadlineAt),
    server_time: isoMicros(now),
  };
}

/** `historyEvents`: the whole history, each event with `recorded_at` (not the history page's `timestamp`). */
function historyEvents(db: Db, runId: string): Record<string, unknown>[] {
  const rows = db
    .prepare("SELECT * FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence")
    .all(runId) as HistoryRow[];
  return rows.map((r) => ({
    id: r.id,
    sequence: r.sequence,
    event_type: r.event_type,
    payload: r.payload ? (JSON.parse(r.payload) as Record<string, unknown>) : {},
    workflow_task_id: r.workflow_task_id,
    workflow_command_id: r.workflow_command_id,
    recorded_at: isoMicros(r.recorded_at),
  }));
}

export function reject(
  status: number,
  id: string,
  reason: string,
  error: string,
  extra: Record<string, unknown> = {},
): QueryTaskReply {
  return { status, body: { query_task_id: id, outcome: "rejected", reason, error, ...extra } };
}

/** `queryFailed`: the body of a query that did not produce a result. */
export function failed(run: RunRow, queryName: string, reason: string, message: string, status: number): QueryAnswer {
  return {
    status,
    body: {
      workflow_id: run.workflow_instance_id,
      run_id: run.id,
      target_scope: "instance",
      query_name: queryName,
      result: null,
      reason,
      message,
    },
  };
}
