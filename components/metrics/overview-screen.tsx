"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { ReactNode } from "react";
import dynamic from "next/dynamic";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import type { TaskQueueList } from "@/lib/dw/schemas-fleet";
import { FLEET_REFRESH_MS, staleWorkersQuery, taskQueuesQuery, workersQuery } from "@/lib/queries/fleet";
import { mergeRoster } from "@/lib/views/workers";
import { operatorMetricsQuery } from "@/lib/queries/metrics";
import { metricsHistoryQuery } from "@/lib/queries/metrics-history";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref, runsListHref, screenHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { formatTime } from "@/lib/format/time";
import type { ChartKey, ChartRow, MetricsPoint } from "@/components/metrics/metrics-model";
import type { MetricsHistory } from "@/lib/views/metrics-samples";
import { mergePoints } from "@/lib/views/metrics-samples";
import { isForbidden, Panel, RequiresAdmin, Stat } from "@/components/metrics/panel";
import {
  addSample,
  MAX_POINTS,
  metricsAlerts,
  thinRows,
  toSample,
  withRates,
} from "@/components/metrics/metrics-model";
import { failureGroups } from "@/lib/views/failure-groups";
import { SERIES_COLORS, STATUS_BAR_COLORS } from "@/components/metrics/chart-style";
import type { ChartSize } from "@/components/metrics/charts";
import { useAttentionScan } from "@/components/attention/use-attention-scan";
import { ScheduleHealthStats } from "@/components/schedules/schedule-health-stats";

/** Charts fill their panel's width (a phone's 330 px, a wide panel's 600), at most this wide. */
const CHART_HEIGHT = 170;
const CHART_MAX_WIDTH = 640;

// recharts loads after the page (its history comes from /api/metrics/samples after mount); the box keeps the layout still.
const chartPlaceholder = () => <div style={{ height: CHART_HEIGHT }} aria-hidden="true" />;
const StatusBarChart = dynamic(() => import("@/components/metrics/charts").then((m) => m.StatusBarChart), {
  ssr: false,
  loading: chartPlaceholder,
});
const SamplesLineChart = dynamic(() => import("@/components/metrics/charts").then((m) => m.SamplesLineChart), {
  ssr: false,
  loading: chartPlaceholder,
});

function tone(count: number, bad: "bad" | "warn"): "bad" | "warn" | undefined {
  return count > 0 ? bad : undefined;
}

