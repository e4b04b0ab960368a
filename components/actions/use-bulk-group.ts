"use client";

import { useMemo } from "react";
import { boundedMembers } from "@/lib/confirm/bulk-limits";
import { cappedNote } from "@/lib/views/bulk-panel";

/**
 * A group's members as one bulk plan takes them: at most the bound, as a stable slice per member
 * list (so the dry run runs once per group), and the note for a group larger than that.
 */
export function useBulkGroup<T>(members: readonly T[]) {
  const bounded = useMemo(() => boundedMembers(members), [members]);
  return { planned: bounded.planned, capped: cappedNote(bounded) };
}
