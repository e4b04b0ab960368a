import type { FastifyReply } from "fastify";

export const CONTROL_PLANE_HEADER = "X-Durable-Workflow-Control-Plane-Version";
export const CONTROL_PLANE_VERSION = "2";

export type Operation =
  | "list"
  | "start"
  | "describe"
  | "list_runs"
  | "describe_run"
  | "debug_workflow"
  | "history"
  | "signal"
  | "query"
  | "update"
  | "cancel"
  | "terminate"
  | "repair"
  | "archive";

const LEGACY_FIELDS = {
  query: "query_name",
  signal: "signal_name",
  update: "update_name",
  wait_policy: "wait_for",
} as const;

/** `ControlPlaneResponseContract`: required and success fields per operation (server-api.md §1.9). */
export const OPERATIONS: Record<
  Operation,
  { required_fields: string[]; success_fields: string[]; name_field?: string }
> = {
  list: { required_fields: [], success_fields: [] },
  start: { required_fields: [], success_fields: ["workflow_id", "outcome"] },
  describe: { required_fields: ["workflow_id"], success_fields: [] },
  list_runs: { required_fields: ["workflow_id"], success_fields: [] },
  describe_run: { required_fields: ["workflow_id"], success_fields: ["run_id"] },
  debug_workflow: { required_fields: ["workflow_id"], success_fields: ["run_id", "diagnostic_status"] },
  history: { required_fields: ["workflow_id", "run_id"], success_fields: ["next_page_token"] },
  signal: {
    required_fields: ["workflow_id", "operation_name", "operation_name_field"],
    success_fields: ["outcome"],
    name_field: "signal_name",
  },
  query: {
    required_fields: ["workflow_id", "operation_name", "operation_name_field"],
    success_fields: ["result"],
    name_field: "query_name",
  },
  update: {
    required_fields: ["workflow_id", "operation_name", "operation_name_field"],
    success_fields: ["outcome"],
    name_field: "update_name",
  },
  cancel: { required_fields: ["workflow_id"], success_fields: ["outcome"] },
  terminate: { required_fields: ["workflow_id"], success_fields: ["outcome"] },
  repair: { required_fields: ["workflow_id"], success_fields: ["outcome"] },
  archive: { required_fields: ["workflow_id"], success_fields: ["outcome"] },
};

/** Top-level body keys copied into `control_plane` when present. */
export const PROJECTED_FIELDS = [
  "run_id",
  "workflow_type",
  "namespace",
  "business_key",
  "status",
  "status_bucket",
  "is_terminal",
  "task_queue",
  "run_number",
  "run_count",
  "workflow_count",
  "is_current_run",
  "compatibility",
  "started_at",
  "closed_at",
  "last_progress_at",
  "wait_kind",
  "wait_reason",
  "next_page_token",
  "command_id",
  "command_status",
  "command_source",
  "target_scope",
  "outcome",
  "reason",
  "rejection_reason",
  "validation_errors",
  "result",
  "result_envelope",
  "update_id",
  "update_status",
  "wait_for",
  "wait_timed_out",
  "wait_timeout_seconds",
  "blocked_reason",
  "message",
  "diagnostic_status",
] as const;

export function contractOf(operation: Operation): Record<string, unknown> {
  const op = OPERATIONS[operation];
  return {
    schema: "durable-workflow.v2.control-plane-response.contract",
    version: 1,
    legacy_field_policy: "reject_non_canonical",
    legacy_fields: LEGACY_FIELDS,
    required_fields: op.required_fields,
    success_fields: op.success_fields,
  };
}

/** The operation a request resolved to, with the identifiers taken from its URL. */
export interface OperationContext {
  operation: Operation;
  workflowId: string | null;
  runId: string | null;
  operationName: string | null;
}

/** Builds `control_plane` for a body (success or error), as `ControlPlaneResponseContract::attach` does. */
export function controlPlaneEnvelope(op: OperationContext, body: Record<string, unknown>): Record<string, unknown> {
  const env: Record<string, unknown> = {
    schema: "durable-workflow.v2.control-plane-response",
    version: 1,
    operation: op.operation,
    workflow_id: (body.workflow_id as string | undefined) ?? op.workflowId,
    contract: contractOf(op.operation),
  };
  const nameField = OPERATIONS[op.operation].name_field;
  if (nameField && op.operationName !== null) {
    env.operation_name = op.operationName;
    env.operation_name_field = nameField;
  }
  for (const key of PROJECTED_FIELDS) if (key in body) env[key] = body[key];
  return env;
}

/** Sends a control-plane JSON response: version header always; `control_plane` when an operation is known. */
export function sendControlPlane(
  reply: FastifyReply,
  status: number,
  body: Record<string, unknown>,
  op: OperationContext | null,
): FastifyReply {
  let payload = body;
  if (op) {
    payload = { ...body };
    if (op.workflowId !== null && !("workflow_id" in payload)) payload.workflow_id = op.workflowId;
    if (op.runId !== null && !("run_id" in payload)) payload.run_id = op.runId;
    payload.control_plane = controlPlaneEnvelope(op, payload);
  }
  return reply
    .code(status)
    .header(CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION)
    .header("content-type", "application/json; charset=utf-8")
    .send(payload);
}
