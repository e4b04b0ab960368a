import type { DwDecoders } from "./transport";

/**
 * Every Durable Workflow endpoint the console reads, declared once. The typed client builds its read
 * calls from it (transport.ts `read`), the read proxy takes its allow-list, namespace rule and response
 * validation from it (lib/server/proxy), and the query factories their keys and refresh
 * (lib/queries/endpoint-query.ts). Browser-safe: the response is named by its decoder, so zod and the
 * schemas stay on the server (client.ts maps each name to its schema).
 *
 * Roles are the real server's (durable-workflow/server routes/api.php@11d35b7): `operator` routes take
 * an operator or admin token, `admin` ones only admin. Every entry is a read: the console sends it for
 * any signed-in person, viewers included, and in read-only mode (BREAKWATER_READ_ONLY) too.
 */

/** The least server role whose token the route accepts; `none`: no token needed. */
export type ServerRole = "none" | "any" | "operator" | "admin";

/** What the same-origin proxy does with the answer: validate it, stream it unparsed, or relay it as is. */
export type ProxyAnswer = "validated" | "stream" | "relay";

export interface EndpointSpec {
  readonly method: "GET" | "POST";
  /** Path after `/api`, ids as `{name}` (each one URL segment). */
  readonly path: string;
  /** The decoder of the answer; null when no console screen parses it (relayed as the server sent it). */
  readonly response: keyof DwDecoders | null;
  /** A POST's body schema (client.ts `REQUEST_SCHEMAS`), checked by the proxy before it forwards. */
  readonly request?: "workflowQuery";
  /** The statuses that carry that body (the probes answer 503 with it too). */
  readonly statuses: readonly number[];
  /** `server`: the same in every namespace, sent without `X-Namespace`; else it must name one. */
  readonly scope: "server" | "namespace";
  readonly role: ServerRole;
  /** Reachable through `/api/dw` (false: only the console server calls it). */
  readonly proxy: ProxyAnswer | false;
  /** The query key under the scope's prefix (lib/queries/keys.ts); params fill in `{name}` parts. */
  readonly key: readonly string[];
  /** How often a screen showing it re-reads, in ms (false: only when asked). */
  readonly refreshMs: number | false;
}

const OK = [200] as const;
const PROBE = [200, 503] as const;
const FLEET_REFRESH_MS = 5_000;

/** What most reads are: a namespaced GET an operator token may send, validated by the read proxy. */
const READ = { method: "GET", statuses: OK, scope: "namespace", role: "operator", proxy: "validated" } as const;
type Entry = Partial<EndpointSpec> & Pick<EndpointSpec, "path" | "response" | "key" | "refreshMs">;

/** A read with {@link READ}'s defaults; the entry states only what differs. */
function get<const S extends Entry>(spec: S): Omit<typeof READ, keyof S> & S {
  return { ...READ, ...spec };
}

/** A POST that reads (a query): the defaults of {@link get} but the method. */
function post<const S extends Entry>(spec: S) {
  return get({ ...spec, method: "POST" as const });
}

