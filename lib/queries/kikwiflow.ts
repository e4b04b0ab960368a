import { queryOptions } from "@tanstack/react-query";
import type {
  Incident,
  ProcessDefinition,
  ProcessInstancePage,
  ProcessInstanceSnapshot,
  ProcessInstanceStatus,
} from "@/lib/kikwiflow/schemas";
import type { RetryAnswer } from "@/lib/kikwiflow/retry-confirm";
import type { CancelAnswer } from "@/lib/kikwiflow/cancel-confirm";
import type { VariableEdit, VariableEditAnswer } from "@/lib/kikwiflow/variable-edit";
import type { KikwiflowTrail } from "@/lib/kikwiflow/trail";
import type { AttentionScan } from "@/lib/kikwiflow/attention";
import type { IncidentCounts } from "@/lib/kikwiflow/instance-list";
import type { DefinitionSummary } from "@/lib/kikwiflow/definition-view";
import { serverKey } from "@/lib/queries/keys";
import type { DefinitionLabel } from "@/lib/server/kikwiflow/engine";
import { withBasePath } from "@/lib/http/base-path";

export type { DefinitionLabel };
/** The search page with the key, name and version of each definition id on it. */
export type InstanceListPage = ProcessInstancePage & {
  definitions: Record<string, DefinitionLabel>;
  /** Open and total incidents per row. */
  incidents: Record<string, IncidentCounts>;
  /** With the open-incidents filter: the walk of ACTIVE instances it was answered from. */
  walk?: { scanned: number; total: number; capped: boolean };
};
export type InstanceSnapshot = ProcessInstanceSnapshot & { definition: DefinitionLabel | null };
/** The attention scan with the key, name and version of each group's definition id. */
export type AttentionAnswer = AttentionScan & { definitions: Record<string, DefinitionLabel> };

/** `kiki-fatal v1`, or the bare id when the engine did not resolve it. */
export function definitionText(id: string, label: DefinitionLabel | null | undefined): string {
  if (!label) return id;
  return label.version === null ? label.key : `${label.key} v${label.version}`;
}

/**
 * The browser's reads of the Kikwiflow section, through the console's own routes (app/api/kikwiflow):
 * the engine has no authentication, so the browser never talks to it. The routes parse every engine
 * body with the zod schemas server-side; a failure arrives as `{reason, message, httpStatus}`.
 */

/** A failed Kikwiflow route, with the sentence the route put into words. */
export class KikwiflowApiError extends Error {
  readonly status: number;
  readonly reason: string;
  /** The route's whole answer, for the fields a screen words itself (a 409's current value). */
  readonly body: unknown;

  constructor(status: number, reason: string, message: string, body: unknown = null) {
    super(message);
    this.name = "KikwiflowApiError";
    this.status = status;
    this.reason = reason;
    this.body = body;
  }
}

async function answerOf(response: Response): Promise<unknown> {
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (response.ok) return json;
  const body = (json ?? {}) as { reason?: unknown; message?: unknown };
  throw new KikwiflowApiError(
    response.status,
    typeof body.reason === "string" ? body.reason : "http_error",
    typeof body.message === "string" ? body.message : `HTTP ${response.status}`,
    json,
  );
}

async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(withBasePath(path), { headers: { accept: "application/json" }, signal });
  return (await answerOf(response)) as T;
}

const instancePath = (id: string) => `/api/kikwiflow/instances/${encodeURIComponent(id)}`;

export interface InstanceListParams {
  page: number;
  size: number;
  status: ProcessInstanceStatus | null;
  /** An instance id or a business key. */
  q: string | null;
  openIncidents: boolean;
}

export function kikwiflowKey<const P extends readonly unknown[]>(...parts: P) {
  return serverKey("kikwiflow", ...parts);
}

export function kikwiflowInstancesQuery(params: InstanceListParams) {
  const search = new URLSearchParams({ page: String(params.page), size: String(params.size) });
  if (params.status) search.append("status", params.status);
  if (params.q) search.set("q", params.q);
  if (params.openIncidents) search.set("incidents", "open");
  return queryOptions({
    queryKey: kikwiflowKey("instances", params),
    queryFn: ({ signal }) => getJson<InstanceListPage>(`/api/kikwiflow/instances?${search}`, signal),
    refetchInterval: 5_000,
    retry: false,
  });
}

