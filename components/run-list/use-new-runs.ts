"use client";

import { useMemo, useState } from "react";
import type { WorkflowList, WorkflowListItem } from "@/lib/dw/schemas-workflows";
import { mergeLive } from "@/components/run-list/live-rows";

const EMPTY: WorkflowListItem[] = [];

/**
 * "+N new": the rows on screen are a snapshot of one list (named by `identity`); refreshes update
 * them in place and never reorder, runs that appeared since wait in `pending` until `showNew`.
 * A new list (another filter or page) replaces the snapshot as soon as its first page arrives.
 */
export function useNewRuns(identity: string, latest: WorkflowList | undefined, initialData: WorkflowList | null) {
  const [snapshot, setSnapshot] = useState<{ identity: string; rows: WorkflowListItem[] } | null>(
    initialData ? { identity, rows: initialData.workflows } : null,
  );
  if (latest && snapshot?.identity !== identity) setSnapshot({ identity, rows: latest.workflows });
  const live = useMemo(
    () =>
      snapshot && latest && snapshot.identity === identity
        ? mergeLive(snapshot.rows, { rows: latest.workflows, more: Boolean(latest.next_page_token) })
        : { rows: snapshot?.rows ?? EMPTY, pending: EMPTY },
    [snapshot, latest, identity],
  );
  const showNew = () => {
    if (latest) setSnapshot({ identity, rows: latest.workflows });
  };
  return { rows: live.rows, pending: live.pending, loaded: snapshot !== null, showNew };
}
