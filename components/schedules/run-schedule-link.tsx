"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { endpointQuery, endpointQueryKey } from "@/lib/queries/endpoint-query";
import { scheduleHref } from "@/lib/routes/route-for";
import { scheduleOfRun } from "@/lib/views/schedules";
import Link from "@/components/ui/link";

/** The run's first events: the same small page (and key) the Queries tab reads for `WorkflowStarted`. */
const STARTED_PAGE = 5;

/**
 * "Started by schedule X" on a run a schedule started. The real server puts the schedule's identity
 * in the run's own history, a `ScheduleTriggered` event written with the start
 * (ScheduleManager::recordScheduleTriggered@8dc90d64), not on describe; a run without one shows nothing.
 */
export function RunScheduleLink({
  namespace,
  workflowId,
  runId,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
}) {
  const t = useTranslations("schedules.run");
  const params = { workflowId, runId };
  const head = useQuery({
    ...endpointQuery(namespace, "getHistory", params, { page_size: STARTED_PAGE }),
    queryKey: [...endpointQueryKey(namespace, "getHistory", params), "started"],
    refetchInterval: false,
    staleTime: Infinity,
  });
  const schedule = scheduleOfRun(head.data?.events ?? []);
  if (!schedule) return null;
  return (
    <div className="min-w-0">
      <dt className="text-xs text-fg-muted">{t("startedBy")}</dt>
      <dd className="mt-0.5 text-sm break-words" data-testid="run-schedule">
        <Link href={scheduleHref(namespace, schedule.scheduleId)} className="font-mono text-accent hover:underline">
          {schedule.scheduleId}
        </Link>
        {schedule.triggerNumber !== null ? (
          <span className="block text-xs text-fg-muted">{t("fire", { number: schedule.triggerNumber })}</span>
        ) : null}
      </dd>
    </div>
  );
}