/** The Overview: operator_metrics panels, charts of what the console sampled, alerts, worst offenders. */
export function OverviewScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("overview");
  const time = useTimeFormat();
  const [samples, setSamples] = useState<{ at: number; list: MetricsPoint[] }>({ at: 0, list: [] });

  const metricsQuery = useQuery(operatorMetricsQuery(namespace));
  // One chart sample per answer the server gave (each refresh stamps a new dataUpdatedAt).
  if (metricsQuery.data && metricsQuery.dataUpdatedAt !== samples.at) {
    const sample = toSample(metricsQuery.data.operator_metrics);
    setSamples({ at: metricsQuery.dataUpdatedAt, list: addSample(samples.list, sample) });
  }
  // The console's own 15 s samples of this namespace; the page's reads fill in between them.
  const history = useQuery(metricsHistoryQuery(namespace));
  const points = useMemo(
    () => mergePoints(history.data?.points ?? [], samples.list, MAX_POINTS),
    [history.data, samples.list],
  );
  const queues = useQuery(taskQueuesQuery(namespace));
  // The overview only counts workers: half as often as the Workers screen.
  const workers = useQuery(workersQuery(namespace, FLEET_REFRESH_MS * 2));
  // A newer server lists stale workers only when asked (decision 0063): both lists make the roster.
  const staleWorkers = useQuery({ ...staleWorkersQuery(namespace), refetchInterval: FLEET_REFRESH_MS * 2 });
  const roster = mergeRoster(workers.data, staleWorkers.data).workers;
  const staleCount = roster.filter((worker) => worker.status === "stale").length;

  const metrics = metricsQuery.data?.operator_metrics ?? null;
  const forbidden = metricsQuery.isError && isForbidden(metricsQuery.error);
  const metricsError = metricsQuery.isError && !forbidden && !metrics ? metricsQuery.error : null;

  const liveSummary = metrics
    ? t("live", {
        at: time.dateTime(metrics.generated_at),
        running: metrics.runs.running,
        repairNeeded: metrics.runs.repair_needed,
        unhealthy: metrics.tasks.unhealthy,
        retrying: metrics.activities.retrying,
      })
    : "";

  return (
    <div className="space-y-4">
      <p role="status" aria-live="polite" data-testid="overview-live" className="text-sm text-fg-muted">
        {liveSummary}
      </p>
      {metricsError ? (
        <DwErrorState error={toErrorInfo(metricsError)} onRetry={() => void metricsQuery.refetch()} />
      ) : null}
      {metrics ? <Alerts namespace={namespace} metrics={metrics} /> : null}
      {forbidden ? (
        <Panel title={t("panels.metrics")} testId="panel-metrics">
          <RequiresAdmin what={t("panels.metrics")} />
        </Panel>
      ) : null}
      {metrics ? (
        <MetricPanels
          namespace={namespace}
          metrics={metrics}
          points={points}
          history={history.data?.sampling ? history.data : null}
        />
      ) : null}
      <div className="grid items-start gap-4 lg:grid-cols-2">
        <Panel title={t("panels.workers")} testId="panel-workers">
          {workers.data ? (
            <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
              <Stat label={t("workers.registered")} value={roster.length} href={screenHref(namespace, "workers")} />
              <Stat
                label={t("workers.active")}
                value={roster.filter((worker) => worker.status === "active").length}
                tone="ok"
                href={screenHref(namespace, "workers")}
              />
              <Stat
                label={t("workers.stale")}
                value={staleCount}
                tone={tone(staleCount, "warn")}
                href={screenHref(namespace, "workers")}
              />
              {metrics ? <Stat label={t("workers.fleet")} value={metrics.workers.active_workers} /> : null}
            </dl>
          ) : workers.isError ? (
            isForbidden(workers.error) ? (
              <RequiresAdmin what={t("panels.workers")} />
            ) : (
              <p className="text-sm text-bad">{toErrorInfo(workers.error).message}</p>
            )
          ) : null}
          <Link
            href={screenHref(namespace, "workers")}
            className="mt-3 inline-block text-sm text-accent hover:underline"
          >
            {t("workers.link")}
          </Link>
        </Panel>
        <Panel title={t("panels.schedules")} testId="panel-schedules">
          <ScheduleHealthStats namespace={namespace} />
        </Panel>
        <Panel title={t("panels.offenders")} testId="panel-offenders">
          <StuckOffenders namespace={namespace} />
          {queues.data ? (
            <Offenders namespace={namespace} queues={queues.data} />
          ) : queues.isError ? (
            <p className="text-sm text-bad">{toErrorInfo(queues.error).message}</p>
          ) : null}
        </Panel>
      </div>
    </div>
  );
}

function Alerts({ namespace, metrics }: { namespace: string; metrics: OperatorMetrics }) {
  const t = useTranslations("overview.alerts");
  const time = useTimeFormat();
  const alerts = metricsAlerts(metrics);
  if (!alerts.length) {
    return (
      <p data-testid="alerts-none" className="rounded-lg border border-ok/40 bg-panel px-4 py-3 text-sm text-ok">
        {t("none")}
      </p>
    );
  }
  return (
    <section aria-label={t("label")} data-testid="alerts" className="space-y-2">
      {alerts.map((alert) => (
        <Link
          key={alert.kind}
          href={screenHref(namespace, alert.screen)}
          data-alert={alert.kind}
          className={`flex flex-wrap items-baseline justify-between gap-2 rounded-lg border px-4 py-3 text-sm hover:bg-panel-muted ${
            alert.severity === "critical"
              ? "border-bad/50 bg-bad/5 text-bad"
              : alert.severity === "warning"
                ? "border-warn/50 bg-warn/5 text-warn"
                : "border-line bg-panel text-fg"
          }`}
        >
          <span className="font-medium">{t(`kind.${alert.kind}`, { count: alert.count })}</span>
          <span className="text-xs">
            {alert.ageMs ? `${t("oldest", { age: time.duration(alert.ageMs) })} · ` : ""}
            {t(`action.${alert.kind}`)} →
          </span>
        </Link>
      ))}
    </section>
  );
}

