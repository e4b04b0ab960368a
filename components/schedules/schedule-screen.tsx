"use client";

import { useMemo } from "react";
import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import { useQueries, useQuery } from "@tanstack/react-query";
import type { OverlapPolicy, ScheduleDescription } from "@/lib/dw/schemas-schedules";
import { scheduleAuditQuery, scheduledRunQuery, scheduleQuery } from "@/lib/queries/schedules";
import { nextFires } from "@/lib/views/schedule-fires";
import { failureShare, fireLateness, historyRows, recentActions, scheduleState } from "@/lib/views/schedules";
import { runHref, workflowHref } from "@/lib/routes/route-for";
import { QueryState } from "@/components/dw/query-state";
import { Section } from "@/components/ui/section";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import Link from "@/components/ui/link";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { ScheduleSpecWords } from "@/components/schedules/schedule-spec-words";
import { useCronWords } from "@/components/schedules/use-cron-words";
import { FireTime, PastTime, ScheduleStateBadge } from "@/components/schedules/schedule-facts";
import { ScheduleActions } from "@/components/schedules/schedule-actions";

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0" data-testid={testId}>
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="mt-0.5 text-sm break-words">{children}</dd>
    </div>
  );
}

/** One schedule: what it runs and when, its actions, the next five fires, what its recent fires started. */
export function ScheduleScreen({ namespace, scheduleId }: { namespace: string; scheduleId: string }) {
  const schedule = useQuery(scheduleQuery(namespace, scheduleId));
  useCronWords(); // the spec words start loading while the schedule is read
  return (
    <QueryState query={schedule}>
      {(detail) => <ScheduleDetail namespace={namespace} scheduleId={scheduleId} detail={detail} />}
    </QueryState>
  );
}

function ScheduleDetail({
  namespace,
  scheduleId,
  detail,
}: {
  namespace: string;
  scheduleId: string;
  detail: ScheduleDescription;
}) {
  const t = useTranslations("schedules");
  const now = useTicker(10_000);
  const state = scheduleState(detail.state?.status, detail.state?.paused);
  const info = detail.info;
  const policy = detail.overlap_policy;
  return (
    <div className="space-y-4" data-testid="schedule-detail" data-state={state}>
      <Section title={t("detail.summary")} testId="schedule-summary">
        <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          <Fact label={t("col.state")}>
            <ScheduleStateBadge status={detail.state?.status} paused={detail.state?.paused} note={detail.state?.note} />
          </Fact>
          <Fact label={t("col.spec")} testId="schedule-spec">
            <ScheduleSpecWords spec={detail.spec} />
          </Fact>
          <Fact label={t("detail.action")} testId="schedule-action-spec">
            <span className="font-mono text-xs">{detail.action?.workflow_type ?? "–"}</span>
            <span className="block text-xs text-fg-muted">
              {t("detail.queue", { queue: detail.action?.task_queue ?? "–" })}
              {detail.action?.execution_timeout_seconds
                ? ` · ${t("detail.executionTimeout", { seconds: detail.action.execution_timeout_seconds })}`
                : null}
            </span>
          </Fact>
          <Fact label={t("detail.overlap")} testId="schedule-overlap">
            {policy ? t(`overlap.${policy as OverlapPolicy}`) : "–"}
          </Fact>
          <Fact label={t("col.nextFire")}>
            <FireTime
              at={info?.next_fire}
              late={fireLateness(state, info?.next_fire, now)}
              now={now}
              paused={state === "paused"}
            />
          </Fact>
          <Fact label={t("col.lastFire")}>
            {info?.last_fire ? <PastTime at={info.last_fire} now={now} /> : t("neverFired")}
          </Fact>
          <Fact label={t("detail.counts")}>
            {t("detail.countsValue", {
              fires: info?.fires_count ?? 0,
              failures: info?.failures_count ?? 0,
              skipped: info?.skipped_trigger_count ?? 0,
            })}
            {info?.last_skip_reason ? (
              <span className="block text-xs text-fg-muted">
                {t("detail.lastSkip", { reason: info.last_skip_reason })}
              </span>
            ) : null}
          </Fact>
          <Fact label={t("detail.jitter")}>
            {detail.jitter_seconds ? t("detail.seconds", { seconds: detail.jitter_seconds }) : t("detail.noJitter")}
          </Fact>
          <Fact label={t("detail.maxRuns")}>
            {detail.max_runs
              ? t("detail.remaining", { remaining: detail.remaining_actions ?? 0, max: detail.max_runs })
              : t("detail.unlimited")}
          </Fact>
        </dl>
      </Section>
      <Section title={t("detail.actions")}>
        <ScheduleActions
          namespace={namespace}
          scheduleId={scheduleId}
          state={state}
          overlapPolicy={policy}
          spec={detail.spec}
        />
      </Section>
      <div className="grid gap-4 lg:grid-cols-2">
        <NextFires detail={detail} state={state} />
        <RecentActions namespace={namespace} detail={detail} />
      </div>
      <AuditHistory namespace={namespace} scheduleId={scheduleId} />
    </div>
  );
}

