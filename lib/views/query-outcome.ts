/**
 * What the run page's Queries tab shows (components/run-detail/queries-tab.tsx): the names to offer,
 * the arguments checked before anything is sent, and a refusal in words. Pure: the tab passes in the
 * answer or the typed error (lib/dw/errors.ts) it got through the read proxy.
 */

/** The query names the run's `WorkflowStarted` declares (server WorkflowStartService@205c046 `declared_queries`). */
export function declaredQueryNames(events: readonly { event_type: string; payload?: unknown }[]): string[] | null {
  const started = events.find((event) => event.event_type === "WorkflowStarted");
  const payload = started?.payload;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return null;
  const declared = (payload as { declared_queries?: unknown }).declared_queries;
  if (!Array.isArray(declared)) return null;
  return declared.filter((name): name is string => typeof name === "string" && name.trim() !== "");
}

/** The workflow type `WorkflowStarted` names, the key under which names sent before are remembered. */
export function startedWorkflowType(events: readonly { event_type: string; payload?: unknown }[]): string | null {
  const payload = events.find((event) => event.event_type === "WorkflowStarted")?.payload;
  const type = payload && typeof payload === "object" ? (payload as { workflow_type?: unknown }).workflow_type : null;
  return typeof type === "string" && type !== "" ? type : null;
}

export interface QueryNameChoices {
  /** Offered in this order: the declared names, then the ones sent before that are not declared. */
  names: string[];
  /** `declared`: the worker's registered contract reached history; `seen`: only names sent before. */
  source: "declared" | "seen" | "none";
}

export function queryNameChoices(declared: readonly string[] | null, seen: readonly string[]): QueryNameChoices {
  const names = [...new Set([...(declared ?? []), ...seen])];
  const source = declared !== null && declared.length > 0 ? "declared" : names.length > 0 ? "seen" : "none";
  return { names, source };
}

/** The names sent before, newest first, at most `limit`: `name` moves to the front. */
export function rememberQueryName(seen: readonly string[], name: string, limit = 8): string[] {
  return [name, ...seen.filter((other) => other !== name)].slice(0, limit);
}

export type QueryArguments =
  | { ok: true; input: unknown[] | undefined }
  | { ok: false; problem: "not_json"; detail: string }
  | { ok: false; problem: "not_a_list" };

/**
 * The arguments box: empty is no arguments; otherwise a JSON list, one element per handler
 * argument (the server's `input` is a list). Checked here, so a typo is never sent.
 */
export function parseQueryArguments(text: string): QueryArguments {
  if (text.trim() === "") return { ok: true, input: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: "not_json", detail: error instanceof Error ? error.message : String(error) };
  }
  if (!Array.isArray(value)) return { ok: false, problem: "not_a_list" };
  return { ok: true, input: value.length === 0 ? undefined : value };
}

/** Every way a query can be refused, each with its own words (`run.queries.failure.<kind>`). */
export type QueryFailureKind =
  | "no_worker_answered"
  | "handler_failed"
  | "unknown_query"
  | "not_declared"
  | "definition_unavailable"
  | "worker_unavailable"
  | "not_current_run"
  | "queue_full"
  | "workflow_not_found"
  | "server_down"
  | "unauthorized"
  | "forbidden"
  | "invalid_request"
  | "other";

export interface QueryFailure {
  kind: QueryFailureKind;
  /** The server's or the worker's own text (a failing handler's message), shown as text. */
  detail: string | null;
  httpStatus: number | null;
  serverReason: string | null;
}

/** The parts of a typed error (lib/dw/errors.ts `DwError`) a refusal is read from. */
export interface QueryErrorLike {
  reason?: string;
  httpStatus?: number | null;
  serverReason?: string | null;
  message?: string;
}

const BY_SERVER_REASON: Readonly<Record<string, QueryFailureKind>> = {
  query_worker_timeout: "no_worker_answered",
  query_rejected: "handler_failed",
  rejected_unknown_query: "unknown_query",
  query_not_found: "not_declared",
  workflow_definition_unavailable: "definition_unavailable",
  query_worker_unavailable: "worker_unavailable",
  historical_run_command_rejected: "not_current_run",
  query_task_queue_full: "queue_full",
  instance_not_found: "workflow_not_found",
  run_not_found: "workflow_not_found",
  invalid_request: "invalid_request",
  // The console's read proxy, when the server itself did not answer (lib/server/proxy/read-proxy.ts).
  server_unavailable: "server_down",
  server_timeout: "server_down",
};

const BY_CLIENT_REASON: Readonly<Record<string, QueryFailureKind>> = {
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  server_unavailable: "server_down",
  validation_failed: "invalid_request",
};

/**
 * A refusal in words: the server's reason first (the broker's and the control plane's, server@11d35b7),
 * then the client's typed reason. A 504 without the broker's reason is the console's own timeout.
 */
export function queryFailure(error: QueryErrorLike): QueryFailure {
  const serverReason = error.serverReason ?? null;
  const httpStatus = error.httpStatus ?? null;
  const kind =
    (serverReason !== null ? BY_SERVER_REASON[serverReason] : undefined) ??
    (error.reason !== undefined ? BY_CLIENT_REASON[error.reason] : undefined) ??
    (httpStatus === 401 ? "unauthorized" : httpStatus === 403 ? "forbidden" : "other");
  // The server's own words are kept where they add something: a handler's message, an unknown name.
  const detail = error.message && kind !== "server_down" ? error.message : null;
  return { kind, detail, httpStatus, serverReason };
}
