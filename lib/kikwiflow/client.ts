import type { z } from "zod";
import { issuePathOf } from "../dw/client";
import { type RawResponse, type SendFailures, sendJsonRequest } from "../http/request";
import {
  KikwiflowAbortedError,
  type KikwiflowError,
  KikwiflowInvalidArgumentError,
  KikwiflowMalformedResponseError,
  KikwiflowUnavailableError,
  kikwiflowErrorFromResponse,
} from "./errors";
import { pulseSnapshots } from "./pulse-stream";
import {
  type HistoryEvent,
  historyEventListSchema,
  type Incident,
  incidentSchema,
  type ProcessDefinition,
  processDefinitionSchema,
  type ProcessInstance,
  type ProcessInstancePage,
  processInstancePageSchema,
  processInstanceSchema,
  type ProcessInstanceSnapshot,
  processInstanceSnapshotSchema,
  type ProcessInstanceStatus,
  type ProcessVariable,
  type PulseSnapshot,
  pulseSnapshotSchema,
} from "./schemas";

/**
 * Client for Kikwiflow's management REST (kikwi-management-rest@3b62f35). No authentication exists on
 * the engine's side; the tenant travels as `X-Tenant-Id` (kikwi-security-spring-starter/.../
 * KikwiflowSecurityAutoConfiguration.java@3b62f35). Every body is checked against the open schemas
 * in schemas.ts; every failure is a typed {@link KikwiflowError}.
 */

export const DEFAULT_KIKWIFLOW_BASE_PATH = "/kikwiflow/api/v1";
export const TENANT_HEADER = "X-Tenant-Id";
const DEFAULT_TIMEOUT_MS = 15_000;
/** ProcessInstanceSearchRequest.MAX_SIZE@3b62f35: the engine silently caps larger pages at 100. */
export const MAX_SEARCH_PAGE_SIZE = 100;