function NextFires({ detail, state }: { detail: ScheduleDescription; state: string }) {
  const t = useTranslations("schedules");
  const time = useTimeFormat();
  const now = useTicker(60_000);
  const fires = useMemo(() => nextFires(detail.spec, now, 5), [detail.spec, now]);
  return (
    <Section title={t("detail.nextFive")} testId="schedule-next-fires">
      {state === "paused" ? <p className="mb-2 text-xs text-warn">{t("detail.pausedFires")}</p> : null}
      {fires.length === 0 ? (
        <p className="text-sm text-fg-muted">{t("detail.noFires")}</p>
      ) : (
        <ol className="space-y-1 text-sm tabular-nums">
          {fires.map((at) => (
            <li key={at} data-testid="schedule-next-fire">
              {time.dateTime(at)}
            </li>
          ))}
        </ol>
      )}
      {detail.jitter_seconds ? (
        <p className="mt-2 text-xs text-fg-muted">{t("detail.jitterNote", { seconds: detail.jitter_seconds })}</p>
      ) : null}
    </Section>
  );
}

function RecentActions({ namespace, detail }: { namespace: string; detail: ScheduleDescription }) {
  const t = useTranslations("schedules");
  const time = useTimeFormat();
  const actions = useMemo(() => recentActions(detail), [detail]);
  const ids = useMemo(() => [...new Set(actions.flatMap((a) => (a.kind === "run" ? [a.workflowId] : [])))], [actions]);
  const runs = useQueries({ queries: ids.map((id) => scheduledRunQuery(namespace, id)) });
  const statusOf = (id: string) => runs[ids.indexOf(id)]?.data?.status ?? null;
  const share = failureShare(actions, statusOf);
  return (
    <Section title={t("detail.recent")} testId="schedule-recent-actions">
      <p className="mb-2 text-sm" data-testid="schedule-failure-share">
        {share.share === null
          ? t("detail.shareNone", { open: share.open })
          : t("detail.share", {
              failed: share.failed,
              closed: share.closed,
              percent: Math.round(share.share * 100),
              open: share.open,
            })}
        {share.startFailures > 0 ? (
          <span className="ml-1 text-bad">{t("detail.startFailures", { count: share.startFailures })}</span>
        ) : null}
      </p>
      {actions.length === 0 ? (
        <p className="text-sm text-fg-muted">{t("neverFired")}</p>
      ) : (
        <ul className="divide-y divide-line text-sm">
          {actions.map((action, i) => (
            <li key={i} className="flex flex-wrap items-center gap-2 py-1.5" data-testid="schedule-recent-action">
              <span className="text-xs text-fg-muted tabular-nums" title={time.dateTime(action.firedAt)}>
                {time.compact(action.firedAt)}
              </span>
              {action.kind === "run" ? (
                <>
                  <Pill tone="neutral">{action.outcome}</Pill>
                  <Link
                    className="min-w-0 truncate font-mono text-xs text-accent hover:underline"
                    href={
                      action.runId
                        ? runHref(namespace, action.workflowId, action.runId)
                        : workflowHref(namespace, action.workflowId)
                    }
                    data-testid="schedule-recent-run"
                  >
                    {action.workflowId}
                  </Link>
                  {statusOf(action.workflowId) ? <StatusBadge status={statusOf(action.workflowId) ?? ""} /> : null}
                </>
              ) : action.kind === "start_failed" ? (
                <>
                  <Pill tone="danger">{t("startFailed")}</Pill>
                  <span className="min-w-0 text-xs break-words text-fg-muted">{action.reason}</span>
                </>
              ) : (
                <Pill tone="neutral">{action.outcome ?? "–"}</Pill>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function AuditHistory({ namespace, scheduleId }: { namespace: string; scheduleId: string }) {
  const t = useTranslations("schedules");
  const time = useTimeFormat();
  const audit = useQuery(scheduleAuditQuery(namespace, scheduleId));
  return (
    <Section title={t("detail.audit")} testId="schedule-audit">
      <QueryState
        query={audit}
        isEmpty={(data) => data.events.length === 0}
        empty={<p className="text-sm text-fg-muted">{t("detail.auditEmpty")}</p>}
      >
        {(data) => (
          <>
            {data.truncated ? <p className="mb-2 text-xs text-warn">{t("detail.auditTruncated")}</p> : null}
            <ol className="divide-y divide-line text-sm">
              {historyRows(data.events).map((row) => (
                <li
                  key={row.sequence}
                  className="flex flex-wrap items-center gap-2 py-1.5"
                  data-testid="schedule-audit-event"
                  data-type={row.type}
                >
                  <span className="w-10 text-xs text-fg-muted tabular-nums">#{row.sequence}</span>
                  <span className="font-medium">{row.type}</span>
                  <span className="text-xs text-fg-muted" title={time.dateTime(row.recordedAt)}>
                    {time.compact(row.recordedAt)}
                  </span>
                  {row.workflowId ? (
                    <Link
                      className="min-w-0 truncate font-mono text-xs text-accent hover:underline"
                      href={
                        row.runId
                          ? runHref(namespace, row.workflowId, row.runId)
                          : workflowHref(namespace, row.workflowId)
                      }
                    >
                      {row.workflowId}
                    </Link>
                  ) : null}
                  {row.reason ? <span className="min-w-0 text-xs break-words text-fg-muted">{row.reason}</span> : null}
                </li>
              ))}
            </ol>
          </>
        )}
      </QueryState>
    </Section>
  );
}
