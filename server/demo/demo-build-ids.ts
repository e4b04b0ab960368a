import { Worker } from "../sdk/worker";
import { WorkerProtocolError } from "../sdk/client";
import { demoWorkflows, defaultQueueActivities } from "./workflows";

/**
 * Issue 43's worker versioning in the demo: the `default` queue runs on two build ids. The
 * current build is promoted (fresh starts select it); the previous build is drained, so its one
 * worker stays registered and heartbeating while the server refuses its polls (409
 * `worker_draining`) — what an operator sees mid-rollout. Both steps go through the control plane
 * as an operator would and are idempotent, so a restart on the same file changes nothing.
 */
export const DEMO_BUILDS = { queue: "default", current: "2026.12.2", previous: "2026.11.4" } as const;

export interface DemoBuildOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
}

async function rollout(opts: DemoBuildOptions, action: "drain" | "promote", buildId: string): Promise<Response> {
  return fetch(
    `${opts.baseUrl.replace(/\/+$/, "")}/api/task-queues/${encodeURIComponent(DEMO_BUILDS.queue)}/build-ids/${action}`,
    {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-Durable-Workflow-Control-Plane-Version": "2",
        ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
        ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      },
      body: JSON.stringify({ build_id: buildId }),
    },
  );
}

/** Drains the previous build before its worker registers, so the worker lands draining. */
export async function drainPreviousBuild(opts: DemoBuildOptions): Promise<void> {
  const res = await rollout(opts, "drain", DEMO_BUILDS.previous);
  if (res.status !== 200)
    throw new Error(`drain ${DEMO_BUILDS.previous}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
}

/** Promotes the current build once its worker heartbeats; a refusal (409) is answered as false. */
export async function promoteCurrentBuild(opts: DemoBuildOptions): Promise<boolean> {
  const res = await rollout(opts, "promote", DEMO_BUILDS.current);
  if (res.status === 200) return true;
  if (res.status === 409) return false;
  throw new Error(`promote ${DEMO_BUILDS.current}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
}

/** The previous build's worker; the refusals of its polls while drained are expected, not reported. */
export function previousBuildWorker(
  opts: DemoBuildOptions & { workerToken?: string },
  suffix: string,
  onError: (e: unknown, where: string) => void,
): Worker {
  return new Worker({
    baseUrl: opts.baseUrl,
    token: opts.workerToken ?? opts.token,
    namespace: opts.namespace,
    taskQueue: DEMO_BUILDS.queue,
    buildId: DEMO_BUILDS.previous,
    workerId: `demo-worker-default-${DEMO_BUILDS.previous}-${suffix}`,
    workflows: demoWorkflows,
    activities: defaultQueueActivities,
    maxConcurrentWorkflowTasks: 2,
    maxConcurrentActivityTasks: 2,
    pollers: 1,
    onError: (e, where) => {
      if (e instanceof WorkerProtocolError && e.reason === "worker_draining") return;
      onError(e, where);
    },
  });
}