export const ENDPOINTS = {
  health: get({
    path: "/health",
    response: "health",
    statuses: PROBE,
    scope: "server",
    role: "none",
    key: ["connection", "health"],
    refreshMs: 10_000,
  }),
  ready: get({
    path: "/ready",
    response: "ready",
    statuses: PROBE,
    scope: "server",
    role: "none",
    key: ["ready"],
    refreshMs: 10_000,
  }),
  clusterInfo: get({
    path: "/cluster/info",
    response: "clusterInfo",
    scope: "server",
    role: "any",
    key: ["connection", "cluster-info"],
    refreshMs: 30_000,
  }),
  listNamespaces: get({
    path: "/namespaces",
    response: "namespaceList",
    scope: "server",
    key: ["namespaces"],
    refreshMs: false,
  }),
  describeNamespace: get({
    path: "/namespaces/{namespace}",
    response: null,
    scope: "server",
    proxy: "relay",
    key: ["namespace", "{namespace}"],
    refreshMs: false,
  }),
  listWorkflows: get({
    path: "/workflows",
    response: "workflowList",
    key: ["runs"],
    refreshMs: 5_000,
  }),
  describeWorkflow: get({
    path: "/workflows/{workflowId}",
    response: "runDescription",
    key: ["workflow", "{workflowId}", "describe"],
    refreshMs: 5_000,
  }),
  debugWorkflow: get({
    path: "/workflows/{workflowId}/debug",
    response: "workflowDebug",
    key: ["workflow", "{workflowId}", "debug"],
    refreshMs: 5_000,
  }),
  listRuns: get({
    path: "/workflows/{workflowId}/runs",
    response: "runList",
    key: ["workflow-runs", "{workflowId}"],
    // While the run page shows an open run (lib/queries/workflow-runs.ts).
    refreshMs: 30_000,
  }),
  describeRun: get({
    path: "/workflows/{workflowId}/runs/{runId}",
    response: "runDescription",
    key: ["run", "{workflowId}", "{runId}", "describe"],
    // An open run's; a closed run's describe stops refreshing (lib/queries/run.ts).
    refreshMs: 5_000,
  }),
  debugRun: get({
    path: "/workflows/{workflowId}/runs/{runId}/debug",
    response: "workflowDebug",
    key: ["run", "{workflowId}", "{runId}", "debug"],
    refreshMs: 5_000,
  }),
  getHistory: get({
    path: "/workflows/{workflowId}/runs/{runId}/history",
    response: "historyPage",
    key: ["run", "{workflowId}", "{runId}", "history-head"],
    refreshMs: 10_000,
  }),
  exportHistory: get({
    path: "/workflows/{workflowId}/runs/{runId}/history/export",
    response: "historyExport",
    // Relayed byte for byte, never parsed (lib/server/proxy/export-stream.ts): its checksum covers the bytes.
    proxy: "stream",
    key: ["run", "{workflowId}", "{runId}", "export"],
    refreshMs: false,
  }),

  /**
   * A workflow query: a POST that reads. It runs the workflow's query handler on a worker and changes
   * nothing (no history event, no command), so viewers may send it and read-only mode allows it.
   * Body `{input?: [...] | {codec, blob}}`, answer the query result (schemas-query.ts; durable-workflow/
   * server WorkflowController::query@11d35b7, cli schemas/output/workflow-query.schema.json@830d26e).
   */
  queryWorkflow: post({
    path: "/workflows/{workflowId}/query/{queryName}",
    response: "workflowQueryResult",
    request: "workflowQuery",
    key: ["workflow", "{workflowId}", "query", "{queryName}"],
    refreshMs: false,
  }),

  /** The same query aimed at one run; the server refuses a run that is not the current one (409). */
  queryRun: post({
    path: "/workflows/{workflowId}/runs/{runId}/query/{queryName}",
    response: "workflowQueryResult",
    request: "workflowQuery",
    key: ["run", "{workflowId}", "{runId}", "query", "{queryName}"],
    refreshMs: false,
  }),
  operatorMetrics: get({
    path: "/system/operator-metrics",
    response: "operatorMetrics",
    role: "admin",
    key: ["operator-metrics"],
    refreshMs: 5_000,
  }),
  systemMetrics: get({
    path: "/system/metrics",
    response: "systemMetrics",
    role: "admin",
    key: ["system", "metrics"],
    refreshMs: 5_000,
  }),
  repairStatus: get({
    path: "/system/repair",
    response: "repairStatus",
    role: "admin",
    key: ["system", "repair"],
    refreshMs: 5_000,
  }),
  activityTimeouts: get({
    path: "/system/activity-timeouts",
    response: "activityTimeoutStatus",
    role: "admin",
    key: ["system", "activity-timeouts"],
    refreshMs: 5_000,
  }),
  retentionStatus: get({
    path: "/system/retention",
    response: "retentionStatus",
    role: "admin",
    key: ["system", "retention"],
    refreshMs: 30_000,
  }),
  listWorkers: get({
    path: "/workers",
    response: "workerList",
    key: ["workers"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  getWorker: get({
    path: "/workers/{workerId}",
    response: "worker",
    key: ["worker", "{workerId}"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  listTaskQueues: get({
    path: "/task-queues",
    response: "taskQueueList",
    key: ["task-queues"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  getTaskQueue: get({
    path: "/task-queues/{name}",
    response: "taskQueueDetail",
    key: ["task-queue", "{name}"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  /** Worker versioning (`$operator`, routes/api.php newest; lib/dw/fixtures/build-ids.md). */
  taskQueueBuildIds: get({
    path: "/task-queues/{name}/build-ids",
    response: "taskQueueBuildIds",
    key: ["task-queue", "{name}", "build-ids"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  /** Newer servers only: an older one answers 404, which the queue view takes as "not offered". */
  listDeployments: get({
    path: "/deployments",
    response: "deploymentList",
    key: ["deployments"],
    refreshMs: FLEET_REFRESH_MS,
  }),
  /**
   * Schedules: every route under the real server's operator middleware (durable-workflow/server
   * routes/api.php@11d35b7 `schedules` group); answers in schemas-schedules.ts. The list takes the
   * later server's filters (`status`, `workflow_type`, `page_size`, `next_page_token`).
   */
  listSchedules: get({
    path: "/schedules",
    response: "scheduleList",
    key: ["schedules"],
    refreshMs: 10_000,
  }),
  describeSchedule: get({
    path: "/schedules/{scheduleId}",
    response: "scheduleDescription",
    key: ["schedule", "{scheduleId}", "describe"],
    refreshMs: 10_000,
  }),
  scheduleHistory: get({
    path: "/schedules/{scheduleId}/history",
    response: "scheduleHistory",
    key: ["schedule", "{scheduleId}", "history"],
    refreshMs: 10_000,
  }),
  /** The search-attribute registry: `$operator` (routes/api.php@11d35b7); schemas-search-attributes.ts. */
  searchAttributes: get({
    path: "/search-attributes",
    response: "searchAttributeList",
    key: ["search-attributes"],
    refreshMs: 30_000,
  }),
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

/** `{a}/x/{b}` → `"a" | "b"`. */
type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The path parameters an endpoint takes, by name: `{ workflowId: string; runId: string }`. */
export type EndpointParams<N extends EndpointName> = {
  readonly [K in ParamNames<(typeof ENDPOINTS)[N]["path"]>]: string;
};

/** The decoded answer of an endpoint (never for one relayed unparsed). */
export type EndpointAnswer<N extends EndpointName> = (typeof ENDPOINTS)[N]["response"] extends infer R
  ? R extends keyof DwDecoders
    ? DwDecoders[R] extends (json: unknown) => infer D
      ? D extends { ok: true; value: infer V }
        ? V
        : never
      : never
    : never
  : never;

const PARAM = /^\{(\w+)\}$/;

/** The path with each `{name}` replaced by `encode(params[name])` (one URL segment each). */
export function endpointPath(
  name: EndpointName,
  params: Readonly<Record<string, string>>,
  encode: (segment: string) => string,
): string {
  return ENDPOINTS[name].path.replace(/\{(\w+)\}/g, (_, param: string) => encode(params[param] ?? ""));
}

/** The query key parts (after the `["ns", namespace]` or `["server"]` prefix) for those params. */
export function endpointKey(name: EndpointName, params: Readonly<Record<string, string>>): string[] {
  return ENDPOINTS[name].key.map((part) => {
    const param = PARAM.exec(part)?.[1];
    return param === undefined ? part : (params[param] ?? "");
  });
}

export interface EndpointMatch {
  name: EndpointName;
  spec: EndpointSpec;
  params: Record<string, string>;
}

interface Pattern {
  name: EndpointName;
  spec: EndpointSpec;
  segments: string[];
}
// Made on first use: browser bundles carry the table, and nothing there matches requests.
let patterns: Pattern[] | undefined;

/**
 * The endpoint a request names: method and the decoded path segments after `/api/`. Null for
 * anything not declared here, for an empty segment, `.` and `..` (every URL parser collapses them).
 */
export function matchEndpoint(method: string, segments: readonly string[]): EndpointMatch | null {
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return null;
  patterns ??= (Object.entries(ENDPOINTS) as [EndpointName, EndpointSpec][]).map(([name, spec]) => ({
    name,
    spec,
    segments: spec.path.split("/").slice(1),
  }));
  for (const { name, spec, segments: pattern } of patterns) {
    if (spec.method !== method || pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = pattern.every((part, i) => {
      const param = PARAM.exec(part)?.[1];
      if (param === undefined) return part === segments[i];
      params[param] = segments[i] ?? "";
      return true;
    });
    if (fits) return { name, spec, params };
  }
  return null;
}
