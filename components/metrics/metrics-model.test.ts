import { describe, expect, it } from "vitest";
import { operatorMetricsSchema } from "@/lib/dw/schemas-system";
import type { MetricsPoint, MetricsSample } from "@/components/metrics/metrics-model";
import {
  addSample,
  attentionCount,
  metricsAlerts,
  thinRows,
  toSample,
  withRates,
} from "@/components/metrics/metrics-model";
import { mergePoints } from "@/lib/views/metrics-samples";

function metrics(
  overrides: { runs?: object; tasks?: object; activities?: object; workers?: object; backend?: object } = {},
) {
  return operatorMetricsSchema.parse({
    generated_at: "2026-04-13T12:00:00.000000Z",
    runs: {
      total: 10,
      current: 10,
      running: 3,
      completed: 5,
      failed: 2,
      cancelled: 0,
      terminated: 0,
      archived: 0,
      repair_needed: 0,
      claim_failed: 0,
      compatibility_blocked: 0,
      ...overrides.runs,
    },
    tasks: {
      open: 2,
      ready: 1,
      ready_due: 1,
      delayed: 0,
      leased: 1,
      dispatch_failed: 0,
      claim_failed: 0,
      dispatch_overdue: 0,
      lease_expired: 0,
      unhealthy: 0,
      ...overrides.tasks,
    },
    activities: {
      open: 1,
      pending: 1,
      running: 0,
      retrying: 0,
      failed_attempts: 4,
      max_attempt_count: 2,
      ...overrides.activities,
    },
    backlog: {
      runnable_tasks: 1,
      delayed_tasks: 0,
      leased_tasks: 1,
      retrying_activities: 0,
      unhealthy_tasks: 0,
      repair_needed_runs: 0,
      claim_failed_runs: 0,
      compatibility_blocked_runs: 0,
    },
    repair: { existing_task_candidates: 0, missing_task_candidates: 0, total_candidates: 0 },
    starts: { pending_runs: 0, pending_commands: 0, ready_tasks: 0 },
    history: { continue_as_new_recommended_runs: 0, events: 100 },
    workers: { active_workers: 2, ...overrides.workers },
    ...(overrides.backend ? { backend: overrides.backend } : {}),
  });
}

const sample = (at: number): MetricsSample => ({
  at,
  running: 1,
  repairNeeded: 0,
  tasksReady: 0,
  tasksLeased: 0,
  tasksUnhealthy: 0,
  activitiesRetrying: 0,
  failedAttempts: 0,
});

describe("samples", () => {
  it("keeps time order, drops repeats of the same snapshot and caps the buffer", () => {
    let samples: MetricsPoint[] = [];
    samples = addSample(samples, sample(1));
    samples = addSample(samples, sample(1));
    samples = addSample(samples, sample(2));
    samples = addSample(samples, sample(3), 2);
    expect(samples.map((s) => s.at)).toEqual([2, 3]);
    expect(addSample(samples, { ...sample(Number.NaN) })).toHaveLength(2);
  });

  it("samples the counts the charts draw", () => {
    expect(toSample(metrics({ runs: { repair_needed: 2 }, activities: { retrying: 3 } }))).toMatchObject({
      running: 3,
      repairNeeded: 2,
      activitiesRetrying: 3,
      failedAttempts: 4,
      tasksReady: 1,
    });
  });
});

describe("metricsAlerts", () => {
  it("is quiet on a healthy fleet", () => {
    expect(metricsAlerts(metrics())).toEqual([]);
  });

  it("raises stuck runs first, with the oldest age and a link to the inbox", () => {
    const alerts = metricsAlerts(
      metrics({
        runs: { repair_needed: 2, max_repair_needed_age_ms: 90_000 },
        tasks: { lease_expired: 1, unhealthy: 3 },
        activities: { retrying: 4 },
      }),
    );
    expect(alerts.map((a) => [a.kind, a.count])).toEqual([
      ["repair_needed", 2],
      ["unhealthy_tasks", 2],
      ["lease_expired", 1],
      ["retrying", 4],
    ]);
    expect(alerts[0]).toMatchObject({ severity: "critical", ageMs: 90_000, screen: "attention" });
  });

  it("flags open work with no active worker, and backend issues", () => {
    const alerts = metricsAlerts(
      metrics({
        workers: { active_workers: 0 },
        backend: { supported: true, issues: [{ code: "queue_sync_unsupported" }] },
      }),
    );
    expect(alerts.map((a) => a.kind)).toEqual(["no_workers", "backend"]);
  });
});

describe("attentionCount", () => {
  it("counts the runs an operator must act on, not the activities the engine is retrying", () => {
    expect(attentionCount(metrics({ activities: { retrying: 4 } }))).toBe(0);
    expect(
      attentionCount(
        metrics({
          runs: { repair_needed: 2, claim_failed: 1, compatibility_blocked: 3 },
          tasks: { lease_expired: 5, unhealthy: 5 },
          activities: { retrying: 4 },
        }),
      ),
    ).toBe(6);
  });
});

describe("withRates", () => {
  const at = (seconds: number, failedAttempts: number): MetricsSample => ({
    at: seconds * 1000,
    running: 0,
    repairNeeded: 0,
    tasksReady: 0,
    tasksLeased: 0,
    tasksUnhealthy: 0,
    activitiesRetrying: 0,
    failedAttempts,
  });

  it("draws a growing counter as failures per minute, with a break where it went down", () => {
    const rates = withRates([at(0, 10), at(30, 13), at(60, 13), at(90, 2), at(120, 4)]);
    expect(rates.map((sample) => sample.failedAttemptsPerMin)).toEqual([null, 6, 0, null, 4]);
  });
});

describe("console history in the charts", () => {
  const point = (at: number, running: number): MetricsSample => ({ ...sample(at), running });

  it("merges the console's points with the page's own, a sample winning over a gap at the same time", () => {
    const merged = mergePoints([point(1, 1), { at: 3, gap: true }, point(5, 5)], [point(2, 2), point(3, 3)], 10);
    expect(merged.map((p) => p.at)).toEqual([1, 2, 3, 5]);
    expect(merged[2]).toMatchObject({ running: 3 });
  });

  it("breaks the lines and the rate at a gap", () => {
    const rows = withRates([point(0, 1), { at: 60_000, gap: true }, point(120_000, 2)]);
    expect(rows.map((row) => row.running)).toEqual([1, null, 2]);
    expect(rows[2]?.failedAttemptsPerMin).toBeNull();
  });

  it("thins to the highest count per bucket, a bucket with a gap drawn as a gap", () => {
    const rows = withRates([point(0, 1), point(1, 9), point(2, 3), { at: 3, gap: true }]);
    const thinned = thinRows(rows, 2);
    expect(thinned.map((row) => [row.at, row.running])).toEqual([
      [1, 9],
      [3, null],
    ]);
  });
});
