import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import type { Screen } from "@/lib/routes/route-for";
import { isGap, mergePoints, SAMPLE_FIELDS } from "@/lib/views/metrics-samples";
import type { MetricsPoint, MetricsSample, SampleField } from "@/lib/views/metrics-samples";

export { toSample } from "@/lib/views/metrics-samples";
export type { MetricsPoint, MetricsSample } from "@/lib/views/metrics-samples";

/**
 * Pure pieces of the Overview: the chart rows drawn from the console's samples and the page's own
 * (lib/views/metrics-samples.ts), and the needs-attention alerts derived from one operator_metrics snapshot.
 */

/**
 * A row the line charts draw: every count null at a gap, so the line breaks there. The failed
 * attempts are drawn per minute since the previous sample: `failed_attempts` only grows, so drawn
 * as it is it reads as a trend that is only the fleet's age. null for the first sample, after a
 * gap and where the count went down (pruned history, another server): a break, not a dip.
 */
export type ChartRow = { at: number; failedAttemptsPerMin: number | null } & Record<SampleField, number | null>;

export type ChartKey = Exclude<keyof ChartRow, "at">;

/** Points the page keeps: 24 h of the console's 15 s samples and a day of its own 5 s reads. */
export const MAX_POINTS = 5_760 + 17_280;

/** Rows a 380-pixel chart draws: more would only cost render time. */
export const MAX_ROWS = 360;

function gapRow(at: number): ChartRow {
  const row = { at, failedAttemptsPerMin: null } as ChartRow;
  for (const field of SAMPLE_FIELDS) row[field] = null;
  return row;
}

function rate(sample: MetricsSample, previous: MetricsPoint | undefined): number | null {
  if (previous === undefined || isGap(previous)) return null;
  const minutes = (sample.at - previous.at) / 60_000;
  const delta = sample.failedAttempts - previous.failedAttempts;
  return minutes > 0 && delta >= 0 ? Math.round((delta / minutes) * 10) / 10 : null;
}

/** The points as chart rows, with the failed-attempts counter turned into a rate (see {@link ChartRow}). */
export function withRates(points: readonly MetricsPoint[]): ChartRow[] {
  return points.map((point, index) => {
    if (isGap(point)) return gapRow(point.at);
    return { ...point, failedAttemptsPerMin: rate(point, points[index - 1]) };
  });
}

/**
 * At most `max` rows: consecutive rows in buckets, each drawn as its highest counts (a short spike of
 * stuck runs stays visible at 24 h) at the bucket's last time; a bucket holding a gap is a gap.
 */
export function thinRows(rows: readonly ChartRow[], max = MAX_ROWS): ChartRow[] {
  if (rows.length <= max) return [...rows];
  const size = Math.ceil(rows.length / max);
  const thinned: ChartRow[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const bucket = rows.slice(start, start + size);
    const last = bucket.at(-1);
    if (last === undefined) continue;
    if (bucket.some((row) => row.running === null)) {
      thinned.push(gapRow(last.at));
      continue;
    }
    const row = { ...last };
    for (const key of [...SAMPLE_FIELDS, "failedAttemptsPerMin"] as const) {
      const values = bucket.map((entry) => entry[key]).filter((value): value is number => value !== null);
      row[key] = values.length ? Math.max(...values) : null;
    }
    thinned.push(row);
  }
  return thinned;
}

/** Appends the page's own sample in time order, dropping duplicates and the oldest beyond `max`. */
export function addSample(points: readonly MetricsPoint[], sample: MetricsSample, max = MAX_POINTS): MetricsPoint[] {
  return mergePoints(points, [sample], max);
}

export type AlertKind =
  | "repair_needed"
  | "unhealthy_tasks"
  | "lease_expired"
  | "compatibility_blocked"
  | "claim_failed"
  | "timeout_overdue"
  | "retrying"
  | "no_workers"
  | "backend";

export type AlertSeverity = "critical" | "warning" | "info";

export interface MetricsAlert {
  kind: AlertKind;
  severity: AlertSeverity;
  count: number;
  /** Age of the oldest affected item, when the server reports it. */
  ageMs: number | null;
  /** The screen (of the overview's namespace) where the operator acts on it. */
  screen: Screen;
}

const SEVERITY_ORDER: Readonly<Record<AlertSeverity, number>> = { critical: 0, warning: 1, info: 2 };

/**
 * Runs waiting for an operator on the Attention screen, as the server counts them: repair needed,
 * compatibility blocked, claim failed (the critical and warning alerts that point there). Retrying
 * activities are left out: they are the engine doing its job, not yet a person's.
 */
export function attentionCount(metrics: OperatorMetrics): number {
  return metricsAlerts(metrics)
    .filter((alert) => alert.screen === "attention" && alert.severity !== "info")
    .reduce((sum, alert) => sum + alert.count, 0);
}

export function metricsAlerts(metrics: OperatorMetrics): MetricsAlert[] {
  const alerts: MetricsAlert[] = [];
  const add = (
    kind: AlertKind,
    severity: AlertSeverity,
    count: number,
    ageMs: number | null | undefined,
    screen: Screen,
  ) => {
    if (count > 0) alerts.push({ kind, severity, count, ageMs: ageMs ?? null, screen });
  };
  add("repair_needed", "critical", metrics.runs.repair_needed, metrics.runs.max_repair_needed_age_ms, "attention");
  add("compatibility_blocked", "warning", metrics.runs.compatibility_blocked, null, "attention");
  add("claim_failed", "warning", metrics.runs.claim_failed, null, "attention");
  add("lease_expired", "warning", metrics.tasks.lease_expired, metrics.tasks.max_lease_expired_age_ms, "system");
  add(
    "unhealthy_tasks",
    "warning",
    metrics.tasks.unhealthy - metrics.tasks.lease_expired,
    metrics.tasks.max_unhealthy_age_ms,
    "system",
  );
  add(
    "timeout_overdue",
    "warning",
    metrics.activities.timeout_overdue ?? 0,
    metrics.activities.max_timeout_overdue_age_ms,
    "system",
  );
  add("retrying", "info", metrics.activities.retrying, metrics.activities.max_retrying_age_ms, "attention");
  const openWork = metrics.tasks.open > 0 || metrics.runs.running > 0;
  if (openWork && metrics.workers.active_workers === 0)
    alerts.push({
      kind: "no_workers",
      severity: "critical",
      count: metrics.runs.running,
      ageMs: null,
      screen: "workers",
    });
  const backendIssues = metrics.backend?.issues?.length ?? 0;
  if (metrics.backend?.supported === false || backendIssues > 0)
    alerts.push({
      kind: "backend",
      severity: metrics.backend?.supported === false ? "critical" : "warning",
      count: backendIssues,
      ageMs: null,
      screen: "system",
    });
  return alerts.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || b.count - a.count);
}
