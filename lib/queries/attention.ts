import { queryOptions } from "@tanstack/react-query";
import type { WorkflowDebug } from "@/lib/dw/schemas-workflows";
import type { AttentionRunInput } from "@/lib/views/failure-groups";
import { mapBounded } from "@/lib/confirm/map-bounded";
import { RESCAN_MS, SCAN_CONCURRENCY, SCAN_LIMIT, SCAN_PAGE_SIZE } from "@/lib/confirm/bulk-limits";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey } from "@/lib/queries/keys";

// The bounds live in lib/confirm/bulk-limits.ts, with the bulk repair's, and the screen states them.
export { SCAN_CONCURRENCY, SCAN_LIMIT } from "@/lib/confirm/bulk-limits";

export interface ScanProgress {
  listed: number;
  read: number;
}

export interface AttentionScan {
  runs: AttentionRunInput[];
  debugByRun: Map<string, WorkflowDebug>;
  /** Open runs listed before the scan stopped listing (at most one page past {@link SCAN_LIMIT}). */
  listed: number;
  /** Open runs whose debug was read (readable or not): at most {@link SCAN_LIMIT}. */
  read: number;
  /** The list had more open runs than {@link SCAN_LIMIT}. */
  capped: boolean;
  /** Debug reads that failed (server busy, run gone). */
  unreadable: number;
  scannedAt: number;
}

/** One run's entry in the scan's maps. */
export function scanRunKey(workflowId: string, runId: string): string {
  return `${workflowId}\u0000${runId}`;
}

/**
 * The server lists runs by status bucket only, so finding the runs that need an operator means
 * reading each open run's debug view (liveness, pending activities, recent failures). Bounded
 * concurrency, a hard cap, and progress reported as it goes (lib/confirm/bulk-limits.ts). The reads
 * go through the read proxy, which answers a run that closed meanwhile from its closed-run cache.
 */
async function scanAttention(
  namespace: string,
  signal: AbortSignal,
  setProgress: (progress: ScanProgress) => void,
): Promise<AttentionScan> {
  const client = browserDwClientFor(namespace);
  const open: { workflowId: string; runId: string }[] = [];
  let token: string | null = null;
  let capped = false;
  do {
    const page = await client.listWorkflows(
      { status: "running", pageSize: SCAN_PAGE_SIZE, nextPageToken: token },
      { signal },
    );
    for (const row of page.workflows) open.push({ workflowId: row.workflow_id, runId: row.run_id });
    token = page.next_page_token ?? null;
    setProgress({ listed: open.length, read: 0 });
    if (open.length >= SCAN_LIMIT && token) {
      capped = true;
      break;
    }
  } while (token);
  const scanned = open.slice(0, SCAN_LIMIT);
  const debugs = await mapBounded(
    scanned,
    SCAN_CONCURRENCY,
    async (run) => {
      try {
        return await client.debugRun(run.workflowId, run.runId, {}, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        return null;
      }
    },
    (done) => setProgress({ listed: scanned.length, read: done }),
    signal,
  );
  const runs: AttentionRunInput[] = [];
  const debugByRun = new Map<string, WorkflowDebug>();
  let unreadable = 0;
  debugs.forEach((debug, index) => {
    const ref = scanned[index];
    if (!debug || !ref) {
      unreadable += 1;
      return;
    }
    debugByRun.set(scanRunKey(ref.workflowId, ref.runId), debug);
    runs.push({
      workflow_id: ref.workflowId,
      run_id: ref.runId,
      execution: debug.execution,
      pending_activities: debug.pending_activities,
      recent_failures: debug.recent_failures,
    });
  });
  return {
    runs,
    debugByRun,
    listed: open.length,
    read: scanned.length,
    capped,
    unreadable,
    scannedAt: Date.now(),
  };
}

/** The attention scan of a namespace, re-run every {@link RESCAN_MS} (not on focus: a scan reads up to {@link SCAN_LIMIT} runs). */
export function attentionScanQuery(namespace: string, onProgress: (progress: ScanProgress) => void) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "attention-scan"),
    queryFn: ({ signal }) => scanAttention(namespace, signal, onProgress),
    refetchInterval: RESCAN_MS,
    refetchOnWindowFocus: false,
    retry: false,
  });
}
