import type { z } from "zod";
import type { StatusBucketFilter } from "./enums";
import { type Decoded, type Decoder, type RawResponse, type SendFailures, sendJsonRequest } from "../http/request";
import {
  DwAbortedError,
  type DwError,
  DwInvalidArgumentError,
  DwMalformedResponseError,
  DwServerUnavailableError,
  errorFromResponse,
} from "./errors";
import { ENDPOINTS, endpointPath } from "./endpoints";
import type { EndpointAnswer, EndpointName, EndpointParams } from "./endpoints";
import type { PayloadEnvelope } from "./schema-kit";
import type { HistoryExport } from "./schemas-export";
import type {
  ClusterInfo,
  Health,
  NamespaceList,
  Ready,
  TaskQueueDetail,
  TaskQueueList,
  Worker,
  WorkerList,
} from "./schemas-fleet";
import type { ActivityTimeoutStatus, OperatorMetricsResponse, RepairStatus, SystemMetrics } from "./schemas-system";
import type { RetentionStatus } from "./schemas-namespaces";
import type { HistoryPage, RunDescription, RunList, WorkflowDebug, WorkflowList } from "./schemas-workflows";
import type { WorkflowQueryRequest, WorkflowQueryResult } from "./schemas-query";
import type { RESPONSE_SCHEMAS } from "./schemas-responses";

/**
 * The one fetch wrapper for the Durable Workflow Server API (server-api.md §1–§2).
 * Browser-safe: uses only `fetch`, `AbortSignal`, `URLSearchParams`, `btoa`, and imports no schema
 * at runtime — the decoders are passed in (zod ones in client.ts, pass-through ones for bodies the
 * console's proxy already validated in prevalidated.ts), so browser bundles can leave zod out.
 */

export const CONTROL_PLANE_VERSION = "2";
export const CONTROL_PLANE_VERSION_HEADER = "X-Durable-Workflow-Control-Plane-Version";
const DEFAULT_TIMEOUT_MS = 15_000;
/**
 * A real server holds `wait_new_event=1` for `config('server.polling.timeout')` seconds — its
 * DW_WORKER_POLL_TIMEOUT, default 30 (durable-workflow/server app/Support/LongPoller.php@11d35b7) —
 * and advertises it as cluster/info `worker_protocol.server_capabilities.long_poll_timeout`
 * (app/Support/WorkerProtocol.php@c816c7a). The client waits that long plus a grace.
 */
export const DEFAULT_SERVER_LONG_POLL_SECONDS = 30;
export const LONG_POLL_GRACE_MS = 10_000;
const DEFAULT_LONG_POLL_TIMEOUT_MS = DEFAULT_SERVER_LONG_POLL_SECONDS * 1000 + LONG_POLL_GRACE_MS;
/** The real server builds an export in one request (HistoryController::export@11d35b7): allow 2 min. */
const DEFAULT_EXPORT_TIMEOUT_MS = 120_000;

/** The read limit for a history long-poll against a server that advertised `info` (null: unknown). */
export function longPollLimitMs(info: Pick<ClusterInfo, "worker_protocol"> | null | undefined): number {
  const advertised = info?.worker_protocol?.server_capabilities?.long_poll_timeout;
  const seconds =
    typeof advertised === "number" && Number.isFinite(advertised) && advertised >= 0
      ? advertised
      : DEFAULT_SERVER_LONG_POLL_SECONDS;
  return seconds * 1000 + LONG_POLL_GRACE_MS;
}

export interface DwClientOptions {
  /** Server root, e.g. `http://127.0.0.1:8080` (no trailing `/api`). May be relative in browsers. */
  baseUrl: string;
  /** Bearer token; omitted when the server runs with `DW_AUTH_DRIVER=none`. */
  token?: string;
  /** Default `X-Namespace`; the server falls back to its default namespace when absent. */
  namespace?: string;
  /** Per-request timeout (default 15 s). Long-polls use `max(timeoutMs, longPollTimeoutMs)`. */
  timeoutMs?: number;
  /** Timeout for `wait_new_event=1` history polls (default 40 s; see {@link longPollLimitMs}). */
  longPollTimeoutMs?: number;
  /** Timeout for `history/export` (default 120 s). */
  exportTimeoutMs?: number;
  /** Route prefix (default `/api`). A same-origin proxy that already maps `/api` can pass `""`. */
  apiPrefix?: string;
  fetch?: typeof fetch;
}

