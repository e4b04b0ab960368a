import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import type { Screen } from "@/lib/routes/route-for";

/**
 * Pure pieces of the Overview: the samples the console keeps in memory between refreshes, and the
 * needs-attention alerts derived from one operator_metrics snapshot.
 */

export interface MetricsSample {
  /** Epoch ms of `generated_at` (server time), so refreshes that return the same snapshot collapse. */
  at: number;
  running: number;
  repairNeeded: number;
  tasksReady: number;
  tasksLeased: number;
  tasksUnhealthy: number;
  activitiesRetrying: number;
  failedAttempts: number;
  /**
   * Failed attempts per minute since the previous sample: `failed_attempts` only grows, so drawn
   * as it is it reads as a trend that is only the fleet's age. null for the first sample and where
   * the count went down (pruned history, another server): a break, not a dip.
   */
  failedAttemptsPerMin?: number | null;
}

/** Samples kept: at 5 s per refresh, a little over 16 minutes. */
export const MAX_SAMPLES = 200;

export function toSample(metrics: OperatorMetrics): MetricsSample {
  return {
    at: new Date(metrics.generated_at).getTime(),
    running: metrics.runs.running,
    repairNeeded: metrics.runs.repair_needed,
    tasksReady: metrics.tasks.ready,
    tasksLeased: metrics.tasks.leased,
    tasksUnhealthy: metrics.tasks.unhealthy,
    activitiesRetrying: metrics.activities.retrying,
    failedAttempts: metrics.activities.failed_attempts,
  };
}

/** The samples with their counters turned into rates per minute (see {@link MetricsSample}). */
export function withRates(samples: readonly MetricsSample[]): MetricsSample[] {
  return samples.map((sample, index) => {
    const previous = index > 0 ? samples[index - 1] : undefined;
    const minutes = previous ? (sample.at - previous.at) / 60_000 : 0;
    const delta = previous ? sample.failedAttempts - previous.failedAttempts : -1;
    const rate = previous && minutes > 0 && delta >= 0 ? Math.round((delta / minutes) * 10) / 10 : null;
    return { ...sample, failedAttemptsPerMin: rate };
  });
}

/** Appends a sample in time order, dropping duplicates and the oldest beyond `max`. */
export function addSample(
  samples: readonly MetricsSample[],
  sample: MetricsSample,
  max = MAX_SAMPLES,
): MetricsSample[] {
  if (!Number.isFinite(sample.at)) return [...samples];
  const last = samples.at(-1);
  if (last && sample.at <= last.at) return [...samples];
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
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
