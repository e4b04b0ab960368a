import type { FastifyReply } from "fastify";
import {
  SUPPORTED_WORKFLOW_TASK_COMMANDS,
  HISTORY_PAGE_SIZE_DEFAULT,
  HISTORY_PAGE_SIZE_MAX,
} from "../engine/workflow-tasks";

export const WORKER_PROTOCOL_HEADER = "X-Durable-Workflow-Protocol-Version";
/**
 * The one worker-protocol version this server speaks. Like the real server
 * (durable-workflow/server app/Support/WorkerProtocol.php@11d35b7 `rejectUnsupported`), a request
 * must name exactly this version; anything else is a 400 that names the supported one.
 *
 * Why 1.19 and not the engine's 1.15 (durable-workflow/workflow
 * src/V2/Support/WorkerProtocolVersion.php@8dc90d64): no PyPI release of the official SDK speaks
 * 1.2–1.18 — 0.4.x sends 1.1, 2.0.0–2.5.x send 1.19, 2.6.0–2.12.0 send 1.20 and accept 1.19
 * (`MINIMUM_WORKER_PROTOCOL_VERSION`, durable_workflow/client.py@2.12.0). 1.19 is the level at
 * which 2.12.0 turns on no optional worker feature ("This changes the request protocol without
 * enabling optional worker features", the 2.12.0 README); every optional feature is negotiated
 * through `SERVER_CAPABILITIES` below, which says false/absent for what is not implemented.
 * See docs/decisions/0013-python-sdk-pin.md.
 */
export const WORKER_PROTOCOL_VERSION = "1.19";
/**
 * The long-poll hold a poll gets when it names no `timeout_seconds`, advertised as
 * `server_capabilities.long_poll_timeout`: DW_WORKER_POLL_TIMEOUT seconds, default 30, like the real
 * server's `server.polling.timeout` (durable-workflow/server config/server.php@11d35b7). Clients
 * read the advertised value to size their own HTTP timeouts, so it must be what the server holds.
 */
export function longPollTimeoutFromEnv(env: Record<string, string | undefined> = process.env): number {
  const raw = (env.DW_WORKER_POLL_TIMEOUT ?? "").trim();
  if (raw === "") return 30;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 3600)
    throw new Error(`DW_WORKER_POLL_TIMEOUT must be a whole number of seconds from 1 to 3600, got ${raw}`);
  return n;
}

export const LONG_POLL_TIMEOUT_SECONDS = longPollTimeoutFromEnv();

/**
 * `server_capabilities` echoed on every worker-plane response and in cluster/info's
 * `worker_protocol` (the key set of app/Support/WorkerProtocol.php@11d35b7 `serverCapabilities`).
 * Only what is implemented is true. Absent on purpose, so the SDK keeps those features off
 * (durable_workflow/worker.py@2.12.0 `_register`): `worker_deregistration_fencing` (the SDK then
 * deregisters with the unfenced DELETE, which is implemented), `sticky_execution`,
 * `query_task_authority`, `workflow_memo_updates`,
 * `update_validation_tasks`, `prepared_local_activities`; and the external-execution contracts
 * (external_execution_surface, external_executor_config, invocable_carrier, external_task_input,
 * external_task_result) the real server lists, because no invocable carrier is implemented.
 */
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
  // Protocol 1.20 only; said false (not left out) so sdk-python's request_workflow_cancellation
  // fails with "does not support cooperative cancellation" instead of a discovery error.
  cooperative_cancellation: false,
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
  if (task !== undefined)
    members.push(
      `"task":${task !== null && typeof task === "object" && !Array.isArray(task) ? objectJson(task as Record<string, unknown>) : JSON.stringify(task)}`,
    );
  members.push(PROTOCOL_MEMBERS);
  const json = `{${members.filter((m) => m.length > 0).join(",")}}`;
  return reply
    .code(status)
    .header(WORKER_PROTOCOL_HEADER, WORKER_PROTOCOL_VERSION)
    .header("content-type", "application/json; charset=utf-8")
    .send(json);
}