function MetricPanels({
  namespace,
  metrics,
  points,
  history,
}: {
  namespace: string;
  metrics: OperatorMetrics;
  points: MetricsPoint[];
  /** The console's samples, when it samples this namespace; null: only the page's own reads. */
  history: MetricsHistory | null;
}) {
  const t = useTranslations("overview");
  const time = useTimeFormat();
  const { runs, tasks, activities, backlog } = metrics;
  const statusData = (["running", "completed", "failed", "cancelled", "terminated"] as const).map((status) => ({
    name: t(`runs.${status}`),
    count: runs[status],
    color: STATUS_BAR_COLORS[status],
  }));
  const series = thinRows(withRates(points)).map((row) => ({
    ...row,
    label: formatTime(row.at, { locale: time.locale, timeZone: time.timeZone }),
  }));
  const sampled =
    history?.since != null
      ? t("charts.sampledByConsole", {
          seconds: Math.round(history.intervalMs / 1000),
          since: formatTime(history.since, { locale: time.locale, timeZone: time.timeZone }),
        })
      : t("charts.sampled", { count: points.length });
  return (
    <div className="grid items-start gap-4 lg:grid-cols-2">
      <Panel title={t("panels.runs")} testId="panel-runs">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat label={t("runs.total")} value={runs.total} href={runsListHref(namespace)} />
          <Stat label={t("runs.running")} value={runs.running} href={runsListHref(namespace, "running")} />
          {/* The server's list filters by status bucket; waiting runs are in the running one. */}
          <Stat label={t("runs.waiting")} value={runs.waiting ?? 0} href={runsListHref(namespace, "running")} />
          <Stat
            label={t("runs.failed")}
            value={runs.failed}
            tone={tone(runs.failed, "bad")}
            href={runsListHref(namespace, "failed")}
          />
        </dl>
        <ChartBox testId="chart-runs-by-status">
          {(size) => <StatusBarChart data={statusData} countName={t("runs.count")} size={size} />}
        </ChartBox>
      </Panel>
      <Panel title={t("panels.repair")} testId="panel-repair">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat
            label={t("repair.needed")}
            value={runs.repair_needed}
            tone={tone(runs.repair_needed, "bad")}
            href={screenHref(namespace, "attention")}
            hint={
              runs.repair_needed
                ? t("repair.oldest", { age: time.duration(runs.max_repair_needed_age_ms ?? null) })
                : undefined
            }
          />
          <Stat
            label={t("repair.claimFailed")}
            value={runs.claim_failed}
            tone={tone(runs.claim_failed, "warn")}
            href={screenHref(namespace, "attention")}
          />
          <Stat
            label={t("repair.compatibilityBlocked")}
            value={runs.compatibility_blocked}
            tone={tone(runs.compatibility_blocked, "warn")}
            href={screenHref(namespace, "attention")}
          />
        </dl>
        {runs.repair_needed ? (
          <Link
            href={screenHref(namespace, "attention")}
            className="mt-2 inline-block text-sm text-accent hover:underline"
          >
            {t("repair.link")}
          </Link>
        ) : null}
        <Chart
          sampled={sampled}
          title={t("charts.runs")}
          data={series}
          lines={[
            { key: "running", name: t("runs.running"), color: SERIES_COLORS.running },
            { key: "repairNeeded", name: t("repair.needed"), color: SERIES_COLORS.repairNeeded },
          ]}
        />
      </Panel>
      <Panel title={t("panels.tasks")} testId="panel-tasks">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat label={t("tasks.ready")} value={tasks.ready} />
          <Stat label={t("tasks.leased")} value={tasks.leased} />
          <Stat
            label={t("tasks.unhealthy")}
            value={tasks.unhealthy}
            tone={tone(tasks.unhealthy, "warn")}
            href={screenHref(namespace, "system")}
          />
          <Stat
            label={t("tasks.leaseExpired")}
            value={tasks.lease_expired}
            tone={tone(tasks.lease_expired, "warn")}
            href={screenHref(namespace, "system")}
          />
        </dl>
        <Chart
          sampled={sampled}
          title={t("charts.tasks")}
          data={series}
          lines={[
            { key: "tasksReady", name: t("tasks.ready"), color: SERIES_COLORS.tasksReady },
            { key: "tasksLeased", name: t("tasks.leased"), color: SERIES_COLORS.tasksLeased },
            { key: "tasksUnhealthy", name: t("tasks.unhealthy"), color: SERIES_COLORS.tasksUnhealthy },
          ]}
        />
      </Panel>
      <Panel title={t("panels.activities")} testId="panel-activities">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat label={t("activities.open")} value={activities.open} />
          <Stat
            label={t("activities.retrying")}
            value={activities.retrying}
            tone={tone(activities.retrying, "warn")}
            href={screenHref(namespace, "attention")}
          />
          <Stat label={t("activities.failedAttempts")} value={activities.failed_attempts} />
          <Stat
            label={t("activities.timeoutOverdue")}
            value={activities.timeout_overdue ?? 0}
            tone={tone(activities.timeout_overdue ?? 0, "warn")}
          />
        </dl>
        <Chart
          sampled={sampled}
          title={t("charts.activities")}
          data={series}
          lines={[
            { key: "activitiesRetrying", name: t("activities.retrying"), color: SERIES_COLORS.activitiesRetrying },
            {
              key: "failedAttemptsPerMin",
              name: t("activities.failedPerMinute"),
              color: SERIES_COLORS.failedAttemptsPerMin,
            },
          ]}
        />
      </Panel>
      <Panel title={t("panels.backlog")} testId="panel-backlog">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat label={t("backlog.runnable")} value={backlog.runnable_tasks} />
          <Stat label={t("backlog.delayed")} value={backlog.delayed_tasks} />
          <Stat label={t("backlog.leased")} value={backlog.leased_tasks} />
          <Stat
            label={t("backlog.retrying")}
            value={backlog.retrying_activities}
            tone={tone(backlog.retrying_activities, "warn")}
          />
          <Stat
            label={t("backlog.unhealthy")}
            value={backlog.unhealthy_tasks}
            tone={tone(backlog.unhealthy_tasks, "warn")}
          />
          <Stat label={t("backlog.added")} value={backlog.tasks_added_last_minute ?? "–"} />
          <Stat label={t("backlog.dispatched")} value={backlog.tasks_dispatched_last_minute ?? "–"} />
        </dl>
      </Panel>
    </div>
  );
}

