import { afterEach, beforeEach, expect, test } from "vitest";
import type { CpHarness } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { Worker } from "../sdk/worker";
import { DEMO_BUILDS, drainPreviousBuild, previousBuildWorker, promoteCurrentBuild } from "./demo-build-ids";

/** The demo's `default` queue ends on two build ids, the previous one draining, and a second rollout changes nothing. */

let h: CpHarness;
beforeEach(async () => {
  h = await startCpHarness();
});
afterEach(async () => h.close());

test("drains the previous build, promotes the current one, and the drained worker's refused polls are not reported", async () => {
  const errors: string[] = [];
  const onError = (e: unknown, where: string) => errors.push(`${where}: ${String(e)}`);
  const opts = { baseUrl: h.url };
  await drainPreviousBuild(opts);
  const current = new Worker({ baseUrl: h.url, taskQueue: DEMO_BUILDS.queue, buildId: DEMO_BUILDS.current, onError });
  await current.start();
  const previous = previousBuildWorker(opts, "t", onError);
  await previous.start();
  try {
    expect(await promoteCurrentBuild(opts)).toBe(true);
    await drainPreviousBuild(opts);
    expect(await promoteCurrentBuild(opts)).toBe(true);
    const snap = await cp(h.url, `/task-queues/${DEMO_BUILDS.queue}/build-ids`);
    expect(
      list(snap.body.build_ids).map((e) => [e.build_id, e.rollout_status, e.new_start_selected, e.total_worker_count]),
    ).toEqual([
      [DEMO_BUILDS.current, "active", true, 1],
      [DEMO_BUILDS.previous, "draining", false, 1],
    ]);
  } finally {
    await Promise.all([current.shutdown({ abortPolls: true }), previous.shutdown({ abortPolls: true })]);
  }
  expect(errors.filter((e) => e.includes("worker_draining"))).toEqual([]);
});