export interface DwRequestOptions {
  /** Caller cancellation (unmount, navigation, stop tailing). Surfaces as `DwAbortedError`. */
  signal?: AbortSignal;
  /** Overrides the client's namespace for this call. */
  namespace?: string;
  timeoutMs?: number;
}

/**
 * Result of a workflow command. A rejection (HTTP 409, or 404/422 for signals) is an answer, not a
 * failure: it carries the full command body with `outcome`, `rejection_reason` and `command_id`.
 */
export type CommandResult<T> =
  | { readonly kind: "accepted"; readonly httpStatus: number; readonly body: T }
  | { readonly kind: "rejected"; readonly httpStatus: number; readonly body: T };

/** Result of a maintenance pass; `partial` is the server's 207 (some items failed). */
export interface PassResult<T> {
  readonly httpStatus: number;
  readonly partial: boolean;
  readonly report: T;
}

export interface ListWorkflowsParams {
  status?: StatusBucketFilter;
  workflowType?: string;
  /** Substring match on workflow id or business key. */
  query?: string;
  /** 1..200, server default 50. */
  pageSize?: number;
  nextPageToken?: string | null;
}

export interface DebugParams {
  includeLastEventPayload?: boolean;
}

export interface HistoryParams {
  /** 1..1000, server default 100. */
  pageSize?: number;
  nextPageToken?: string | null;
  /** Long-poll: hold up to ~30 s until an event after the cursor exists. */
  waitNewEvent?: boolean;
}

export interface CommandParams {
  /** Idempotency/correlation id recorded on the command. */
  requestId?: string;
  /** Target a specific run; the server rejects non-current runs with 409. */
  runId?: string;
}

export interface ReasonCommandParams extends CommandParams {
  reason?: string;
}

export interface SignalParams extends CommandParams {
  input?: unknown[] | PayloadEnvelope;
}

export interface StartWorkflowParams {
  workflow_type: string;
  workflow_id?: string;
  task_queue?: string;
  input?: unknown[] | PayloadEnvelope;
  business_key?: string;
  memo?: Record<string, unknown>;
  search_attributes?: Record<string, string | number | boolean>;
  duplicate_policy?: "fail" | "use-existing";
  execution_timeout_seconds?: number;
  run_timeout_seconds?: number;
}

export interface RepairPassParams {
  runIds?: string[];
  instanceId?: string;
}

export interface ActivityTimeoutPassParams {
  limit?: number;
  executionIds?: string[];
}

export interface ListWorkersParams {
  taskQueue?: string;
  status?: string;
}

export interface QueryWorkflowParams {
  /** Ask this run; the server refuses one that is not the workflow's current run (409). */
  runId?: string;
  input?: unknown[] | PayloadEnvelope;
}

/** The endpoints a GET reads and a decoder parses (endpoints.ts): what {@link DwClient.read} takes. */
export type ReadName = {
  [N in EndpointName]: (typeof ENDPOINTS)[N]["response"] extends null ? never : N;
}[EndpointName];

/** The body a POST that reads takes (its entry's `request`); a GET takes none. */
export type ReadBody<N extends ReadName> = (typeof ENDPOINTS)[N] extends { request: "workflowQuery" }
  ? WorkflowQueryRequest
  : undefined;

export type ReadQuery = Record<string, string | number | undefined | null>;

/**
 * The reads: what the browser's client holds (it reaches the server only through the read proxy,
 * which passes reads alone) and what every server-side reader takes.
 */
export interface DwClient {
  /** Any read of the endpoint table by name (a POST that reads takes its body): no method of its own needed. */
  read<N extends ReadName>(
    name: N,
    params: EndpointParams<N>,
    query?: ReadQuery,
    opts?: DwRequestOptions,
    body?: ReadBody<N>,
  ): Promise<EndpointAnswer<N>>;

