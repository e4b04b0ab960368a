import type { z } from "zod";
import type { StatusBucketFilter } from "./enums";
import {
  DwAbortedError,
  DwBadRequestError,
  DwConflictError,
  type DwError,
  DwForbiddenError,
  DwInstanceNotFoundError,
  DwInvalidArgumentError,
  DwMalformedResponseError,
  DwNamespaceNotFoundError,
  DwNotFoundError,
  DwPayloadTooLargeError,
  DwRouteNotFoundError,
  DwRunNotFoundError,
  DwServerUnavailableError,
  DwUnauthorizedError,
  DwValidationError,
  DwVersionMismatchError,
} from "./errors";
import type { PayloadEnvelope } from "./schema-kit";
import { historyExportSchema, type HistoryExport } from "./schemas-export";
import {
  clusterInfoSchema,
  healthSchema,
  namespaceListSchema,
  readySchema,
  taskQueueDetailSchema,
  taskQueueListSchema,
  workerListSchema,
  workerSchema,
  type ClusterInfo,
  type Health,
  type NamespaceList,
  type Ready,
  type TaskQueueDetail,
  type TaskQueueList,
  type Worker,
  type WorkerList,
} from "./schemas-fleet";
import {
  activityTimeoutPassReportSchema,
  activityTimeoutStatusSchema,
  operatorMetricsResponseSchema,
  repairPassReportSchema,
  repairStatusSchema,
  systemMetricsSchema,
  type ActivityTimeoutPassReport,
  type ActivityTimeoutStatus,
  type OperatorMetricsResponse,
  type RepairPassReport,
  type RepairStatus,
  type SystemMetrics,
} from "./schemas-system";
import {
  commandResponseSchema,
  historyPageSchema,
  runDescriptionSchema,
  runListSchema,
  startResponseSchema,
  workflowDebugSchema,
  workflowListSchema,
  type CommandResponse,
  type HistoryPage,
  type RunDescription,
  type RunList,
  type StartResponse,
  type WorkflowDebug,
  type WorkflowList,
} from "./schemas-workflows";

/**
 * The one fetch wrapper for the Durable Workflow Server API (server-api.md §1–§2).
 * Browser-safe: uses only `fetch`, `AbortSignal`, `URLSearchParams`, `btoa`.
 */

export const CONTROL_PLANE_VERSION = "2";
export const CONTROL_PLANE_VERSION_HEADER = "X-Durable-Workflow-Control-Plane-Version";
const DEFAULT_TIMEOUT_MS = 15_000;
/** The server holds `wait_new_event=1` up to 30 s; the client must outlast it (server-api.md §7 item 5). */
const DEFAULT_LONG_POLL_TIMEOUT_MS = 40_000;

export interface DwClientOptions {
  /** Server root, e.g. `http://127.0.0.1:8080` (no trailing `/api`). May be relative in browsers. */
  baseUrl: string;
  /** Bearer token; omitted when the server runs with `DW_AUTH_DRIVER=none`. */
  token?: string;
  /** Default `X-Namespace`; the server falls back to its default namespace when absent. */
  namespace?: string;
  /** Per-request timeout (default 15 s). Long-polls use `max(timeoutMs, longPollTimeoutMs)`. */
  timeoutMs?: number;
  /** Timeout for `wait_new_event=1` history polls (default 40 s). */
  longPollTimeoutMs?: number;
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

export interface DwClient {
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

  startWorkflow(params: StartWorkflowParams, opts?: DwRequestOptions): Promise<CommandResult<StartResponse>>;
  cancelWorkflow(workflowId: string, params?: ReasonCommandParams, opts?: DwRequestOptions): Promise<CommandResult<CommandResponse>>;
  terminateWorkflow(workflowId: string, params?: ReasonCommandParams, opts?: DwRequestOptions): Promise<CommandResult<CommandResponse>>;
  repairWorkflow(workflowId: string, params?: Omit<CommandParams, "runId">, opts?: DwRequestOptions): Promise<CommandResult<CommandResponse>>;
  archiveWorkflow(workflowId: string, params?: Omit<ReasonCommandParams, "runId">, opts?: DwRequestOptions): Promise<CommandResult<CommandResponse>>;
  signalWorkflow(workflowId: string, signalName: string, params?: SignalParams, opts?: DwRequestOptions): Promise<CommandResult<CommandResponse>>;