export function kikwiflowSnapshotQuery(id: string) {
  return queryOptions({
    queryKey: kikwiflowKey("instance", id, "snapshot"),
    queryFn: ({ signal }) => getJson<InstanceSnapshot>(instancePath(id), signal),
    refetchInterval: 3_000,
    retry: false,
  });
}

export function kikwiflowIncidentsQuery(id: string) {
  return queryOptions({
    queryKey: kikwiflowKey("instance", id, "incidents"),
    queryFn: ({ signal }) => getJson<Incident[]>(`${instancePath(id)}/incidents`, signal),
    refetchInterval: 3_000,
    retry: false,
  });
}

export function kikwiflowEventsQuery(id: string) {
  return queryOptions({
    queryKey: kikwiflowKey("instance", id, "events"),
    queryFn: ({ signal }) => getJson<KikwiflowTrail>(`${instancePath(id)}/events`, signal),
    refetchInterval: 3_000,
    retry: false,
  });
}

/** The attention scan walks up to 1,000 instances on the console server, so it refreshes slowly. */
export function kikwiflowAttentionQuery() {
  return queryOptions({
    queryKey: kikwiflowKey("attention"),
    queryFn: ({ signal }) => getJson<AttentionAnswer>("/api/kikwiflow/attention", signal),
    refetchInterval: 30_000,
    retry: false,
  });
}

/** Deployments change rarely; the list refreshes slowly. */
export function kikwiflowDefinitionsQuery() {
  return queryOptions({
    queryKey: kikwiflowKey("definitions"),
    queryFn: ({ signal }) => getJson<DefinitionSummary[]>("/api/kikwiflow/definitions", signal),
    refetchInterval: 60_000,
    retry: false,
  });
}

const definitionPath = (id: string) => `/api/kikwiflow/definitions/${encodeURIComponent(id)}`;

/** A definition id names one immutable deployment: read once, never refetched. */
export function kikwiflowDefinitionQuery(id: string) {
  return queryOptions({
    queryKey: kikwiflowKey("definition", id),
    queryFn: ({ signal }) => getJson<ProcessDefinition>(definitionPath(id), signal),
    staleTime: Infinity,
    retry: false,
  });
}

/** The console's SSE relay of the engine's pulse for one definition (not a query: a stream). */
export function kikwiflowPulsePath(id: string): string {
  return `${definitionPath(id)}/pulse`;
}

/** Every read of one instance: what a retry invalidates. */
export function kikwiflowInstanceKey(id: string) {
  return kikwiflowKey("instance", id);
}

/** The guarded retry; the answer is the route's confirmation, read back from the engine. */
export async function retryKikwiflowIncident(incidentId: string, signal?: AbortSignal): Promise<RetryAnswer> {
  const response = await fetch(withBasePath(`/api/kikwiflow/incidents/${encodeURIComponent(incidentId)}/retry`), {
    method: "POST",
    headers: { accept: "application/json" },
    signal,
  });
  return (await answerOf(response)) as RetryAnswer;
}

/** One instance's incidents, read afresh (a bulk retry's dry run and follow-up, not a cached query). */
export function fetchKikwiflowIncidents(id: string, signal?: AbortSignal): Promise<Incident[]> {
  return getJson<Incident[]>(`${instancePath(id)}/incidents`, signal);
}

/** One instance's snapshot, read afresh; a finished or cancelled instance is the route's 404. */
export function fetchKikwiflowSnapshot(id: string, signal?: AbortSignal): Promise<InstanceSnapshot> {
  return getJson<InstanceSnapshot>(instancePath(id), signal);
}

/** The guarded cancel; the answer is the route's confirmation (the instance read back as gone). */
export async function cancelKikwiflowInstance(id: string, reason: string): Promise<CancelAnswer> {
  const response = await fetch(withBasePath(`${instancePath(id)}/cancel`), {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ reason }),
  });
  return (await answerOf(response)) as CancelAnswer;
}

/** The guarded variable edit; the answer is the route's read of the instance after the engine's PUT. */
export async function setKikwiflowVariable(id: string, edit: VariableEdit): Promise<VariableEditAnswer> {
  const response = await fetch(withBasePath(`${instancePath(id)}/variables`), {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  return (await answerOf(response)) as VariableEditAnswer;
}