  health(opts?: DwRequestOptions): Promise<Health>;
  ready(opts?: DwRequestOptions): Promise<Ready>;
  clusterInfo(opts?: DwRequestOptions): Promise<ClusterInfo>;
  listNamespaces(opts?: DwRequestOptions): Promise<NamespaceList>;

  listWorkflows(params?: ListWorkflowsParams, opts?: DwRequestOptions): Promise<WorkflowList>;
  describeWorkflow(workflowId: string, opts?: DwRequestOptions): Promise<RunDescription>;
  listRuns(workflowId: string, opts?: DwRequestOptions): Promise<RunList>;
  describeRun(workflowId: string, runId: string, opts?: DwRequestOptions): Promise<RunDescription>;
  debugWorkflow(workflowId: string, params?: DebugParams, opts?: DwRequestOptions): Promise<WorkflowDebug>;
  debugRun(workflowId: string, runId: string, params?: DebugParams, opts?: DwRequestOptions): Promise<WorkflowDebug>;
  getHistory(workflowId: string, runId: string, params?: HistoryParams, opts?: DwRequestOptions): Promise<HistoryPage>;
  exportHistory(workflowId: string, runId: string, opts?: DwRequestOptions): Promise<HistoryExport>;

  operatorMetrics(opts?: DwRequestOptions): Promise<OperatorMetricsResponse>;
  systemMetrics(opts?: DwRequestOptions): Promise<SystemMetrics>;
  repairStatus(opts?: DwRequestOptions): Promise<RepairStatus>;
  activityTimeouts(params?: { limit?: number }, opts?: DwRequestOptions): Promise<ActivityTimeoutStatus>;
  retentionStatus(params?: { limit?: number }, opts?: DwRequestOptions): Promise<RetentionStatus>;
  listWorkers(params?: ListWorkersParams, opts?: DwRequestOptions): Promise<WorkerList>;
  getWorker(workerId: string, opts?: DwRequestOptions): Promise<Worker>;
  listTaskQueues(opts?: DwRequestOptions): Promise<TaskQueueList>;
  getTaskQueue(name: string, opts?: DwRequestOptions): Promise<TaskQueueDetail>;
}

/** Cursor for "events after `sequence`" — the server's history token is `base64(last sequence)`. */
export function historyTokenAfter(sequence: number): string {
  return btoa(String(sequence));
}

/**
 * The token to pass on the next (long-)poll when tailing a run. `next_page_token: null` only means
 * "no more events right now", so the cursor is rebuilt from the last sequence seen; a page with no
 * events keeps the previous cursor.
 */
export function historyResumeToken(
  page: Pick<HistoryPage, "events" | "next_page_token">,
  previous: string | null,
): string | null {
  if (page.next_page_token) return page.next_page_token;
  const last = page.events.at(-1);
  return last ? historyTokenAfter(last.sequence) : previous;
}

/**
 * Encode one path segment. Ids may contain `/`, `%`, spaces or unicode; `.` and `..` cannot be sent
 * at all, because every URL parser (fetch included) collapses them — even percent-encoded.
 */
export function pathSegment(value: string): string {
  if (value === "" || value === "." || value === "..") {
    throw new DwInvalidArgumentError(`"${value}" cannot be used as a path segment`);
  }
  return encodeURIComponent(value);
}

type Query = ReadQuery;

export interface RequestSpec {
  /** DELETE and PUT: the schedule, search-attribute and namespace commands (commands.ts). */
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  longPoll?: boolean;
  /** Overrides the default read timeout (the export's own limit). */
  timeoutMs?: number;
}

export type { Decoded, Decoder };

const SEND_FAILURES: SendFailures<DwError> = {
  aborted: (cause) => new DwAbortedError("request aborted by caller", { cause }),
  timedOut: (timeoutMs, cause) =>
    new DwServerUnavailableError(`no answer within ${timeoutMs} ms`, { unavailableCause: "timeout", cause }),
  unreachable: (detail, cause) =>
    new DwServerUnavailableError(`cannot reach the Durable Workflow server: ${detail}`, {
      unavailableCause: "network",
      cause,
    }),
};

