"use client";

import { startTransition, useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { RunViewData } from "@/lib/run-view/stream";
import type { RunViewStore, RunViewSummary } from "@/lib/run-view/store";
import { runViewQuery } from "@/lib/run-view/store";

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
  const summary = useStoreInTransitions(store.subscribe, store.getSummary);
  return { summary, store, retry: () => store.retry() };
}

/** Every state of the views, for the parts that follow the stream (the progress line, the open tab). */
export function useRunViewData(store: RunViewStore): RunViewData {
  return useStoreInTransitions(store.subscribe, store.getData);
}

/**
 * A store's snapshot whose changes re-render as transitions. `useSyncExternalStore` renders every
 * change synchronously, in one task: on a 50,000-event run the run view's first answer (adopted
 * as hydration ended) re-rendered the page in the same task as the hydration commit (a long task),
 * and each later update redrew the open tab in one piece. A transition is rendered in slices that
 * yield to input; a newer snapshot replaces one not yet shown. The views may lag the store by a
 * frame, never by more than the last update.
 */
function useStoreInTransitions<T>(subscribe: (listener: () => void) => () => void, getSnapshot: () => T): T {
  const [value, setValue] = useState(getSnapshot);
  useEffect(() => {
    const update = () => startTransition(() => setValue(getSnapshot));
    // A change between this render and the subscription is not missed.
    update();
    return subscribe(update);
  }, [subscribe, getSnapshot]);
  return value;
}
