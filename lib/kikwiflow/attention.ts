import { mapBounded } from "../confirm/map-bounded";
import type { KikwiflowClient } from "./client";
import { MAX_SEARCH_PAGE_SIZE } from "./client";
import { KikwiflowNotFoundError } from "./errors";
import { incidentLineages } from "./events";
import { failedJobWasFatal } from "./incident-lineage";
import type { IncidentLineage } from "./incident-lineage";
import { rootCauseClass } from "./incident-view";
import type { Incident, ProcessInstanceSnapshot } from "./schemas";

export { rootCauseClass };

/** The engine lists no incidents across instances, so the scan walks instances; this is its stated bound. */
export const ATTENTION_INSTANCE_LIMIT = 1000;
/** Snapshots in flight at once, as the DW bulk scans do (lib/confirm/bulk-limits.ts). */
export const ATTENTION_CONCURRENCY = 4;

export interface AttentionInstance {
  readonly processInstanceId: string;
  readonly incidentId: string;
  readonly createdAt: string | null;
}

export interface AttentionGroup {
  /** definition × type × task definition × exception, stable for React keys and URLs. */
  readonly key: string;
  /** Two processes may name a task alike: the definition keeps their incidents apart. */
  readonly processDefinitionId: string | null;
  readonly type: string | null;
  readonly taskDefinitionId: string | null;
  readonly taskName: string | null;
  readonly exception: string | null;
  /** Incidents of the group the outbox shows were fatal (lib/kikwiflow/incident-lineage.ts). */
  readonly fatal: number;
  readonly count: number;
  readonly instances: readonly AttentionInstance[];
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
}

export interface AttentionScan {
  readonly groups: readonly AttentionGroup[];
  /** Instances snapshotted. */
  readonly scanned: number;
  /** ACTIVE instances the engine reported (totalElements of the first page). */
  readonly total: number;
  readonly capped: boolean;
  /** Instances that finished (404) between search and snapshot: not errors. */
  readonly movedOn: number;
}

type GroupBase = Omit<AttentionGroup, "count" | "fatal" | "instances" | "firstSeen" | "lastSeen">;

/**
 * Groups the OPEN incidents of the snapshots by definition × type × task × exception; groups by count
 * (most first), then by key. `lineages` (incident id → lineage, from the instances' outboxes) marks
 * the fatal ones.
 */
export function groupIncidents(
  snapshots: readonly ProcessInstanceSnapshot[],
  lineages: ReadonlyMap<string, IncidentLineage> = new Map(),
): AttentionGroup[] {
  const groups = new Map<string, { base: GroupBase; items: AttentionInstance[]; fatal: number }>();
  for (const snap of snapshots) {
    for (const incident of snap.incidents.filter((i) => i.status === "OPEN")) {
      const task = snap.executableTasks.find((t) => t.id === incident.executionId);
      const exception = rootCauseClass(incident.stackTrace);
      const type = incident.type ?? null;
      const processDefinitionId = incident.processDefinitionId ?? snap.instance.processDefinitionId ?? null;
      const taskDefinitionId = incident.taskDefinitionId ?? task?.taskDefinitionId ?? null;
      const key = [processDefinitionId ?? "", type ?? "", taskDefinitionId ?? "", exception ?? ""].join("|");
      const entry = groups.get(key) ?? {
        base: { key, processDefinitionId, type, taskDefinitionId, taskName: task?.name ?? null, exception },
        items: [],
        fatal: 0,
      };
      entry.items.push(instanceOf(incident, snap));
      const fatal =
        type === "FAILED_JOB" && failedJobWasFatal(lineages.get(incident.id), task?.retryPolicy?.maxRetries) === true;
      if (fatal) entry.fatal += 1;
      groups.set(key, entry);
    }
  }
  return [...groups.values()].map(({ base, items, fatal }) => finish(base, items, fatal)).sort(byCountThenKey);
}

function instanceOf(incident: Incident, snap: ProcessInstanceSnapshot): AttentionInstance {
  return {
    processInstanceId: incident.processInstanceId ?? snap.instance.id,
    incidentId: incident.id,
    createdAt: incident.createdAt ?? null,
  };
}

