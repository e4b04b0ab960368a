import type { CpHarness } from "../http/control-plane/test-support";
import { cp } from "../http/control-plane/test-support";
import { blob, ScriptedWorker } from "../http/test-support";
import { refreshStaleSummaries } from "../engine/repair-pass";

/**
 * Test scaffolding (not a test file): five runs whose every count is known — completed; failed after a
 * retried then non-retryable activity; waiting on a retry; with an activity lease lost; cancelled.
 * The operator-metrics suite checks its counts on them; the migration-upgrade suite carries them.
 */
export async function writeFiveKnownRuns(h: CpHarness, opts: { businessKeys?: boolean } = {}): Promise<void> {
  const w = new ScriptedWorker(h.url, "known-runs-worker");
  await w.register();
  const start = (id: string): void => {
    const business_key = opts.businessKeys ? `bk-${id}` : undefined;
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: id,
      workflow_type: id.split("-")[0]!,
      task_queue: "default",
      business_key,
    });
  };
  const schedule = async (policy: Record<string, unknown>): Promise<void> => {
    await w.completeWorkflow(await w.mustPollWorkflow(), [
      { type: "schedule_activity", activity_type: "work", retry_policy: policy },
    ]);
  };

  start("completed-1");
  await schedule({ max_attempts: 1 });
  await w.completeActivity(await w.mustPollActivity());
  await w.completeWorkflow(await w.mustPollWorkflow(), [{ type: "complete_workflow", result: blob("ok") }]);

  start("failed-1");
  await schedule({ max_attempts: 5, backoff_seconds: [1] });
  await w.failActivity(await w.mustPollActivity(), { message: "flaky" });
  h.clock.advance(1_000);
  await w.failActivity(await w.mustPollActivity(), { message: "fatal", non_retryable: true });
  await w.completeWorkflow(await w.mustPollWorkflow(), [{ type: "fail_workflow", message: "gave up" }]);

  start("retrying-1");
  await schedule({ max_attempts: 3, backoff_seconds: [600] });
  await w.failActivity(await w.mustPollActivity(), { message: "flaky" });

  start("lost-1");
  await schedule({ max_attempts: 1 });
  await w.mustPollActivity();
  h.clock.advance(300_001);
  refreshStaleSummaries(h.engine, h.clock.now());

  start("cancelled-1");
  const cancelled = await cp(h.url, "/workflows/cancelled-1/cancel", { body: { reason: "no longer needed" } });
  if (cancelled.status >= 300) throw new Error(`cancel answered ${cancelled.status}: ${cancelled.raw}`);
}