function Chart({
  title,
  sampled,
  data,
  lines,
}: {
  title: string;
  /** Who took the samples and since when (the console, or only this page). */
  sampled: string;
  data: (ChartRow & { label: string })[];
  lines: { key: ChartKey; name: string; color: (typeof SERIES_COLORS)[ChartKey] }[];
}) {
  const t = useTranslations("overview");
  return (
    <figure className="mt-3">
      <figcaption className="mb-1 text-xs text-fg-muted">
        {title} · {sampled} · {t("charts.sqrtScale")}
      </figcaption>
      <ChartBox testId="chart-samples">{(size) => <SamplesLineChart data={data} lines={lines} size={size} />}</ChartBox>
    </figure>
  );
}

/**
 * A chart as wide as its panel (recharts draws at a fixed size): measured, and re-measured when the
 * panel resizes, so a phone's narrow panel gets a narrow chart instead of one spilling past its edge.
 */
function ChartBox({ testId, children }: { testId: string; children: (size: ChartSize) => ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const box = ref.current;
    if (!box || typeof ResizeObserver === "undefined") return;
    const measure = () => setWidth(Math.min(CHART_MAX_WIDTH, Math.floor(box.clientWidth)));
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    measure();
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} data-testid={testId} className="w-full min-w-0" style={{ minHeight: CHART_HEIGHT }}>
      {width > 0 ? children({ width, height: CHART_HEIGHT }) : null}
    </div>
  );
}

