import type { FastifyReply } from "fastify";
import { SUPPORTED_WORKFLOW_TASK_COMMANDS, HISTORY_PAGE_SIZE_DEFAULT, HISTORY_PAGE_SIZE_MAX } from "../engine/workflow-tasks";

export const WORKER_PROTOCOL_HEADER = "X-Durable-Workflow-Protocol-Version";
export const WORKER_PROTOCOL_VERSION = "1.0";
export const LONG_POLL_TIMEOUT_SECONDS = 30;

/** `server_capabilities` echoed on every worker-plane response (server-api.md §5). */
export const SERVER_CAPABILITIES = {
  long_poll_timeout: LONG_POLL_TIMEOUT_SECONDS,
  supported_workflow_task_commands: [...SUPPORTED_WORKFLOW_TASK_COMMANDS],
  workflow_task_poll_request_idempotency: true,
  history_page_size_default: HISTORY_PAGE_SIZE_DEFAULT,
  history_page_size_max: HISTORY_PAGE_SIZE_MAX,
  query_tasks: false,
  activity_retry_policy: true,
  activity_timeouts: true,
  child_workflow_retry_policy: false,
  child_workflow_timeouts: true,
  parent_close_policy: false,
  non_retryable_failures: true,
  response_compression: [] as string[],
  history_compression: { supported_encodings: [] as string[], compression_threshold: 50 },
} as const;

/** Sends a worker-plane JSON body with the protocol header, `protocol_version` and `server_capabilities`. */
export function sendWorker(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  return reply
    .code(status)
    .header(WORKER_PROTOCOL_HEADER, WORKER_PROTOCOL_VERSION)
    .header("content-type", "application/json; charset=utf-8")
    .send({ ...body, protocol_version: WORKER_PROTOCOL_VERSION, server_capabilities: SERVER_CAPABILITIES });
}
