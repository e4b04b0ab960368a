import { mapBounded } from "../confirm/bulk";
import type { KikwiflowClient } from "./client";
import { MAX_SEARCH_PAGE_SIZE } from "./client";
import { KikwiflowNotFoundError } from "./errors";
import type { Incident, ProcessInstanceSnapshot } from "./schemas";

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
  /** type × task definition × exception, stable for React keys and URLs. */
  readonly key: string;
  readonly type: string | null;
  readonly taskDefinitionId: string | null;
  readonly taskName: string | null;
  readonly exception: string | null;
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

/**
 * Simple class name of the root cause: the last `Caused by:` line of the stack trace, else its first
 * line (`com.acme.PaymentDeclinedException: card refused` → `PaymentDeclinedException`).
 */
export function rootCauseClass(stackTrace: string | null | undefined): string | null {
  if (!stackTrace) return null;
  const lines = stackTrace.split(/\r?\n/).map((l) => l.trim());
  const causes = lines.filter((l) => l.startsWith("Caused by:"));
  const head = causes.length > 0 ? causes[causes.length - 1]!.slice("Caused by:".length).trim() : lines[0]!;
  // Throwable.toString(): a fully qualified class, then ": message" or nothing.
  const qualified = /^([\w$]+(?:\.[\w$]+)+)(?::|$)/.exec(head)?.[1];
  if (!qualified) return null;
  return qualified.slice(qualified.lastIndexOf(".") + 1) || null;
}

/** Groups the OPEN incidents of the snapshots; groups by count (most first), then by key. */
export function groupIncidents(snapshots: readonly ProcessInstanceSnapshot[]): AttentionGroup[] {
  const groups = new Map<
    string,
    { base: Omit<AttentionGroup, "count" | "instances" | "firstSeen" | "lastSeen">; items: AttentionInstance[] }
  >();
  for (const snap of snapshots) {
    for (const incident of snap.incidents.filter((i) => i.status === "OPEN")) {
      const task = snap.executableTasks.find((t) => t.id === incident.executionId);
      const exception = rootCauseClass(incident.stackTrace);
      const type = incident.type ?? null;
      const taskDefinitionId = incident.taskDefinitionId ?? task?.taskDefinitionId ?? null;
      const key = [type ?? "", taskDefinitionId ?? "", exception ?? ""].join("|");
      const entry = groups.get(key) ?? {
        base: { key, type, taskDefinitionId, taskName: task?.name ?? null, exception },
        items: [],
      };
      entry.items.push(instanceOf(incident, snap));
      groups.set(key, entry);
    }
  }
  return [...groups.values()].map(({ base, items }) => finish(base, items)).sort(byCountThenKey);
}

function instanceOf(incident: Incident, snap: ProcessInstanceSnapshot): AttentionInstance {
  return {
    processInstanceId: incident.processInstanceId ?? snap.instance.id,
    incidentId: incident.id,
    createdAt: incident.createdAt ?? null,
  };
}

function finish(
  base: Omit<AttentionGroup, "count" | "instances" | "firstSeen" | "lastSeen">,
  items: AttentionInstance[],
): AttentionGroup {
  // ISO-8601 instants from one engine compare as strings.
  const seen = items
    .map((i) => i.createdAt)
    .filter((s): s is string => s !== null)
    .sort();
  return { ...base, count: items.length, instances: items, firstSeen: seen[0] ?? null, lastSeen: seen.at(-1) ?? null };
}

function byCountThenKey(a: AttentionGroup, b: AttentionGroup): number {
  return b.count - a.count || a.key.localeCompare(b.key);
}

/**
 * Walks ACTIVE instances page by page (100 each), snapshots each with bounded concurrency, stops at
 * `limit` instances. A 404 on a snapshot means the instance finished meanwhile (the engine deletes it).
 */
export async function scanAttention(
  client: Pick<KikwiflowClient, "searchProcessInstances" | "getSnapshot">,
  {
    limit = ATTENTION_INSTANCE_LIMIT,
    concurrency = ATTENTION_CONCURRENCY,
    signal,
  }: { limit?: number; concurrency?: number; signal?: AbortSignal } = {},
): Promise<AttentionScan> {
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
  return { groups: groupIncidents(snapshots), scanned, total, capped: scanned < total && scanned >= limit, movedOn };
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
