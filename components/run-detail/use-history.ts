"use client";

import { useEffect, useRef, useState } from "react";
import { historyResumeToken, historyTokenAfter, longPollLimitMs } from "@/lib/dw/transport";
import { isDwError } from "@/lib/dw/errors";
import { browserDwClient, browserDwClientFor } from "@/lib/dw/browser-client";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { HistoryBuffer } from "@/components/run-detail/history-buffer";

const PAGE_SIZE = 1000;
const RETRY_DELAY_MS = 3_000;

export interface HistoryState {
  buffer: HistoryBuffer;
  /** Bumps whenever the buffer gains events, so memoised projections recompute. */
  version: number;
  loading: boolean;
  tailing: boolean;
  error: ErrorInfo | null;
}

/** Outlasts the read proxy, which stops waiting at the same advertised limit (lib/server/proxy/read-proxy.ts). */
const BEYOND_PROXY_MS = 5_000;
let longPollLimit: Promise<number> | null = null;

/** The server's advertised long-poll hold (cluster/info), learned once per page load. */
function browserLongPollLimit(): Promise<number> {
  longPollLimit ??= browserDwClient.clusterInfo().then(
    (info) => longPollLimitMs(info) + BEYOND_PROXY_MS,
    () => {
      longPollLimit = null;
      return longPollLimitMs(null) + BEYOND_PROXY_MS;
    },
  );
  return longPollLimit;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Reads a run's history in keyset pages of 1,000 through the read proxy, then, while the run is
 * open and the view mounted, long-polls (`wait_new_event=1`) for events after the last one seen.
 * Pages are applied on arrival, so the list fills in while the rest loads.
 */
export function useHistory(namespace: string, workflowId: string, runId: string, live: boolean): HistoryState {
  const bufferRef = useRef<HistoryBuffer | null>(null);
  bufferRef.current ??= new HistoryBuffer();
  const buffer = bufferRef.current;
  const [version, setVersion] = useState(0);
  const [loading, setLoading] = useState(true);
  const [tailing, setTailing] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    const { signal } = abort;
    let token: string | null = null;

    async function run() {
      // Keyset paging from the start (or from the last event already held, after a remount).
      const last = buffer.lastSequence;
      token = last === null ? null : historyTokenAfter(last);
      for (;;) {
        if (signal.aborted) return;
        try {
          const page = await browserDwClientFor(namespace).getHistory(
            workflowId,
            runId,
            { pageSize: PAGE_SIZE, nextPageToken: token },
            { signal },
          );
          if (buffer.add(page.events) > 0) setVersion((v) => v + 1);
          setError(null);
          token = historyResumeToken(page, token);
          if (!page.next_page_token) break;
        } catch (caught) {
          if (signal.aborted || (isDwError(caught) && caught.reason === "aborted")) return;
          setError(toErrorInfo(caught));
          await pause(RETRY_DELAY_MS, signal);
        }
      }
      setLoading(false);
      if (!live) return;
      setTailing(true);
      while (!signal.aborted) {
        try {
          const timeoutMs = await browserLongPollLimit();
          const page = await browserDwClientFor(namespace).getHistory(
            workflowId,
            runId,
            { pageSize: PAGE_SIZE, nextPageToken: token, waitNewEvent: true },
            { signal, timeoutMs },
          );
          if (buffer.add(page.events) > 0) setVersion((v) => v + 1);
          setError(null);
          token = historyResumeToken(page, token);
        } catch (caught) {
          if (signal.aborted || (isDwError(caught) && caught.reason === "aborted")) return;
          setError(toErrorInfo(caught));
          await pause(RETRY_DELAY_MS, signal);
        }
      }
    }

    void run();
    return () => {
      abort.abort();
      setTailing(false);
    };
  }, [buffer, namespace, workflowId, runId, live]);

  return { buffer, version, loading, tailing, error };
}