/** One decoder per response shape the client reads, named as in schemas-responses.ts. */
export type DwDecoders = {
  readonly [K in keyof typeof RESPONSE_SCHEMAS]: Decoder<z.infer<(typeof RESPONSE_SCHEMAS)[K]>>;
};

export function decodeWith<T>(decoder: Decoder<T>, raw: RawResponse, what: string): T {
  if (!raw.isJson) {
    throw new DwMalformedResponseError(`${what}: response is not JSON`, { httpStatus: raw.status, issuePath: "$" });
  }
  const result = decoder(raw.json);
  if (!result.ok) {
    throw new DwMalformedResponseError(`${what}: unexpected response at ${result.issuePath}: ${result.message}`, {
      httpStatus: raw.status,
      issuePath: result.issuePath,
      body: raw.json,
      cause: result.cause,
    });
  }
  return result.value;
}

/** Compact request body: omits undefined keys so optional fields are not sent as nulls. */
export function compact(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const entries = Object.entries(body).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** One configured connection: the requests the reads (below) and the commands (commands.ts) are made of. */
export interface DwTransport {
  readonly decoders: DwDecoders;
  readonly exportTimeoutMs: number;
  send(spec: RequestSpec, opts?: DwRequestOptions): Promise<RawResponse>;
  /** GET/POST whose success is exactly `ok` statuses; anything else is a typed error. */
  call<T>(
    spec: RequestSpec,
    decoder: Decoder<T>,
    opts: DwRequestOptions | undefined,
    ok?: readonly number[],
  ): Promise<{ status: number; data: T }>;
}

export function dwTransport(decoders: DwDecoders, options: DwClientOptions): DwTransport {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const root = options.baseUrl.replace(/\/+$/, "") + (options.apiPrefix ?? "/api");
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const longPollTimeout = Math.max(defaultTimeout, options.longPollTimeoutMs ?? DEFAULT_LONG_POLL_TIMEOUT_MS);
  const exportTimeoutMs = Math.max(defaultTimeout, options.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS);

  async function send(spec: RequestSpec, opts: DwRequestOptions = {}): Promise<RawResponse> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
    }
    const qs = query.toString();
    const url = `${root}${spec.path}${qs ? `?${qs}` : ""}`;

    const headers: Record<string, string> = {
      Accept: "application/json",
      // The server's `deflate` is raw DEFLATE, which fetch implementations cannot inflate; ask for gzip only.
      "Accept-Encoding": "gzip",
      [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
    };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    const namespace = opts.namespace ?? options.namespace;
    if (namespace) headers["X-Namespace"] = namespace;
    const timeoutMs = opts.timeoutMs ?? spec.timeoutMs ?? (spec.longPoll ? longPollTimeout : defaultTimeout);
    const request = { url, method: spec.method, headers, body: spec.body, timeoutMs, signal: opts.signal };
    return sendJsonRequest(fetchImpl, request, SEND_FAILURES);
  }

  async function call<T>(
    spec: RequestSpec,
    decoder: Decoder<T>,
    opts: DwRequestOptions | undefined,
    ok: readonly number[] = [200],
  ): Promise<{ status: number; data: T }> {
    const raw = await send(spec, opts);
    if (!ok.includes(raw.status)) {
      // A 5xx proxy page or a bare 4xx without an envelope still maps by status.
      throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
    }
    return { status: raw.status, data: decodeWith(decoder, raw, `${spec.method} ${spec.path}`) };
  }

  return { decoders, exportTimeoutMs, send, call };
}

/**
 * The reading client over a set of decoders: `createDwClient` (client.ts) validates every body with
 * the zod schemas and adds the commands; the browser client trusts bodies the same-origin proxy has
 * already validated, and holds no command (the proxy would refuse them).
 */
export function createDwClientWith(decoders: DwDecoders, options: DwClientOptions): DwClient {
  return readsOf(dwTransport(decoders, options));
}

