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

/** The members every worker-plane answer ends with, serialised once. */
const PROTOCOL_MEMBERS = `"protocol_version":${JSON.stringify(WORKER_PROTOCOL_VERSION)},"server_capabilities":${JSON.stringify(SERVER_CAPABILITIES)}`;

/**
 * History event views are immutable and the engine hands the same objects to every task of a run
 * (HistoryCache), so each one is serialised once.
 */
const eventJson = new WeakMap<object, string>();

function historyJson(events: unknown[]): string {
  const parts = events.map((e) => {
    if (e === null || typeof e !== "object") return JSON.stringify(e) ?? "null";
    let json = eventJson.get(e);
    if (json === undefined) {
      json = JSON.stringify(e);
      eventJson.set(e, json);
    }
    return json;
  });
  return `[${parts.join(",")}]`;
}

/** `JSON.stringify(obj)`, its `history_events` array (if any) serialised through the event cache. */
function objectJson(obj: Record<string, unknown>): string {
  const events = obj.history_events;
  if (!Array.isArray(events)) return JSON.stringify(obj);
  const base = JSON.stringify({ ...obj, history_events: undefined });
  return `{${base.length > 2 ? `${base.slice(1, -1)},` : ""}"history_events":${historyJson(events)}}`;
}

/** Sends a worker-plane JSON body with the protocol header, `protocol_version` and `server_capabilities`. */
export function sendWorker(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  const { task, ...rest } = body;
  delete rest.protocol_version;
  delete rest.server_capabilities;
  const members = [objectJson(rest).slice(1, -1)];
  // A claimed workflow task carries the run's history.
  if (task !== undefined) members.push(`"task":${task !== null && typeof task === "object" && !Array.isArray(task) ? objectJson(task as Record<string, unknown>) : JSON.stringify(task)}`);
  members.push(PROTOCOL_MEMBERS);
  const json = `{${members.filter((m) => m.length > 0).join(",")}}`;
  return reply.code(status).header(WORKER_PROTOCOL_HEADER, WORKER_PROTOCOL_VERSION).header("content-type", "application/json; charset=utf-8").send(json);
}
