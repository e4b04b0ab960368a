import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Engine } from "../engine";
import { EngineError } from "../engine";
import { validateFailure } from "../engine/activity-reports";
import { envelopeSchema, parseCommands } from "../engine/workflow-task-commands";
import { HISTORY_PAGE_SIZE_DEFAULT, HISTORY_PAGE_SIZE_MAX } from "../engine/workflow-tasks";
import { namespaceOf, parse } from "./worker-request";
import { LONG_POLL_TIMEOUT_SECONDS, sendWorker } from "./worker-protocol";

/**
 * The worker plane's task routes (server-api.md §5): a long-poll claims a workflow or activity
 * task, then the lease holder reads history, heartbeats, completes or fails it.
 */

const pageSize = z.number().int().min(1).max(HISTORY_PAGE_SIZE_MAX).nullish();
const attemptField = z.number().int().min(1).optional();

const pollSchema = z.object({
  worker_id: z.string().min(1),
  task_queue: z.string().min(1),
  build_id: z.string().nullish(),
  poll_request_id: z.string().max(255).nullish(),
  history_page_size: pageSize,
  accept_history_encoding: z.string().nullish(),
  // The long-poll window the worker asks for, clamped to [0, 60] s like the engine's
  // WorkerProtocolVersion::clampLongPollTimeout (src/V2/Support/WorkerProtocolVersion.php@8dc90d64);
  // 0 is an immediate probe. sdk-python 2.12.0 always sends it (client.py `poll_workflow_task_response`).
  timeout_seconds: z.number().int().min(0).nullish(),
});

/**
 * Upper clamp of a requested `timeout_seconds`: the engine's MAX_LONG_POLL_TIMEOUT (60 s), or the
 * server's own default hold when that is configured longer.
 */
export const MAX_LONG_POLL_TIMEOUT_SECONDS = Math.max(60, LONG_POLL_TIMEOUT_SECONDS);
const leaseSchema = z.object({ lease_owner: z.string().min(1).optional(), workflow_task_attempt: attemptField });
const historySchema = leaseSchema.extend({
  next_history_page_token: z.string().nullish(),
  history_page_size: pageSize,
});
const completeSchema = leaseSchema.extend({ commands: z.unknown() });
const wfFailSchema = leaseSchema.extend({
  failure: z.object({ message: z.string().min(1), type: z.string().nullish(), stack_trace: z.string().nullish() }),
});
const activityAttemptSchema = z.object({
  activity_attempt_id: z.string().min(1),
  lease_owner: z.string().min(1).optional(),
});
const activityHeartbeatSchema = activityAttemptSchema.extend({
  message: z.string().nullish(),
  current: z.number().nullish(),
  total: z.number().nullish(),
  unit: z.string().nullish(),
  details: z.record(z.string(), z.unknown()).nullish(),
});
const activityCompleteSchema = activityAttemptSchema.extend({ result: envelopeSchema.nullish() });
const activityFailSchema = activityAttemptSchema.extend({ failure: z.unknown() });

type TaskParams = { Params: { id: string } };

export interface TaskRouteContext {
  engine: Engine;
  /** Long-poll hold when the worker asks for none. */
  pollTimeoutMs: number;
  /** Aborted when the server closes, releasing held long-polls. */
  shutdown: AbortSignal;
}

/** Claims a task, or holds the request until a task-ready wake-up, the poll timeout, or disconnect. */
async function longPoll<T>(
  ctx: TaskRouteContext,
  reply: FastifyReply,
  kind: "workflow" | "activity",
  claim: () => Promise<T | null>,
  namespace: string,
  queue: string,
  requestedSeconds: number | null | undefined,
): Promise<FastifyReply> {
  const { engine, pollTimeoutMs, shutdown } = ctx;
  const holdMs =
    requestedSeconds === null || requestedSeconds === undefined
      ? pollTimeoutMs
      : Math.min(requestedSeconds, MAX_LONG_POLL_TIMEOUT_SECONDS) * 1000;
  const deadline = Date.now() + holdMs;
  // One controller per poll, aborted by disconnect or server shutdown; the shutdown listener is
  // removed afterwards so thousands of polls do not pile listeners onto the long-lived signal.
  const stop = new AbortController();
  const onShutdown = (): void => stop.abort();
  shutdown.addEventListener("abort", onShutdown, { once: true });
  reply.raw.on("close", onShutdown);
  try {
    for (;;) {
      const waiter = engine.notifier.taskWaiter(
        namespace,
        queue,
        kind,
        Math.max(0, deadline - Date.now()),
        stop.signal,
      );
      const task = await claim();
      if (task) {
        waiter.cancel();
        return sendWorker(reply, 200, { task });
      }
      if (deadline - Date.now() <= 0 || stop.signal.aborted || shutdown.aborted) {
        waiter.cancel();
        return sendWorker(reply, 200, { task: null, poll_status: "timeout" });
      }
      await waiter.ready;
    }
  } finally {
    shutdown.removeEventListener("abort", onShutdown);
    reply.raw.off("close", onShutdown);
  }
}

function checkQueue(engine: Engine, namespace: string, workerId: string, queue: string): void {
  const registered = engine.workerQueue(namespace, workerId);
  if (registered !== queue) {
    throw new EngineError(
      409,
      "task_queue_mismatch",
      `Worker ${workerId} is registered for task queue [${registered}], not [${queue}].`,
      { worker_id: workerId, task_queue: queue, registered_task_queue: registered },
    );
  }
}

