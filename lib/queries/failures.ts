import { queryOptions } from "@tanstack/react-query";
import { mapBounded } from "@/lib/confirm/map-bounded";
import { RESCAN_MS, SCAN_CONCURRENCY, SCAN_LIMIT, SCAN_PAGE_SIZE } from "@/lib/confirm/bulk-limits";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { namespaceKey } from "@/lib/queries/keys";
import type { ClosedRunInput, TriageWindow } from "@/lib/views/closed-failures";
import { TRIAGE_WINDOWS, lastEventInput } from "@/lib/views/closed-failures";
import { epochMs } from "@/lib/views/events";

export interface FailuresScanProgress {
  listed: number;
  read: number;
  toRead: number;
}

export interface FailuresScan {
  runs: ClosedRunInput[];
  window: { from: number; to: number };
  /** Rows of the `failed` bucket listed (newest started first), at most {@link SCAN_LIMIT} plus a page. */
  listed: number;
  /** List requests made. */
  listRequests: number;
  /** The bucket had more rows than the scan lists: older-started runs that closed in the window are missed. */
  capped: boolean;
  scannedAt: number;
}

/**
 * The server lists runs by status bucket, newest *started* first (RunSummaryProjector's
 * sort_timestamp is the start time; durable-workflow/workflow src/V2/Support/RunSummaryProjector.php)
 * and has no time filter, so the window is applied to each row's `closed_at` here, over at most
 * {@link SCAN_LIMIT} rows of the `failed` bucket (failed, cancelled, terminated). Only runs closed in
 * the window get a debug read, {@link SCAN_CONCURRENCY} at a time; a closed run's debug answer is
 * served by the console's closed-run cache after the first read (lib/server/proxy/closed-run-cache.ts).
 */
async function scanFailures(
  namespace: string,
  windowName: TriageWindow,
  signal: AbortSignal,
  setProgress: (progress: FailuresScanProgress) => void,
): Promise<FailuresScan> {
  const client = browserDwClientFor(namespace);
  const to = Date.now();
  const window = { from: to - TRIAGE_WINDOWS[windowName], to };
  const rows: {
    workflow_id: string;
    run_id: string;
    workflow_type: string;
    status: string;
    closed_at?: string | null;
  }[] = [];
  let token: string | null = null;
  let listRequests = 0;
  let capped = false;
  do {
    const page = await client.listWorkflows(
      { status: "failed", pageSize: SCAN_PAGE_SIZE, nextPageToken: token },
      { signal },
    );
    listRequests += 1;
    rows.push(...page.workflows);
    token = page.next_page_token ?? null;
    setProgress({ listed: rows.length, read: 0, toRead: 0 });
    if (rows.length >= SCAN_LIMIT && token) {
      capped = true;
      break;
    }
  } while (token);
  const closedInWindow = rows.filter((row) => {
    const at = epochMs(row.closed_at ?? null);
    return at !== null && at >= window.from && at <= window.to;
  });
  const debugs = await mapBounded(
    closedInWindow,
    SCAN_CONCURRENCY,
    async (row) => {
      try {
        // The closing event's payload names the worker's exception type, which failure rows lack.
        return await client.debugRun(row.workflow_id, row.run_id, { includeLastEventPayload: true }, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        return null;
      }
    },
    (done) => setProgress({ listed: rows.length, read: done, toRead: closedInWindow.length }),
    signal,
  );
  const runs = closedInWindow.map((row, index): ClosedRunInput => ({
    workflowId: row.workflow_id,
    runId: row.run_id,
    workflowType: row.workflow_type ?? null,
    status: row.status ?? null,
    closedAt: row.closed_at ?? null,
    failures: debugs[index]?.recent_failures ?? (debugs[index] ? [] : null),
    lastEvent: lastEventInput(debugs[index]?.execution.last_event),
  }));
  return { runs, window, listed: rows.length, listRequests, capped, scannedAt: Date.now() };
}

export function failuresScanQuery(
  namespace: string,
  windowName: TriageWindow,
  onProgress: (progress: FailuresScanProgress) => void,
) {
  return queryOptions({
    queryKey: namespaceKey(namespace, "failures-scan", windowName),
    queryFn: ({ signal }) => scanFailures(namespace, windowName, signal, onProgress),
    refetchInterval: RESCAN_MS,
    refetchOnWindowFocus: false,
    retry: false,
  });
}
