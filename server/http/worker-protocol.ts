import type { FastifyReply } from "fastify";
import { SUPPORTED_WORKFLOW_TASK_COMMANDS } from "../engine/workflow-task-commands";
import { HISTORY_PAGE_SIZE_DEFAULT, HISTORY_PAGE_SIZE_MAX } from "../engine/workflow-tasks";

export const WORKER_PROTOCOL_HEADER = "X-Durable-Workflow-Protocol-Version";
/**
 * The newest worker-protocol version this server implements. It is what `cluster/info` advertises
 * unless the operator lowers it with DW_WORKER_PROTOCOL_VERSION (or the real server's alias
 * WORKFLOW_SERVER_WORKER_PROTOCOL_VERSION), as the real server's `server.worker_protocol.version`
 * (durable-workflow/server config/server.php@11d35b7). 1.20 is what sdk-python 2.6.0–2.12.0 and
 * sdk-rust 4.10.2 send by default; every capability 1.20 adds is advertised false below. See
 * docs/decisions/0049-worker-protocol-1-20-negotiated.md.
 */
export const MAX_WORKER_PROTOCOL_VERSION = "1.20";

const VERSION_SHAPE = /^\d+\.\d+$/;

/** `[major, minor]` of a well-formed "M.m", or null (app/Support/WorkerProtocol.php@051508c `splitProtocolVersion`). */
export function splitProtocolVersion(value: string): [number, number] | null {
  if (!VERSION_SHAPE.test(value)) return null;
  const [major, minor] = value.split(".").map(Number) as [number, number];
  return [major, minor];
}

/**
 * The real server's rule (app/Support/WorkerProtocol.php@051508c `isCompatibleProtocolVersion`):
 * same major and the worker's minor ≤ the advertised minor, because minor bumps are additive; a
 * malformed version must equal the advertised one exactly, so a hostile header cannot slip past.
 */
export function isCompatibleProtocolVersion(worker: string, server: string): boolean {
  const w = splitProtocolVersion(worker);
  const s = splitProtocolVersion(server);
  if (w === null || s === null) return worker === server;
  return w[0] === s[0] && w[1] <= s[1];
}

/**
 * DW_WORKER_PROTOCOL_VERSION (alias WORKFLOW_SERVER_WORKER_PROTOCOL_VERSION), default 1.20. Only
 * 1.x at or below 1.20 is allowed: advertising a newer minor would promise features this server
 * does not have, so such a value stops the start with the variable's name.
 */
export function workerProtocolVersionFromEnv(env: Record<string, string | undefined> = process.env): string {
  const raw = (env.DW_WORKER_PROTOCOL_VERSION ?? env.WORKFLOW_SERVER_WORKER_PROTOCOL_VERSION ?? "").trim();
  if (raw === "") return MAX_WORKER_PROTOCOL_VERSION;
  const parts = splitProtocolVersion(raw);
  const max = splitProtocolVersion(MAX_WORKER_PROTOCOL_VERSION) as [number, number];
  if (parts === null || parts[0] !== max[0] || parts[1] > max[1])
    throw new Error(
      `DW_WORKER_PROTOCOL_VERSION must be a version 1.0 to ${MAX_WORKER_PROTOCOL_VERSION} (major.minor), got ${raw}`,
    );
  return `${parts[0]}.${parts[1]}`;
}

/** The advertised worker-protocol version, sent on every worker-plane answer and in cluster/info. */
export const WORKER_PROTOCOL_VERSION = workerProtocolVersionFromEnv();

/**
 * `negotiation` of the worker_protocol surface family (durable-workflow/server
 * app/Support/WorkerProtocol.php@051508c `negotiation`, published there under
 * `surface_stability_contract.surface_families.worker_protocol.negotiation`).
 */
export function workerProtocolNegotiation(advertised: string = WORKER_PROTOCOL_VERSION): Record<string, unknown> {
  const parts = splitProtocolVersion(advertised);
  const accepted: string[] = [];
  if (parts !== null) for (let minor = 0; minor <= parts[1]; minor++) accepted.push(`${parts[0]}.${minor}`);
  return {
    advertised_version_path: "worker_protocol.version",
    default_advertised_version: advertised,
    request_header_rule: "same_major_and_minor_less_than_or_equal_to_advertised",
    accepted_request_versions_by_default: accepted,
    response_version: "advertised_version",
    fail_closed_on: ["missing_header", "malformed_version", "different_major", "minor_greater_than_advertised"],
  };
}
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
 * `workflow_memo_updates`, `update_validation_tasks`; and the external-execution contracts
 * (external_execution_surface, external_executor_config, invocable_carrier, external_task_input,
 * external_task_result) the real server lists, because no invocable carrier is implemented.
 */
export const SERVER_CAPABILITIES = {
  long_poll_timeout: LONG_POLL_TIMEOUT_SECONDS,
  supported_workflow_task_commands: [...SUPPORTED_WORKFLOW_TASK_COMMANDS],
  workflow_task_poll_request_idempotency: true,
  history_page_size_default: HISTORY_PAGE_SIZE_DEFAULT,
  history_page_size_max: HISTORY_PAGE_SIZE_MAX,
  query_tasks: true,
  activity_retry_policy: true,
  activity_timeouts: true,
  child_workflow_retry_policy: false,
  child_workflow_timeouts: true,
  parent_close_policy: false,
  non_retryable_failures: true,
  // Cooperative cancellation (engine/cooperative-cancellation.ts): the request, its delivery at a
  // timer and the cleanup deadline; a run it cannot reach (open activities, children, waits) is
  // refused at the request. The rest of what protocol 1.20 adds is said false (not left out) so the
  // SDKs refuse it up front instead of failing discovery (sdk-python 2.12.0 worker.py `_register`);
  // the query-claim observation, `GET /worker/query-tasks/{id}/status`, is implemented (worker-query-tasks.ts).
  cooperative_cancellation: true,
  nexus_cooperative_cancellation: false,
  prepared_local_activities: false,
  prepared_local_activity_groups: false,
  prepared_local_activity_cancellation_policies: [] as string[],
  query_task_authority: true,
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