/**
 * A worker whose build-id cohort an operator drained claims nothing: 409 `worker_draining` in the
 * real server's words (durable-workflow/server WorkerController.php and ActivityTaskController.php,
 * newest indexed versions, `drainingWorkerPollResponse`). Read per poll: the status changes under
 * the worker when the cohort is drained or resumed.
 */
function refuseDraining(engine: Engine, namespace: string, workerId: string, queue: string): void {
  const row = engine.db
    .prepare("SELECT status, build_id FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
    .get(namespace, workerId) as { status: string; build_id: string | null } | undefined;
  if (row?.status !== "draining") return;
  const buildId = row.build_id?.trim() ? row.build_id.trim() : null;
  throw new EngineError(
    409,
    "worker_draining",
    `Worker [${workerId}] is marked draining for task queue [${queue}] and cannot claim new tasks until the cohort is resumed.`,
    {
      task: null,
      poll_status: "draining",
      worker_id: workerId,
      task_queue: queue,
      registered_build_id: buildId,
      worker_status: "draining",
      drain_intent: "draining",
    },
  );
}

/** `/workflow-tasks/*`: poll, history pages, heartbeat, complete, fail. */
export function registerWorkflowTaskRoutes(scope: FastifyInstance, ctx: TaskRouteContext): void {
  const { engine } = ctx;
  scope.post("/workflow-tasks/poll", async (request, reply) => {
    const body = parse(pollSchema, request.body);
    const namespace = namespaceOf(request);
    checkQueue(engine, namespace, body.worker_id, body.task_queue);
    refuseDraining(engine, namespace, body.worker_id, body.task_queue);
    const size = body.history_page_size ?? HISTORY_PAGE_SIZE_DEFAULT;
    return longPoll(
      ctx,
      reply,
      "workflow",
      () => engine.pollWorkflowTask(namespace, body.worker_id, body.task_queue, size, body.poll_request_id),
      namespace,
      body.task_queue,
      body.timeout_seconds,
    );
  });

  scope.post<TaskParams>("/workflow-tasks/:id/history", async (request, reply) => {
    const body = parse(historySchema, request.body);
    return sendWorker(
      reply,
      200,
      engine.workflowTaskHistory(
        request.params.id,
        body.lease_owner,
        body.workflow_task_attempt,
        body.next_history_page_token ?? null,
        body.history_page_size ?? HISTORY_PAGE_SIZE_DEFAULT,
      ),
    );
  });

  scope.post<TaskParams>("/workflow-tasks/:id/heartbeat", async (request, reply) => {
    const body = parse(leaseSchema, request.body);
    return sendWorker(
      reply,
      200,
      await engine.heartbeatWorkflowTask(request.params.id, body.lease_owner, body.workflow_task_attempt),
    );
  });

  scope.post<TaskParams>("/workflow-tasks/:id/complete", async (request, reply) => {
    const body = parse(completeSchema, request.body);
    const commands = parseCommands(body.commands);
    return sendWorker(
      reply,
      200,
      await engine.completeWorkflowTask(request.params.id, body.lease_owner, body.workflow_task_attempt, commands),
    );
  });

  scope.post<TaskParams>("/workflow-tasks/:id/fail", async (request, reply) => {
    const body = parse(wfFailSchema, request.body);
    return sendWorker(
      reply,
      200,
      await engine.failWorkflowTask(request.params.id, body.lease_owner, body.workflow_task_attempt, body.failure),
    );
  });
}

/** `/activity-tasks/*`: poll, heartbeat, complete, fail. */
export function registerActivityTaskRoutes(scope: FastifyInstance, ctx: TaskRouteContext): void {
  const { engine } = ctx;
  scope.post("/activity-tasks/poll", async (request, reply) => {
    const body = parse(pollSchema, request.body);
    const namespace = namespaceOf(request);
    checkQueue(engine, namespace, body.worker_id, body.task_queue);
    refuseDraining(engine, namespace, body.worker_id, body.task_queue);
    return longPoll(
      ctx,
      reply,
      "activity",
      () => engine.pollActivityTask(namespace, body.worker_id, body.task_queue),
      namespace,
      body.task_queue,
      body.timeout_seconds,
    );
  });

  scope.post<TaskParams>("/activity-tasks/:id/heartbeat", async (request, reply) => {
    const body = parse(activityHeartbeatSchema, request.body);
    return sendWorker(reply, 200, await engine.heartbeatActivityTask(request.params.id, body));
  });

  scope.post<TaskParams>("/activity-tasks/:id/complete", async (request, reply) => {
    const body = parse(activityCompleteSchema, request.body);
    return sendWorker(
      reply,
      200,
      await engine.completeActivityTask(
        request.params.id,
        body.activity_attempt_id,
        body.lease_owner,
        body.result ?? null,
      ),
    );
  });

  scope.post<TaskParams>("/activity-tasks/:id/fail", async (request, reply) => {
    const body = parse(activityFailSchema, request.body);
    const failure = validateFailure(body.failure);
    return sendWorker(
      reply,
      200,
      await engine.failActivityTask(request.params.id, body.activity_attempt_id, body.lease_owner, failure),
    );
  });
}
