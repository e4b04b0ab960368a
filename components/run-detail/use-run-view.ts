"use client";

import { useEffect, useSyncExternalStore } from "react";
import { useQuery } from "@tanstack/react-query";
import type { RunViewData } from "@/lib/queries/run-view";
import type { RunViewStore, RunViewSummary } from "@/lib/queries/run-view-store";
import { runViewQuery } from "@/lib/queries/run-view-store";

/**
 * The run's views from the run-view stream while the page is mounted: reading starts on mount,
 * leaving aborts it (the console server then stops its walk), and an open run keeps extending
 * them. The store lives in the query cache, so a second visit to a closed run shows them at once.
 */
export function useRunView(
  namespace: string,
  workflowId: string,
  runId: string,
  open: boolean,
): { summary: RunViewSummary; store: RunViewStore; retry: () => void } {
  const { data: store } = useQuery(runViewQuery(namespace, workflowId, runId));
  useEffect(() => store.setLive(open), [store, open]);
  useEffect(() => store.retain(), [store]);
  const summary = useSyncExternalStore(store.subscribe, store.getSummary, store.getSummary);
  return { summary, store, retry: () => store.retry() };
}

/** Every state of the views, for the parts that follow the stream (the progress line, the open tab). */
export function useRunViewData(store: RunViewStore): RunViewData {
  return useSyncExternalStore(store.subscribe, store.getData, store.getData);
}
