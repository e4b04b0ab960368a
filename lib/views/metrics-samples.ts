import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import { withBasePath } from "@/lib/http/base-path";

/**
 * The Overview's chart points, shared by the console server's sampler (lib/server/metrics/sampler.ts,
 * which keeps 24 h of them) and the page (which merges that history with its own fresh reads).
 * Pure: no fetch, no React (docs/decisions/0027).
 */

/** The counts one operator_metrics answer gives the charts, in the order the server's ring stores them. */
export const SAMPLE_FIELDS = [
  "running",
  "repairNeeded",
  "tasksReady",
  "tasksLeased",
  "tasksUnhealthy",
  "activitiesRetrying",
  "failedAttempts",
] as const;

export type SampleField = (typeof SAMPLE_FIELDS)[number];

export type MetricsSample = { at: number } & Record<SampleField, number>;

/**
 * A poll the server did not answer (or answered with an error), at the console's clock: the chart
 * draws a break there instead of a line from the sample before it to the sample after it.
 */
export interface MetricsGap {
  at: number;
  gap: true;
}

export type MetricsPoint = MetricsSample | MetricsGap;

export function isGap(point: MetricsPoint): point is MetricsGap {
  return "gap" in point;
}

/** `GET /api/metrics/samples` (namespace in `X-Namespace`, optional `since` in epoch ms). */
export const METRICS_SAMPLES_PATH = withBasePath("/api/metrics/samples");

/** What `GET /api/metrics/samples` answers. */
export interface MetricsHistory {
  /** False when the console samples no more namespaces (its bound): the page has only its own reads. */
  sampling: boolean;
  /** How often the console polls a namespace someone is viewing. */
  intervalMs: number;
  /** The oldest point the console still holds for this namespace (epoch ms), null when none. */
  since: number | null;
  /** Points after the request's `since`, oldest first. */
  points: MetricsPoint[];
}

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

/**
 * Two time-ordered point lists as one, oldest first: a time both have is kept once (a sample wins
 * over a gap, since someone did read the server then), and only the newest `max` stay.
 */
export function mergePoints(a: readonly MetricsPoint[], b: readonly MetricsPoint[], max: number): MetricsPoint[] {
  const merged: MetricsPoint[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    const next = right === undefined || (left !== undefined && left.at <= right.at) ? left : right;
    if (next === left) i += 1;
    else j += 1;
    if (next === undefined || !Number.isFinite(next.at)) continue;
    const last = merged.at(-1);
    if (last !== undefined && last.at === next.at) {
      if (isGap(last) && !isGap(next)) merged[merged.length - 1] = next;
      continue;
    }
    merged.push(next);
  }
  return merged.length > max ? merged.slice(merged.length - max) : merged;
}
