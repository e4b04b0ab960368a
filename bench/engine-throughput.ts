import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { defineActivity } from "../server/sdk/activity";
import { Worker } from "../server/sdk/worker";
import { defineWorkflow } from "../server/sdk/workflow";
import { figure } from "./support/report";

/**
 * End-to-end engine throughput: the embedded server in a child process (SQLite file in a temp
 * dir), the TypeScript SDK worker in this process over loopback HTTP. N workflows each run M
 * activities one after another, so every activity execution is a full cycle: activity poll →
 * activity complete → workflow task poll → replay → workflow task complete.
 *
 *   node --import tsx bench/engine-throughput.ts [--workflows 400] [--warmup 100] [--activities 10] [--concurrency 64] [--pollers 16] [--profile-server DIR]
 */

const { values } = parseArgs({
  options: {
    workflows: { type: "string", default: "400" },
    /** Workflows run first and not counted, so the figure is the warmed-up (JIT-compiled) rate. */
    warmup: { type: "string", default: "100" },
    activities: { type: "string", default: "10" },
    concurrency: { type: "string", default: "64" },
    // A worker sized for 64 concurrent tasks keeps 16 polls outstanding per kind; with 2 the
    // worker itself is the bottleneck (each claim waits a round trip plus a group commit).
    pollers: { type: "string", default: "16" },
    /** Writes a V8 CPU profile of the server process into this directory (open it in Chrome DevTools). */
    "profile-server": { type: "string" },
  },
});
const N = Number(values.workflows);
const W = Number(values.warmup);
const M = Number(values.activities);
const concurrency = Number(values.concurrency);
const pollers = Number(values.pollers);

const WORKER_TOKEN = "bench-worker-token";

const step = defineActivity("BenchStep", async (_ctx, i) => ({ step: i }));
const chain = defineWorkflow("BenchChain", function* (ctx, steps) {
  for (let i = 0; i < Number(steps); i++) yield ctx.activity("BenchStep", [i]);
  return { steps };
});

interface Status {
  completed: number;
  failed: number;
  activities: number;
  /** The server process's CPU time so far. */
  cpuMs: number;
}

function request<T>(
  child: ChildProcess,
  message: unknown,
  accept: (m: Record<string, unknown>) => boolean,
): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>): void => {
      if (!accept(m)) return;
      child.off("message", onMessage);
      resolve(m as T);
    };
    child.on("message", onMessage);
    if (message !== null) child.send(message as object);
  });
}

async function main(): Promise<void> {
  const child = fork(join(__dirname, "support", "engine-server.ts"), [], {
    execArgv: [
      "--import",
      "tsx",
      ...(values["profile-server"] ? ["--cpu-prof", `--cpu-prof-dir=${values["profile-server"]}`] : []),
    ],
    env: { ...process.env, BENCH_WORKER_TOKEN: WORKER_TOKEN },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { address } = await request<{ address: string }>(child, null, (m) => "address" in m);
  const worker = new Worker({
    baseUrl: address,
    token: WORKER_TOKEN,
    taskQueue: "default",
    workflows: [chain],
    activities: [step],
    maxConcurrentWorkflowTasks: concurrency,
    maxConcurrentActivityTasks: concurrency,
    pollers,
    onError: (e, where) => console.error(`worker ${where}: ${e instanceof Error ? e.message : String(e)}`),
  });
  await worker.start();

  const status = (): Promise<Status> => request<Status>(child, { status: true }, (m) => "completed" in m);
  /** Starts `count` chains and resolves once every run started so far has closed. */
  const runBatch = async (count: number, closedBefore: number): Promise<Status> => {
    await request(child, { start: { count, workflowType: "BenchChain", args: [M] } }, (m) => "started" in m);
    let s = await status();
    while (s.completed + s.failed < closedBefore + count) {
      await new Promise((r) => setTimeout(r, 50));
      s = await status();
    }
    return s;
  };

  const warm = W > 0 ? await runBatch(W, 0) : await status();
  const serverCpuBefore = warm.cpuMs;
  const workerCpuBefore = process.cpuUsage();
  const started = performance.now();
  const end = await runBatch(N, warm.completed + warm.failed);
  const result = {
    completed: end.completed - warm.completed,
    failed: end.failed - warm.failed,
    activities: end.activities - warm.activities,
  };
  const wall = (performance.now() - started) / 1000;
  const workerCpu = process.cpuUsage(workerCpuBefore);
  const workerCpuMs = (workerCpu.user + workerCpu.system) / 1000;
  const serverCpuMs = end.cpuMs - serverCpuBefore;

  await worker.shutdown({ abortPolls: true });
  child.send({ stop: true });
  await new Promise((r) => child.once("exit", r));

  const rate = result.activities / wall;
  console.log(
    `engine throughput: ${Math.round(rate)} activity executions/s (${N} workflows × ${M} activities, wall ${wall.toFixed(1)} s)`,
  );
  console.log(
    `engine throughput detail: ${Math.round(result.completed / wall)} workflow completions/s; ${worker.stats.workflowTasksCompleted} workflow tasks (warm-up included), ${result.failed} failed runs; ${W} warm-up workflows not counted`,
  );
  // CPU per execution does not depend on how busy the shared machine is, unlike the rate.
  const perActivity = (ms: number): string => (ms / Math.max(1, result.activities)).toFixed(2);
  console.log(
    `engine throughput cost: ${perActivity(serverCpuMs)} ms server CPU + ${perActivity(workerCpuMs)} ms worker CPU per activity execution (ceiling with the server alone on one core: ${Math.round((1000 * result.activities) / Math.max(1, serverCpuMs))}/s)`,
  );
  figure("engine throughput (activity executions/s)", `${Math.round(rate)}/s`, "≥ 500/s", rate >= 500);
  if (result.failed > 0 || result.activities !== N * M) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
