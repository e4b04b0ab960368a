import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import type { DwClient, WorkflowListItem } from "@/lib/dw";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { mapBounded } from "@/lib/confirm/map-bounded";
import { SCAN_CONCURRENCY } from "@/lib/confirm/bulk-limits";
import { namespaceKey } from "@/lib/queries/keys";
import type { RunRowDetail } from "@/lib/views/run-row";
import { failureReason, lastEventInput } from "@/lib/views/closed-failures";

/** Open rows' liveness is re-read this often (one debug read per open row on screen). */
export const ROW_DETAILS_REFRESH_MS = 30_000;
/** Closed runs whose details are kept: a closed run never changes, so it is read once. */
export const CLOSED_DETAILS_KEPT = 2_000;

/**
 * One detail read per row on screen, at most {@link SCAN_CONCURRENCY} at once (below the real
 * server's four PHP workers): describe for a closed run (its closed reason and chain), debug for an
 * open one (liveness and last progress). Closed answers are kept by run id, bounded; a run closed as
 * `continued` is read again, since its chain grows.
 */
export class RowDetailsCache {
  private readonly closed = new Map<string, RunRowDetail>();
  constructor(private readonly limit = CLOSED_DETAILS_KEPT) {}

  get(runId: string): RunRowDetail | undefined {
    return this.closed.get(runId);
  }

  keep(runId: string, detail: RunRowDetail): void {
    if (detail.closedReason === "continued") return;
    this.closed.delete(runId);
    this.closed.set(runId, detail);
    if (this.closed.size > this.limit) this.closed.delete(this.closed.keys().next().value!);
  }

  get size(): number {
    return this.closed.size;
  }
}

async function readDetail(client: DwClient, row: WorkflowListItem, signal?: AbortSignal): Promise<RunRowDetail> {
  if (row.is_terminal) {
    // A failed run's reason is in its debug view only (describe has no failure fields): one more
    // read, once per closed run (kept by the console's closed-run cache and here).
    const [describe, debug] = await Promise.all([
      client.describeRun(row.workflow_id, row.run_id, { signal }),
      row.status === "failed"
        ? client.debugRun(row.workflow_id, row.run_id, { includeLastEventPayload: true }, { signal })
        : null,
    ]);
    return {
      closedReason: describe.closed_reason ?? null,
      runNumber: describe.run_number,
      runCount: describe.run_count ?? null,
      failure: debug ? failureReason(debug.recent_failures ?? [], lastEventInput(debug.execution.last_event)) : null,
      execution: null,
    };
  }
  const debug = await client.debugRun(row.workflow_id, row.run_id, {}, { signal });
  return {
    closedReason: null,
    runNumber: debug.execution.run_number ?? null,
    runCount: null,
    execution: debug.execution,
  };
}

/** Details by run id; a row whose read failed is left out (the row then shows what the list says). */
export async function fetchRowDetails(
  client: DwClient,
  rows: readonly WorkflowListItem[],
  cache: RowDetailsCache,
  signal?: AbortSignal,
): Promise<Record<string, RunRowDetail>> {
  const out: Record<string, RunRowDetail> = {};
  const toRead = rows.filter((row) => {
    const kept = row.is_terminal ? cache.get(row.run_id) : undefined;
    if (kept) out[row.run_id] = kept;
    return !kept;
  });
  const read = await mapBounded(
    toRead,
    SCAN_CONCURRENCY,
    async (row) => {
      try {
        return await readDetail(client, row, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        return undefined;
      }
    },
    undefined,
    signal,
  );
  toRead.forEach((row, index) => {
    const detail = read[index];
    if (!detail) return;
    out[row.run_id] = detail;
    if (row.is_terminal) cache.keep(row.run_id, detail);
  });
  return out;
}

const caches = new Map<string, RowDetailsCache>();

function cacheFor(namespace: string): RowDetailsCache {
  let cache = caches.get(namespace);
  if (!cache) caches.set(namespace, (cache = new RowDetailsCache()));
  return cache;
}

/** The details of the rows on screen; a row that closes is read again (its key names open/closed). */
export function runRowDetailsQuery(namespace: string, rows: readonly WorkflowListItem[]) {
  const ids = rows.map((row) => `${row.run_id}:${row.is_terminal ? "c" : "o"}`);
  return queryOptions({
    queryKey: namespaceKey(namespace, "runs-row-details", ids),
    queryFn: ({ signal }) => fetchRowDetails(browserDwClientFor(namespace), rows, cacheFor(namespace), signal),
    refetchInterval: ROW_DETAILS_REFRESH_MS,
    refetchOnWindowFocus: false,
    placeholderData: keepPreviousData,
    enabled: rows.length > 0,
    retry: false,
  });
}
