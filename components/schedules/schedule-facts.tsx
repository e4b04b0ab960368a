"use client";

import { useTranslations } from "next-intl";
import type { RunDescription } from "@/lib/dw/schemas-workflows";
import type { ActionRun, Lateness } from "@/lib/views/schedules";
import { scheduleState } from "@/lib/views/schedules";
import { runHref, workflowHref } from "@/lib/routes/route-for";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import Link from "@/components/ui/link";
import { useTimeFormat } from "@/components/hooks/use-time-format";

/** Active or paused, with the note the schedule carries (why it was paused, or what it is for). */
export function ScheduleStateBadge({
  status,
  paused,
  note,
}: {
  status: string | null | undefined;
  paused: boolean | null | undefined;
  note: string | null | undefined;
}) {
  const t = useTranslations("schedules.state");
  const state = scheduleState(status, paused);
  return (
    <span className="inline-flex flex-col items-start gap-0.5" data-testid="schedule-state" data-state={state}>
      <Pill tone={state === "active" ? "success" : state === "paused" ? "warning" : "neutral"}>{t(state)}</Pill>
      {note ? (
        <span className="max-w-56 truncate text-xs text-fg-muted" title={note} data-testid="schedule-note">
          {note}
        </span>
      ) : null}
    </span>
  );
}

/** A fire time as "in 3 min" (the absolute time on hover), flagged when the server is late with it. */
export function FireTime({
  at,
  late,
  now,
  paused = false,
}: {
  at: string | null | undefined;
  late: Lateness;
  now: number;
  /** A paused schedule keeps its `next_fire` but will not fire then: the time is not offered as upcoming. */
  paused?: boolean;
}) {
  const t = useTranslations("schedules");
  const time = useTimeFormat();
  if (paused) return <span className="text-fg-muted">{t("notWhilePaused")}</span>;
  if (!at) return <span className="text-fg-muted">–</span>;
  return (
    <span className="inline-flex flex-col items-start gap-0.5">
      <span title={time.dateTime(at)}>{time.relative(at, now)}</span>
      {late.late ? (
        <Pill tone="danger" testId="schedule-late">
          {t("late", { by: time.duration(late.byMs) })}
        </Pill>
      ) : null}
    </span>
  );
}

/**
 * The last fire: when, and what it did: the run it started with that run's status (a link to it),
 * or that the start failed. `action` undefined: the schedule's detail is not read yet.
 */
export function LastFire({
  namespace,
  at,
  action,
  run,
  now,
}: {
  namespace: string;
  at: string | null | undefined;
  action: ActionRun | null | undefined;
  run: RunDescription | undefined;
  now: number;
}) {
  const t = useTranslations("schedules");
  if (!at) return <span className="text-fg-muted">{t("neverFired")}</span>;
  return (
    <span className="inline-flex flex-col items-start gap-0.5" data-testid="schedule-last-fire">
      <PastTime at={at} now={now} />
      {action?.kind === "run" ? (
        <Link
          href={
            action.runId
              ? runHref(namespace, action.workflowId, action.runId)
              : workflowHref(namespace, action.workflowId)
          }
          className="inline-flex items-center gap-1 text-xs"
          data-testid="schedule-last-run"
        >
          {run ? <StatusBadge status={run.status} /> : <span className="text-fg-muted">{t("runStatusUnknown")}</span>}
        </Link>
      ) : action?.kind === "start_failed" ? (
        <span title={action.reason ?? undefined}>
          <Pill tone="danger">{t("startFailed")}</Pill>
        </span>
      ) : null}
    </span>
  );
}

/**
 * A time already past as "3 min ago": the ticker's `now` may be a few seconds older than a fire the
 * server just made, and a past fire must never read "in 4 s".
 */
export function PastTime({ at, now }: { at: string; now: number }) {
  const time = useTimeFormat();
  const ms = Date.parse(at);
  return <span title={time.dateTime(at)}>{time.relative(at, Number.isNaN(ms) ? now : Math.max(now, ms))}</span>;
}