  operatorMetrics(opts?: DwRequestOptions): Promise<OperatorMetricsResponse>;
  systemMetrics(opts?: DwRequestOptions): Promise<SystemMetrics>;
  repairStatus(opts?: DwRequestOptions): Promise<RepairStatus>;
  runRepairPass(params?: RepairPassParams, opts?: DwRequestOptions): Promise<PassResult<RepairPassReport>>;
  activityTimeouts(params?: { limit?: number }, opts?: DwRequestOptions): Promise<ActivityTimeoutStatus>;
  runActivityTimeoutPass(params?: ActivityTimeoutPassParams, opts?: DwRequestOptions): Promise<PassResult<ActivityTimeoutPassReport>>;

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
export function historyResumeToken(page: Pick<HistoryPage, "events" | "next_page_token">, previous: string | null): string | null {
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

type Query = Record<string, string | number | undefined | null>;

interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  query?: Query;
  body?: unknown;
  longPoll?: boolean;
}

interface RawResponse {
  status: number;
  json: unknown;
  /** False when the body was empty or not JSON. */
  isJson: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function stringArrayMap(value: unknown): Record<string, string[]> {
  if (!isRecord(value)) return {};
  const out: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(value)) {
    out[key] = Array.isArray(messages) ? messages.filter((m): m is string => typeof m === "string") : [];
  }
  return out;
}

/**
 * Map a non-success HTTP answer to its typed error. Exported so a same-origin proxy can rebuild
 * the same error from a relayed status and body.
 */
export function errorFromResponse(status: number, body: unknown): DwError {
  const envelope = isRecord(body) ? body : {};
  const serverReason = str(envelope.reason);
  const message = str(envelope.message) ?? str(envelope.error) ?? `HTTP ${status}`;
  const init = { httpStatus: status, serverReason, body };

  if (status === 401) return new DwUnauthorizedError(message, init);
  if (status === 403) {
    const allowed = Array.isArray(envelope.allowed_roles) ? envelope.allowed_roles.filter((r): r is string => typeof r === "string") : [];
    return new DwForbiddenError(message, { ...init, role: str(envelope.role), allowedRoles: allowed });
  }
  if (status === 404) {
    switch (serverReason) {
      case "namespace_not_found":
        return new DwNamespaceNotFoundError(message, { ...init, namespace: str(envelope.namespace), remediation: str(envelope.remediation) });
      case "instance_not_found":
        return new DwInstanceNotFoundError(message, { ...init, workflowId: str(envelope.workflow_id) });
      case "run_not_found":
        return new DwRunNotFoundError(message, { ...init, workflowId: str(envelope.workflow_id), runId: str(envelope.run_id) });
      case null:
      case "not_found":
        return new DwRouteNotFoundError(message, init);
      default:
        return new DwNotFoundError(message, init);
    }
  }
  if (status === 405) return new DwRouteNotFoundError(message, init);
  if (status === 400 && (serverReason === "missing_control_plane_version" || serverReason === "unsupported_control_plane_version")) {
    return new DwVersionMismatchError(message, {
      ...init,
      supportedVersion: str(envelope.supported_version),
      requestedVersion: str(envelope.requested_version),
    });
  }
  if (status === 409) return new DwConflictError(message, init);
  if (status === 413) {
    return new DwPayloadTooLargeError(message, { ...init, limit: typeof envelope.limit === "number" ? envelope.limit : null });
  }
  if (status === 422) {
    const errors = envelope.errors ?? envelope.validation_errors;
    return new DwValidationError(message, { ...init, errors: stringArrayMap(errors) });
  }
  if (status === 429) return new DwServerUnavailableError(message, { ...init, unavailableCause: "throttled" });
  if (status >= 500) return new DwServerUnavailableError(message, { ...init, unavailableCause: "http_5xx" });
  return new DwBadRequestError(message, init);
}

function issuePathOf(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "$";
  return issue.path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}.${String(key)}`),
    "$",
  );
}

function parseWith<S extends z.ZodType>(schema: S, raw: RawResponse, what: string): z.infer<S> {
  if (!raw.isJson) {
    throw new DwMalformedResponseError(`${what}: response is not JSON`, { httpStatus: raw.status, issuePath: "$" });
  }
  const result = schema.safeParse(raw.json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issuePathOf(issue);
    throw new DwMalformedResponseError(`${what}: unexpected response at ${path}: ${issue?.message ?? "invalid"}`, {
      httpStatus: raw.status,
      issuePath: path,
      body: raw.json,
      cause: result.error,
    });
  }
  return result.data;
}

/** Compact request body: omits undefined keys so optional fields are not sent as nulls. */
function compact(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const entries = Object.entries(body).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

export function createDwClient(options: DwClientOptions): DwClient {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const root = options.baseUrl.replace(/\/+$/, "") + (options.apiPrefix ?? "/api");
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const longPollTimeout = Math.max(defaultTimeout, options.longPollTimeoutMs ?? DEFAULT_LONG_POLL_TIMEOUT_MS);

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
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (payload !== undefined) headers["Content-Type"] = "application/json";

    const timeoutMs = opts.timeoutMs ?? (spec.longPoll ? longPollTimeout : defaultTimeout);
    const timeoutSignal = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeoutSignal]) : timeoutSignal;

    const failed = (error: unknown): DwError => {
      if (opts.signal?.aborted) return new DwAbortedError("request aborted by caller", { cause: error });
      if (timeoutSignal.aborted) {
        return new DwServerUnavailableError(`no answer within ${timeoutMs} ms`, { unavailableCause: "timeout", cause: error });
      }
      return new DwServerUnavailableError(
        `cannot reach the Durable Workflow server: ${error instanceof Error ? error.message : String(error)}`,
        { unavailableCause: "network", cause: error },
      );
    };

    if (opts.signal?.aborted) throw failed(opts.signal.reason);
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { method: spec.method, headers, body: payload, signal });
      text = await response.text();
    } catch (error) {
      throw failed(error);
    }
    if (text.trim() === "") return { status: response.status, json: undefined, isJson: false };
    try {
      return { status: response.status, json: JSON.parse(text) as unknown, isJson: true };
    } catch {
      return { status: response.status, json: text, isJson: false };
    }
  }

  /** GET/POST whose success is exactly `ok` statuses; anything else is a typed error. */
  async function call<S extends z.ZodType>(
    spec: RequestSpec,
    schema: S,
    opts: DwRequestOptions | undefined,
    ok: readonly number[] = [200],
  ): Promise<{ status: number; data: z.infer<S> }> {
    const raw = await send(spec, opts);
    if (!ok.includes(raw.status)) {
      // A 5xx proxy page or a bare 4xx without an envelope still maps by status.
      throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
    }
    return { status: raw.status, data: parseWith(schema, raw, `${spec.method} ${spec.path}`) };
  }

  async function command<S extends z.ZodType>(
    spec: RequestSpec,
    schema: S,
    opts: DwRequestOptions | undefined,
  ): Promise<CommandResult<z.infer<S>>> {
    const raw = await send(spec, opts);
    const what = `${spec.method} ${spec.path}`;
    if (raw.status >= 200 && raw.status < 300) {
      return { kind: "accepted", httpStatus: raw.status, body: parseWith(schema, raw, what) };
    }
    // Engine rejections come back as 409 (404/422 for unknown signal / invalid arguments) with the
    // full command body; envelopes without an outcome (e.g. historical_run_command_rejected) are errors.
    const body = raw.isJson && isRecord(raw.json) ? raw.json : null;
    const isCommandBody = body !== null && (body.command_status === "rejected" || typeof body.outcome === "string");
    if (isCommandBody && (raw.status === 409 || raw.status === 404 || raw.status === 422)) {
      return { kind: "rejected", httpStatus: raw.status, body: parseWith(schema, raw, what) };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  const wf = (workflowId: string) => `/workflows/${pathSegment(workflowId)}`;
  const run = (workflowId: string, runId: string) => `${wf(workflowId)}/runs/${pathSegment(runId)}`;
  const commandTarget = (workflowId: string, runId: string | undefined) => (runId === undefined ? wf(workflowId) : run(workflowId, runId));

  return {
    async health(opts) {
      // 503 carries the same body with `status: "degraded"`: a probe answer, not a failure.
      return (await call({ method: "GET", path: "/health" }, healthSchema, opts, [200, 503])).data;
    },
    async ready(opts) {
      return (await call({ method: "GET", path: "/ready" }, readySchema, opts, [200, 503])).data;
    },
    async clusterInfo(opts) {
      return (await call({ method: "GET", path: "/cluster/info" }, clusterInfoSchema, opts)).data;
    },
    async listNamespaces(opts) {
      return (await call({ method: "GET", path: "/namespaces" }, namespaceListSchema, opts)).data;
    },

    async listWorkflows(params = {}, opts) {
      const query: Query = {
        status: params.status,
        workflow_type: params.workflowType,
        query: params.query,
        page_size: params.pageSize,
        next_page_token: params.nextPageToken,
      };
      return (await call({ method: "GET", path: "/workflows", query }, workflowListSchema, opts)).data;
    },
    async describeWorkflow(workflowId, opts) {
      return (await call({ method: "GET", path: wf(workflowId) }, runDescriptionSchema, opts)).data;
    },
    async listRuns(workflowId, opts) {
      return (await call({ method: "GET", path: `${wf(workflowId)}/runs` }, runListSchema, opts)).data;
    },
    async describeRun(workflowId, runId, opts) {
      return (await call({ method: "GET", path: run(workflowId, runId) }, runDescriptionSchema, opts)).data;
    },
    async debugWorkflow(workflowId, params = {}, opts) {
      const query: Query = { include_last_event_payload: params.includeLastEventPayload ? "true" : undefined };
      return (await call({ method: "GET", path: `${wf(workflowId)}/debug`, query }, workflowDebugSchema, opts)).data;
    },
    async debugRun(workflowId, runId, params = {}, opts) {
      const query: Query = { include_last_event_payload: params.includeLastEventPayload ? "true" : undefined };
      return (await call({ method: "GET", path: `${run(workflowId, runId)}/debug`, query }, workflowDebugSchema, opts)).data;
    },
    async getHistory(workflowId, runId, params = {}, opts) {
      const query: Query = {
        page_size: params.pageSize,
        next_page_token: params.nextPageToken,
        // Laravel's boolean rule rejects "true"/"false"; only 1/0 are accepted.
        wait_new_event: params.waitNewEvent ? 1 : undefined,
      };
      const spec: RequestSpec = { method: "GET", path: `${run(workflowId, runId)}/history`, query, longPoll: params.waitNewEvent === true };
      return (await call(spec, historyPageSchema, opts)).data;
    },
    async exportHistory(workflowId, runId, opts) {
      return (await call({ method: "GET", path: `${run(workflowId, runId)}/history/export` }, historyExportSchema, opts)).data;
    },

    async startWorkflow(params, opts) {
      return command({ method: "POST", path: "/workflows", body: compact({ ...params }) }, startResponseSchema, opts);
    },
    async cancelWorkflow(workflowId, params = {}, opts) {
      const body = compact({ reason: params.reason, request_id: params.requestId });
      return command({ method: "POST", path: `${commandTarget(workflowId, params.runId)}/cancel`, body }, commandResponseSchema, opts);
    },
    async terminateWorkflow(workflowId, params = {}, opts) {
      const body = compact({ reason: params.reason, request_id: params.requestId });
      return command({ method: "POST", path: `${commandTarget(workflowId, params.runId)}/terminate`, body }, commandResponseSchema, opts);
    },
    async repairWorkflow(workflowId, params = {}, opts) {
      const body = compact({ request_id: params.requestId });
      return command({ method: "POST", path: `${wf(workflowId)}/repair`, body }, commandResponseSchema, opts);
    },
    async archiveWorkflow(workflowId, params = {}, opts) {
      const body = compact({ reason: params.reason, request_id: params.requestId });
      return command({ method: "POST", path: `${wf(workflowId)}/archive`, body }, commandResponseSchema, opts);
    },
    async signalWorkflow(workflowId, signalName, params = {}, opts) {
      const body = compact({ input: params.input, request_id: params.requestId });
      const path = `${commandTarget(workflowId, params.runId)}/signal/${pathSegment(signalName)}`;
      return command({ method: "POST", path, body }, commandResponseSchema, opts);
    },

    async operatorMetrics(opts) {
      return (await call({ method: "GET", path: "/system/operator-metrics" }, operatorMetricsResponseSchema, opts)).data;
    },
    async systemMetrics(opts) {
      return (await call({ method: "GET", path: "/system/metrics" }, systemMetricsSchema, opts)).data;
    },
    async repairStatus(opts) {
      return (await call({ method: "GET", path: "/system/repair" }, repairStatusSchema, opts)).data;
    },
    async runRepairPass(params = {}, opts) {
      const body = compact({ run_ids: params.runIds, instance_id: params.instanceId });
      const { status, data } = await call({ method: "POST", path: "/system/repair/pass", body }, repairPassReportSchema, opts, [200, 207]);
      return { httpStatus: status, partial: status === 207, report: data };
    },
    async activityTimeouts(params = {}, opts) {
      return (await call({ method: "GET", path: "/system/activity-timeouts", query: { limit: params.limit } }, activityTimeoutStatusSchema, opts)).data;
    },
    async runActivityTimeoutPass(params = {}, opts) {
      const body = compact({ limit: params.limit, execution_ids: params.executionIds });
      const spec: RequestSpec = { method: "POST", path: "/system/activity-timeouts/pass", body };
      const { status, data } = await call(spec, activityTimeoutPassReportSchema, opts, [200, 207]);
      return { httpStatus: status, partial: status === 207, report: data };
    },

    async listWorkers(params = {}, opts) {
      const query: Query = { task_queue: params.taskQueue, status: params.status };
      return (await call({ method: "GET", path: "/workers", query }, workerListSchema, opts)).data;
    },
    async getWorker(workerId, opts) {
      return (await call({ method: "GET", path: `/workers/${pathSegment(workerId)}` }, workerSchema, opts)).data;
    },
    async listTaskQueues(opts) {
      return (await call({ method: "GET", path: "/task-queues" }, taskQueueListSchema, opts)).data;
    },
    async getTaskQueue(name, opts) {
      return (await call({ method: "GET", path: `/task-queues/${pathSegment(name)}` }, taskQueueDetailSchema, opts)).data;
    },
  };
}
