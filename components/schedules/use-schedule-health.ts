"use client";

import { useMemo } from "react";
import { useQueries, useQuery } from "@tanstack/react-query";
import type { UseQueryResult } from "@tanstack/react-query";
import { scheduledRunQuery, scheduleQuery, schedulesQuery } from "@/lib/queries/schedules";
import { lastAction } from "@/lib/views/schedule-state";
import type { LastRun, Read, ScheduleHealth } from "@/lib/views/schedule-health";
import { healthCandidates, lastRunOf, scheduleHealth } from "@/lib/views/schedule-health";
import { useTicker } from "@/components/hooks/use-time-format";

function readOf<T>(query: UseQueryResult<T>): Read<T> {
  if (query.data !== undefined) return { state: "ok", data: query.data };
  return query.isError ? { state: "error" } : { state: "pending" };
}

/**
 * The namespace's late and failing schedules (lib/views/schedule-health.ts): the list, then for the
 * most recently fired schedules their description and the run their last fire started. The reads are
 * the Schedules screen's own queries, so the screens share one cache.
 */
export function useScheduleHealth(namespace: string): ScheduleHealth {
  const nowMs = useTicker(10_000);
  const list = useQuery(schedulesQuery(namespace));
  const candidates = useMemo(() => healthCandidates(list.data?.schedules ?? []), [list.data]);
  const details = useQueries({ queries: candidates.map((item) => scheduleQuery(namespace, item.schedule_id)) });
  const runIds = details.map((query) => {
    const last = query.data ? lastAction(query.data) : null;
    return last?.kind === "run" ? last.workflowId : null;
  });
  const runs = useQueries({
    queries: runIds.map((workflowId) => ({
      ...scheduledRunQuery(namespace, workflowId ?? ""),
      enabled: workflowId !== null,
    })),
  });
  const lastRuns = new Map<string, LastRun>();
  candidates.forEach((item, i) => {
    const detail = details[i];
    const run = runs[i];
    if (!detail) return;
    lastRuns.set(item.schedule_id, lastRunOf(item, readOf(detail), runIds[i] && run ? readOf(run) : null));
  });
  const listRead: Read<ScheduleHealthItems> = list.data
    ? { state: "ok", data: list.data.schedules }
    : list.isError
      ? { state: "error" }
      : { state: "pending" };
  return scheduleHealth(listRead, lastRuns, nowMs);
}

type ScheduleHealthItems = Parameters<typeof healthCandidates>[0];