function finish(base: GroupBase, items: AttentionInstance[], fatal: number): AttentionGroup {
  // ISO-8601 instants from one engine compare as strings.
  const seen = items
    .map((i) => i.createdAt)
    .filter((s): s is string => s !== null)
    .sort();
  const times = { firstSeen: seen[0] ?? null, lastSeen: seen.at(-1) ?? null };
  return { ...base, fatal, count: items.length, instances: items, ...times };
}

function byCountThenKey(a: AttentionGroup, b: AttentionGroup): number {
  return b.count - a.count || a.key.localeCompare(b.key);
}

/** What a walk of the ACTIVE instances read, and its bound. */
export interface ActiveWalk {
  readonly snapshots: readonly ProcessInstanceSnapshot[];
  readonly scanned: number;
  readonly total: number;
  readonly capped: boolean;
  readonly movedOn: number;
}

interface WalkOptions {
  limit?: number;
  concurrency?: number;
  signal?: AbortSignal;
}

/**
 * Walks ACTIVE instances page by page (100 each), snapshots each with bounded concurrency, stops at
 * `limit` instances. A 404 on a snapshot means the instance finished meanwhile (the engine deletes it).
 */
export async function walkActiveInstances(
  client: Pick<KikwiflowClient, "searchProcessInstances" | "getSnapshot">,
  { limit = ATTENTION_INSTANCE_LIMIT, concurrency = ATTENTION_CONCURRENCY, signal }: WalkOptions = {},
): Promise<ActiveWalk> {
  const snapshots: ProcessInstanceSnapshot[] = [];
  let scanned = 0;
  let movedOn = 0;
  let total = 0;
  for (let page = 0; scanned < limit; page += 1) {
    const result = await client.searchProcessInstances(
      { statuses: ["ACTIVE"], page, size: MAX_SEARCH_PAGE_SIZE, orderBy: "id", ascending: true },
      { signal },
    );
    if (page === 0) total = result.totalElements;
    const ids = result.content.map((i) => i.id).slice(0, limit - scanned);
    const snaps = await mapBounded(ids, concurrency, (id) => snapshotOrNull(client, id, signal), undefined, signal);
    scanned += ids.length;
    for (const s of snaps) {
      if (s) snapshots.push(s);
      else movedOn += 1;
    }
    if (result.content.length < MAX_SEARCH_PAGE_SIZE || page + 1 >= result.totalPages) break;
  }
  return { snapshots, scanned, total, capped: scanned < total && scanned >= limit, movedOn };
}

/** The attention scan: the walk's OPEN incidents grouped, fatal ones marked from the outbox. */
export async function scanAttention(
  client: Pick<KikwiflowClient, "searchProcessInstances" | "getSnapshot" | "getEvents">,
  options: WalkOptions = {},
): Promise<AttentionScan> {
  const { snapshots, ...bound } = await walkActiveInstances(client, options);
  const concurrency = options.concurrency ?? ATTENTION_CONCURRENCY;
  const lineages = await lineagesOf(client, snapshots, concurrency, options.signal);
  return { groups: groupIncidents(snapshots, lineages), ...bound };
}

/**
 * The outbox lineage of every OPEN FAILED_JOB incident (only those instances' events are read): what
 * tells a fatal incident from an exhausted one. An instance gone meanwhile, or an outbox that is off,
 * leaves its incidents unmarked.
 */
async function lineagesOf(
  client: Pick<KikwiflowClient, "getEvents">,
  snapshots: readonly ProcessInstanceSnapshot[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<Map<string, IncidentLineage>> {
  const failing = snapshots.filter((s) => s.incidents.some((i) => i.status === "OPEN" && i.type === "FAILED_JOB"));
  const read = async (snap: ProcessInstanceSnapshot) => {
    try {
      return incidentLineages(await client.getEvents(snap.instance.id, { signal }));
    } catch (error) {
      if (error instanceof KikwiflowNotFoundError) return [];
      throw error;
    }
  };
  const lists = await mapBounded(failing, concurrency, read, undefined, signal);
  return new Map(lists.flatMap((list) => list ?? []).map((lineage) => [lineage.incidentId, lineage]));
}

async function snapshotOrNull(
  client: Pick<KikwiflowClient, "getSnapshot">,
  id: string,
  signal?: AbortSignal,
): Promise<ProcessInstanceSnapshot | null> {
  try {
    return await client.getSnapshot(id, { signal });
  } catch (error) {
    if (error instanceof KikwiflowNotFoundError) return null;
    throw error;
  }
}