/** The reads, each declared in endpoints.ts. */
export function readsOf({ decoders, exportTimeoutMs, call }: DwTransport): DwClient {
  /** Method, path, decoder and the statuses that carry a body come from the endpoint's entry. */
  async function read<N extends ReadName>(
    name: N,
    params: EndpointParams<N>,
    opts: DwRequestOptions | undefined,
    extra: Omit<RequestSpec, "method" | "path"> = {},
  ): Promise<EndpointAnswer<N>> {
    const endpoint = ENDPOINTS[name];
    const path = endpointPath(name, params, pathSegment);
    const decoder = decoders[endpoint.response] as Decoder<EndpointAnswer<N>>;
    return (await call({ method: endpoint.method, path, ...extra }, decoder, opts, endpoint.statuses)).data;
  }
  // Every GET with an answer is a method taking its path's ids in order, then the options; the
  // reads below that take more (a query string, a long-poll) replace theirs.
  const gets = (Object.keys(ENDPOINTS) as EndpointName[]).filter(
    (name): name is ReadName => ENDPOINTS[name].method === "GET" && ENDPOINTS[name].response !== null,
  );
  const byIds = Object.fromEntries(
    gets.map((name) => {
      const ids = [...ENDPOINTS[name].path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
      const method = (...args: unknown[]) => {
        const params = Object.fromEntries(ids.map((id, i) => [id, args[i]])) as EndpointParams<typeof name>;
        return read(name, params, args[ids.length] as DwRequestOptions | undefined);
      };
      return [name, method];
    }),
  ) as unknown as DwClient;
  const none = {};
  const debugQuery = (params: DebugParams): Query => ({
    include_last_event_payload: params.includeLastEventPayload ? "true" : undefined,
  });

  return {
    ...byIds,
    read: (name, params, query, opts, body) => read(name, params, opts, { query, body }),

    listWorkflows(params = {}, opts) {
      const query: Query = {
        status: params.status,
        workflow_type: params.workflowType,
        query: params.query,
        page_size: params.pageSize,
        next_page_token: params.nextPageToken,
      };
      return read("listWorkflows", none, opts, { query });
    },
    debugWorkflow: (workflowId, params = {}, opts) =>
      read("debugWorkflow", { workflowId }, opts, { query: debugQuery(params) }),
    debugRun: (workflowId, runId, params = {}, opts) =>
      read("debugRun", { workflowId, runId }, opts, { query: debugQuery(params) }),
    getHistory(workflowId, runId, params = {}, opts) {
      const query: Query = {
        page_size: params.pageSize,
        next_page_token: params.nextPageToken,
        // Laravel's boolean rule rejects "true"/"false"; only 1/0 are accepted.
        wait_new_event: params.waitNewEvent ? 1 : undefined,
      };
      return read("getHistory", { workflowId, runId }, opts, { query, longPoll: params.waitNewEvent === true });
    },
    exportHistory: (workflowId, runId, opts) =>
      read("exportHistory", { workflowId, runId }, opts, { timeoutMs: exportTimeoutMs }),
    activityTimeouts: (params = {}, opts) => read("activityTimeouts", none, opts, { query: { limit: params.limit } }),
    retentionStatus: (params = {}, opts) => read("retentionStatus", none, opts, { query: { limit: params.limit } }),
    listWorkers(params = {}, opts) {
      const query: Query = { task_queue: params.taskQueue, status: params.status };
      return read("listWorkers", none, opts, { query });
    },
  };
}

/**
 * A workflow query, a POST that reads (endpoints.ts `queryWorkflow`, `queryRun` when a run is
 * named); a refusal (409 handler failed, 404 unknown name, 504 no worker answered) is a typed error.
 */
export function queryWorkflow(
  client: DwClient,
  workflowId: string,
  queryName: string,
  params: QueryWorkflowParams = {},
  opts?: DwRequestOptions,
): Promise<WorkflowQueryResult> {
  const { runId, input } = params;
  const body = input === undefined ? undefined : { input };
  return runId === undefined
    ? client.read("queryWorkflow", { workflowId, queryName }, undefined, opts, body)
    : client.read("queryRun", { workflowId, runId, queryName }, undefined, opts, body);
}
