"use client";

import { useTranslations } from "next-intl";
import { schedulesListHref } from "@/lib/routes/route-for";
import { Stat } from "@/components/metrics/panel";
import { HEALTH_CHECK_LIMIT } from "@/lib/views/schedule-health";
import { useScheduleHealth } from "@/components/schedules/use-schedule-health";

/**
 * "Late schedules 2 · Last run failed 1": each number links to the Schedules list showing exactly
 * those schedules. Never a 0 it does not know: while the list loads the numbers are "…", when it
 * cannot be read the panel says so, and last runs not (yet) read are counted aloud.
 */
export function ScheduleHealthStats({ namespace }: { namespace: string }) {
  const t = useTranslations("schedules.health");
  const health = useScheduleHealth(namespace);
  if (health.state === "unreadable")
    return (
      <p className="text-sm text-bad" data-testid="schedule-health" data-state="unreadable">
        {t("unreadable")}
      </p>
    );
  const known = health.state === "ok";
  return (
    <div data-testid="schedule-health" data-state={health.state}>
      <dl className="grid grid-cols-2 gap-4">
        <Stat
          label={t("late")}
          value={known ? health.late.length : "…"}
          tone={known && health.late.length > 0 ? "bad" : undefined}
          href={schedulesListHref(namespace, "late")}
        />
        <Stat
          label={t("failed")}
          value={known ? health.failed.length : "…"}
          tone={known && health.failed.length > 0 ? "bad" : undefined}
          hint={known && health.unknown.length > 0 ? t("unknown", { count: health.unknown.length }) : undefined}
          href={schedulesListHref(namespace, "failed")}
        />
      </dl>
      {known && health.notChecked > 0 ? (
        <p className="mt-2 text-xs text-fg-muted" data-testid="schedule-health-capped">
          {t("notChecked", { count: health.notChecked, limit: HEALTH_CHECK_LIMIT })}
        </p>
      ) : null}
    </div>
  );
}