export interface KikwiflowClientOptions {
  /** Engine root, e.g. `http://127.0.0.1:8095`. */
  baseUrl: string;
  /** `kikwiflow.rest.base-path` (default `/kikwiflow/api/v1`). */
  basePath?: string;
  /** Sent as `X-Tenant-Id` on every request unless a call overrides it. */
  tenantId?: string;
  /** Per-request timeout (default 15 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface KikwiflowRequestOptions {
  signal?: AbortSignal;
  tenantId?: string;
  timeoutMs?: number;
}

/** kikwi-management-rest/.../dtos/ProcessInstanceSearchRequest.java@3b62f35 (instants as ISO strings). */
export interface ProcessInstanceSearch {
  processDefinitionId?: string;
  processDefinitionIds?: string[];
  processDefinitionKeys?: string[];
  activeNodeId?: string;
  parentInstanceId?: string;
  tenantId?: string;
  tenantIds?: string[];
  statuses?: ProcessInstanceStatus[];
  businessKey?: string;
  businessKeys?: string[];
  startedAfter?: string;
  startedBefore?: string;
  variables?: Record<string, unknown>;
  variablesExist?: string[];
  orderBy?: "id" | "businessKey" | "status" | "processDefinitionId" | "startedAt" | "endedAt";
  ascending?: boolean;
  /** 0-based. */
  page?: number;
  /** 1..100, engine default 20. */
  size?: number;
}

/** kikwi-api/.../dto/ProcessInstanceStartRequest.java@3b62f35 */
export interface StartProcessInstance {
  processDefinitionKey: string;
  businessKey?: string;
  tenant?: string;
  origin?: string;
  businessValue?: number;
  variables?: Record<string, ProcessVariable>;
}

/**
 * Retry-incident's answer. 409 is an answer, not a failure: the incident was no longer OPEN (someone
 * retried it already). A 404 (no such incident) throws.
 */
export type RetryIncidentResult =
  | { readonly kind: "accepted"; readonly httpStatus: number }
  | { readonly kind: "rejected"; readonly httpStatus: 409; readonly code: string | null; readonly message: string };

export interface KikwiflowClient {
  searchProcessInstances(search?: ProcessInstanceSearch, opts?: KikwiflowRequestOptions): Promise<ProcessInstancePage>;
  getProcessInstance(id: string, opts?: KikwiflowRequestOptions): Promise<ProcessInstance>;
  getSnapshot(id: string, opts?: KikwiflowRequestOptions): Promise<ProcessInstanceSnapshot>;
  getInstanceIncidents(id: string, opts?: KikwiflowRequestOptions): Promise<Incident[]>;
  getIncident(id: string, opts?: KikwiflowRequestOptions): Promise<Incident>;
  retryIncident(id: string, opts?: KikwiflowRequestOptions): Promise<RetryIncidentResult>;
  /** Outbox events, oldest first; empty unless the engine runs with `kikwiflow.outbox.events-enabled`. */
  getEvents(id: string, opts?: KikwiflowRequestOptions): Promise<HistoryEvent[]>;
  getPulseSnapshot(processDefinitionId: string, opts?: KikwiflowRequestOptions): Promise<PulseSnapshot>;
  /**
   * The pulse snapshot over SSE, one per engine interval, until `opts.signal` aborts (then the
   * iteration throws KikwiflowAbortedError) or the engine closes the stream. `timeoutMs` bounds only
   * the wait for the response headers.
   */
  pulseStream(processDefinitionId: string, opts?: KikwiflowRequestOptions): AsyncGenerator<PulseSnapshot>;
  getProcessDefinitionByKey(key: string, opts?: KikwiflowRequestOptions): Promise<ProcessDefinition>;
  /**
   * `GET /process-definitions`: every deployed version, newest version first
   * (ProcessDefinitionQueryController.findAll@3b62f35; `?key=` narrows to one key's versions).
   */
  listProcessDefinitions(key?: string, opts?: KikwiflowRequestOptions): Promise<ProcessDefinition[]>;
  /** `GET /process-definitions/{id}`: instances name their definition by this id (a UUID), not by key. */
  getProcessDefinition(id: string, opts?: KikwiflowRequestOptions): Promise<ProcessDefinition>;
  startProcessInstance(request: StartProcessInstance, opts?: KikwiflowRequestOptions): Promise<ProcessInstance>;
  /**
   * `PUT /process-instances/{id}` (204): the engine's only way to stop an instance. It removes the
   * instance and its tasks from the live store; no CANCELLED status, no outbox event; incidents stay
   * (ProcessInstanceOperationsRestApi.deleteInstance, InMemoryKikwiEngineRepository.deleteProcessInstanceById@3b62f35).
   */
  deleteProcessInstance(id: string, opts?: KikwiflowRequestOptions): Promise<void>;
  /**
   * `PUT /process-instances/{id}/variables` `{variables}`: merged by name into the instance
   * (InMemoryKikwiEngineRepository.addVariables@3b62f35). Its answer is not decoded: for an unknown
   * id the engine answers 200 with no body, so only a read of the instance tells what it holds.
   */
  setProcessInstanceVariables(
    id: string,
    variables: Record<string, ProcessVariable>,
    opts?: KikwiflowRequestOptions,
  ): Promise<void>;
}

/** One path segment; `.`/`..` cannot be sent at all (URL parsers collapse them, even encoded). */
export function pathSegment(value: string): string {
  if (value === "" || value === "." || value === "..") {
    throw new KikwiflowInvalidArgumentError(`"${value}" cannot be used as a path segment`);
  }
  return encodeURIComponent(value);
}

interface RequestSpec {
  method: "GET" | "POST" | "PUT";
  path: string;
  body?: unknown;
}

const SEND_FAILURES: SendFailures<KikwiflowError> = {
  aborted: (cause) => new KikwiflowAbortedError("request aborted by caller", { cause }),
  timedOut: (timeoutMs, cause) =>
    new KikwiflowUnavailableError(`no answer within ${timeoutMs} ms`, { unavailableCause: "timeout", cause }),
  unreachable: (detail, cause) =>
    new KikwiflowUnavailableError(`cannot reach the Kikwiflow engine: ${detail}`, {
      unavailableCause: "network",
      cause,
    }),
};

function decode<S extends z.ZodType>(schema: S, raw: RawResponse, what: string): z.infer<S> {
  if (!raw.isJson) {
    throw new KikwiflowMalformedResponseError(`${what}: response is not JSON`, {
      httpStatus: raw.status,
      issuePath: "$",
      body: raw.json,
    });
  }
  const result = schema.safeParse(raw.json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const issuePath = issuePathOf(issue);
  throw new KikwiflowMalformedResponseError(
    `${what}: unexpected response at ${issuePath}: ${issue?.message ?? "invalid"}`,
    { httpStatus: raw.status, issuePath, body: raw.json, cause: result.error },
  );
}

/** Drops undefined keys so optional filters are not sent as nulls. */
function compact<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function createKikwiflowClient(options: KikwiflowClientOptions): KikwiflowClient {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const root = options.baseUrl.replace(/\/+$/, "") + (options.basePath ?? DEFAULT_KIKWIFLOW_BASE_PATH);
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  function baseHeaders(opts: KikwiflowRequestOptions): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    const tenantId = opts.tenantId ?? options.tenantId;
    if (tenantId) headers[TENANT_HEADER] = tenantId;
    return headers;
  }

  async function send(spec: RequestSpec, opts: KikwiflowRequestOptions = {}): Promise<RawResponse> {
    const request = {
      url: `${root}${spec.path}`,
      method: spec.method,
      headers: baseHeaders(opts),
      body: spec.body,
      timeoutMs: opts.timeoutMs ?? defaultTimeout,
      signal: opts.signal,
    };
    return sendJsonRequest(fetchImpl, request, SEND_FAILURES);
  }

  async function call<S extends z.ZodType>(
    spec: RequestSpec,
    schema: S,
    opts: KikwiflowRequestOptions | undefined,
    ok: readonly number[] = [200],
  ): Promise<z.infer<S>> {
    const raw = await send(spec, opts);
    if (!ok.includes(raw.status)) throw kikwiflowErrorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
    return decode(schema, raw, `${spec.method} ${spec.path}`);
  }

  const instance = (id: string) => `/process-instances/${pathSegment(id)}`;

  return {
    async searchProcessInstances(search = {}, opts) {
      const spec: RequestSpec = { method: "POST", path: "/process-instances/search", body: compact(search) };
      return call(spec, processInstancePageSchema, opts);
    },
    async getProcessInstance(id, opts) {
      return call({ method: "GET", path: instance(id) }, processInstanceSchema, opts);
    },
    async getSnapshot(id, opts) {
      return call({ method: "GET", path: `${instance(id)}/snapshot` }, processInstanceSnapshotSchema, opts);
    },
    async getInstanceIncidents(id, opts) {
      return call({ method: "GET", path: `${instance(id)}/incidents` }, incidentSchema.array(), opts);
    },
    async getIncident(id, opts) {
      return call({ method: "GET", path: `/incidents/${pathSegment(id)}` }, incidentSchema, opts);
    },
    async retryIncident(id, opts) {
      const raw = await send({ method: "PUT", path: `/incidents/${pathSegment(id)}/retry` }, opts);
      if (raw.status >= 200 && raw.status < 300) return { kind: "accepted", httpStatus: raw.status };
      const error = kikwiflowErrorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
      if (error.reason === "conflict") {
        return { kind: "rejected", httpStatus: 409, code: error.code, message: error.message };
      }
      throw error;
    },
    async getEvents(id, opts) {
      return call({ method: "GET", path: `${instance(id)}/events` }, historyEventListSchema, opts);
    },
    async getPulseSnapshot(processDefinitionId, opts) {
      const path = `/pulse/process-definition/${pathSegment(processDefinitionId)}/snapshot`;
      return call({ method: "GET", path }, pulseSnapshotSchema, opts);
    },
    pulseStream(processDefinitionId, opts = {}) {
      const path = `/pulse/process-definition/${pathSegment(processDefinitionId)}/snapshot/stream`;
      return pulseSnapshots({
        url: `${root}${path}`,
        headers: baseHeaders(opts),
        fetch: fetchImpl,
        connectTimeoutMs: opts.timeoutMs ?? defaultTimeout,
        signal: opts.signal,
      });
    },
    async getProcessDefinitionByKey(key, opts) {
      const path = `/process-definitions/one-by-key/${pathSegment(key)}`;
      return call({ method: "GET", path }, processDefinitionSchema, opts);
    },
    async listProcessDefinitions(key, opts) {
      const path = key === undefined ? "/process-definitions" : `/process-definitions?key=${encodeURIComponent(key)}`;
      return call({ method: "GET", path }, processDefinitionSchema.array(), opts);
    },
    async getProcessDefinition(id, opts) {
      return call({ method: "GET", path: `/process-definitions/${pathSegment(id)}` }, processDefinitionSchema, opts);
    },
    async startProcessInstance(request, opts) {
      const spec: RequestSpec = { method: "POST", path: "/process-instances", body: compact(request) };
      return call(spec, processInstanceSchema, opts, [200, 201]);
    },
    async deleteProcessInstance(id, opts) {
      const raw = await send({ method: "PUT", path: instance(id) }, opts);
      if (raw.status < 200 || raw.status >= 300) {
        throw kikwiflowErrorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
      }
    },
    async setProcessInstanceVariables(id, variables, opts) {
      const raw = await send({ method: "PUT", path: `${instance(id)}/variables`, body: { variables } }, opts);
      if (raw.status < 200 || raw.status >= 300) {
        throw kikwiflowErrorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
      }
    },
  };
}
