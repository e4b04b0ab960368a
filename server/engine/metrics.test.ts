import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CpHarness, JsonTree } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { writeFiveKnownRuns } from "../test-support/known-runs";

const CONTRACTS = fileURLToPath(new URL("../../contracts", import.meta.url));

/**
 * Five runs whose every count is known: completed; failed after a retried then non-retryable
 * activity; waiting on a retry; with an activity lease lost; cancelled.
 */
describe("operator metrics count what the scenarios produced", () => {
  let h: CpHarness;
  let m: JsonTree;
  let eventCount: number;

  beforeAll(async () => {
    h = await startCpHarness();
    await writeFiveKnownRuns(h);

    eventCount = (h.db.prepare("SELECT COUNT(*) AS n FROM workflow_history_events").get() as { n: number }).n;
    const r = await cp(h.url, "/system/operator-metrics");
    expect(r.status).toBe(200);
    expect(r.body.namespace).toBe("default");
    expect(r.body.control_plane).toBeUndefined();
    expect(r.body.operator_metrics).toBeDefined();
    m = r.body.operator_metrics!;
  });

  afterAll(async () => {
    await h.close();
  });

  test("runs", () => {
    expect(m.runs).toMatchObject({
      total: 5,
      current: 5,
      running: 2,
      completed: 1,
      failed: 1,
      cancelled: 1,
      terminated: 0,
      archived: 0,
      repair_needed: 1,
      waiting: 2,
      claim_failed: 0,
      compatibility_blocked: 0,
    });
    expect(m.runs?.max_repair_needed_age_ms).toBeGreaterThan(0);
  });

  test("tasks: the lost lease is the one unhealthy task; the retry is delayed", () => {
    expect(m.tasks).toMatchObject({
      open: 2,
      ready: 1,
      ready_due: 0,
      delayed: 1,
      leased: 1,
      lease_expired: 1,
      dispatch_failed: 0,
      claim_failed: 0,
      dispatch_overdue: 0,
      unhealthy: 1,
    });
    expect(m.tasks?.max_lease_expired_age_ms).toBe(1);
    expect(m.tasks?.max_unhealthy_age_ms).toBe(1);
  });

  test("activities: retrying = pending with attempts, failed_attempts = failed attempt rows", () => {
    expect(m.activities).toMatchObject({
      open: 2,
      pending: 1,
      running: 1,
      retrying: 1,
      failed_attempts: 3,
      queued_failed_attempts: 3,
      max_attempt_count: 1,
      local: 0,
    });
    const failedRows = (
      h.db.prepare("SELECT COUNT(*) AS n FROM activity_attempts WHERE status = 'failed'").get() as { n: number }
    ).n;
    expect(m.activities?.failed_attempts).toBe(failedRows);
  });

  test("backlog, starts, history, repair policy and workers", () => {
    expect(m.backlog).toMatchObject({
      runnable_tasks: 0,
      delayed_tasks: 1,
      leased_tasks: 1,
      retrying_activities: 1,
      unhealthy_tasks: 1,
      repair_needed_runs: 1,
    });
    expect(m.starts).toMatchObject({ pending_runs: 0, ready_tasks: 0 });
    expect(m.history).toMatchObject({
      events: eventCount,
      continue_as_new_recommended_runs: 0,
      event_threshold: 10_000,
      size_bytes_threshold: 5_242_880,
    });
    expect(m.repair_policy).toEqual({
      redispatch_after_seconds: 3,
      loop_throttle_seconds: 5,
      scan_limit: 25,
      scan_strategy: "scope_fair_round_robin",
      failure_backoff_max_seconds: 60,
      failure_backoff_strategy: "exponential_by_repair_count",
    });
    expect(m.repair?.existing_task_candidates).toBe(1);
    expect(m.workers?.active_workers).toBe(0);
    expect(list(m.workers?.fleet)).toHaveLength(0);
    expect(m.projections?.run_summaries?.missing).toBe(0);
  });

  test("the snapshot validates against the CLI operator-metrics envelope", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(`${CONTRACTS}/cli-json-envelopes/operator-metrics.schema.json`, "utf8")) as object,
    );
    validate({ namespace: "default", operator_metrics: m });
    expect(validate.errors ?? []).toEqual([]);
  });

  test("system metrics: bounded series and projection drift", async () => {
    const r = await cp(h.url, "/system/metrics");
    expect(r.status).toBe(200);
    expect(r.body.metrics?.dw_projection_drift_total?.table_count).toBe(5);
    expect(r.body.metrics?.dw_workflow_task_consecutive_failures?.workflow_type_limit).toBe(20);
    expect(r.body.cardinality?.metric_label_sets?.dw_projection_drift_total?.namespace).toBe("server_scope_no_label");
  });
});