/** The runs stuck longest, one per attention group (the same scan as the inbox, shared through the query cache). */
function StuckOffenders({ namespace }: { namespace: string }) {
  const t = useTranslations("overview.offenders");
  const cause = useTranslations("attention.cause");
  const time = useTimeFormat();
  const scan = useAttentionScan(namespace);
  const data = scan.data;
  const groups = useMemo(() => (data ? failureGroups(data.runs, { now: data.scannedAt, sampleSize: 1 }) : []), [data]);
  if (!data) return <p className="mb-2 text-xs text-fg-muted">{t("scanning")}</p>;
  const worst = groups.flatMap((group) => (group.samples[0] ? [{ group, sample: group.samples[0] }] : [])).slice(0, 4);
  if (!worst.length) return null;
  return (
    <ul className="mb-3 grid gap-2 sm:grid-cols-2">
      {worst.map(({ group, sample }) => (
        <li
          key={group.key}
          data-testid="offender"
          data-cause={group.cause}
          className="rounded-md bg-panel-muted px-3 py-2 text-sm"
        >
          <p className={`text-xs ${group.cause === "repair_needed" ? "text-bad" : "text-warn"}`}>
            {cause(group.cause)}
          </p>
          <Link
            href={runHref(namespace, sample.workflowId, sample.runId)}
            className="font-mono break-all text-accent hover:underline"
          >
            {sample.workflowId}
          </Link>
          <p className="text-xs text-fg-muted">
            {t("stuckFor", {
              type: group.workflowType ?? "–",
              age: time.duration(group.oldestAgeMs),
              count: group.count,
            })}
          </p>
        </li>
      ))}
    </ul>
  );
}

function Offenders({ namespace, queues }: { namespace: string; queues: TaskQueueList }) {
  const t = useTranslations("overview.offenders");
  const time = useTimeFormat();
  const oldest = queues.task_queues
    .map((queue) => ({
      queue: queue.name,
      task: queue.stats?.oldest_ready_task ?? null,
      expired:
        (queue.stats?.workflow_tasks?.expired_lease_count ?? 0) +
        (queue.stats?.activity_tasks?.expired_lease_count ?? 0),
    }))
    .filter((entry) => entry.task !== null || entry.expired > 0)
    .sort((a, b) => (b.task?.age_seconds ?? 0) - (a.task?.age_seconds ?? 0))
    .slice(0, 6);
  if (!oldest.length) return <p className="text-xs text-fg-muted">{t("none")}</p>;
  return (
    <ul className="grid gap-2 sm:grid-cols-2">
      {oldest.map((entry) => (
        <li key={entry.queue} data-testid="offender" className="rounded-md bg-panel-muted px-3 py-2 text-sm">
          <p className="text-xs text-fg-muted">{t("queue", { queue: entry.queue })}</p>
          {entry.task?.workflow_id && entry.task.run_id ? (
            <Link
              href={runHref(namespace, entry.task.workflow_id, entry.task.run_id)}
              className="font-mono text-accent hover:underline"
            >
              {entry.task.workflow_id}
            </Link>
          ) : null}
          {entry.task ? (
            <p className="text-xs text-fg-muted">
              {t("oldestReady", {
                type: entry.task.task_type ?? "task",
                age: time.duration((entry.task.age_seconds ?? 0) * 1000),
              })}
            </p>
          ) : null}
          {entry.expired ? <p className="text-xs text-warn">{t("expired", { count: entry.expired })}</p> : null}
        </li>
      ))}
    </ul>
  );
}
