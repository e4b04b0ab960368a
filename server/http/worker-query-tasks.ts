import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Engine } from "../engine";
import { EngineError } from "../engine";
import { validationError } from "../engine/errors";
import { sendWorker } from "./worker-protocol";

/**
 * The worker plane's query tasks (durable-workflow/server routes/api.php@11d35b7,
 * `WorkerController::pollQueryTasks|completeQueryTask|failQueryTask`), plus the protocol 1.20
 * claim observation `GET …/{id}/status` that sdk-python 2.12.0 calls when the server advertises
 * `query_task_authority` (client.py `query_task_status`). Registered inside the worker-plane scope,
 * so auth, protocol version and namespace are checked first.
 */

export interface QueryTaskRouteOptions {
  engine: Engine;
  /** Default poll hold in ms, and the ceiling a requested `timeout_seconds` is clamped to. */
  pollTimeoutMs: number;
  maxPollSeconds: number;
  shutdown: AbortSignal;
  namespaceOf: (request: FastifyRequest) => string;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const errors: Record<string, string[]> = {};
  for (const issue of r.error.issues) {
    const key = issue.path.join(".") || "body";
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  throw validationError(errors);
}

const pollSchema = z.object({
  worker_id: z.string().min(1),
  task_queue: z.string().min(1),
  timeout_seconds: z.number().int().min(0).nullish(),
});
const leaseFields = { lease_owner: z.string().min(1), query_task_attempt: z.number().int().min(1) };
const envelope = z.object({ codec: z.string().max(64), blob: z.string() });
const completeSchema = z.object({
  ...leaseFields,
  result: z.unknown().optional(),
  result_envelope: envelope.nullish(),
});
const failSchema = z.object({
  ...leaseFields,
  failure: z.object({
    message: z.string().min(1),
    reason: z.string().nullish(),
    type: z.string().nullish(),
    stack_trace: z.string().nullish(),
  }),
});
const statusSchema = z.object({
  lease_owner: z.string().min(1),
  query_task_attempt: z.coerce.number().int().min(1),
});

type TaskParams = { Params: { id: string } };

/** `resolveRegisteredWorker`: the worker's registered types, 412 when unregistered, 409 on another queue. */
function registeredTypes(engine: Engine, namespace: string, workerId: string, queue: string): string[] {
  const registered = engine.workerQueue(namespace, workerId);
  if (registered !== queue) {
    throw new EngineError(
      409,
      "task_queue_mismatch",
      `Worker [${workerId}] is registered for task queue [${registered}], not [${queue}].`,
      { worker_id: workerId, registered_task_queue: registered, requested_task_queue: queue },
    );
  }
  const row = engine.db
    .prepare("SELECT supported_workflow_types FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
    .get(namespace, workerId) as { supported_workflow_types: string | null } | undefined;
  const types = row?.supported_workflow_types ? (JSON.parse(row.supported_workflow_types) as unknown) : [];
  return Array.isArray(types) ? types.filter((t): t is string => typeof t === "string" && t.trim() !== "") : [];
}

/** Null members are left out of a complete/fail answer, as `array_filter` does there. */
function compact(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && v !== undefined));
}

export function registerQueryTaskRoutes(scope: FastifyInstance, opts: QueryTaskRouteOptions): void {
  const { engine } = opts;
  const broker = engine.queryTasks;

  async function holdForTask(
    reply: FastifyReply,
    namespace: string,
    body: z.infer<typeof pollSchema>,
    types: string[],
  ): Promise<FastifyReply> {
    const requested = body.timeout_seconds;
    const holdMs =
      requested === null || requested === undefined
        ? opts.pollTimeoutMs
        : Math.min(requested, opts.maxPollSeconds) * 1000;
    const deadline = Date.now() + holdMs;
    const stop = new AbortController();
    const onStop = (): void => stop.abort();
    opts.shutdown.addEventListener("abort", onStop, { once: true });
    reply.raw.on("close", onStop);
    try {
      for (;;) {
        // Subscribed before claiming, so a query enqueued during the claim still wakes this poll.
        const waiter = broker.pendingWaiter(
          namespace,
          body.task_queue,
          Math.max(0, deadline - Date.now()),
          stop.signal,
        );
        const task = broker.claim(namespace, body.worker_id, body.task_queue, types);
        if (task || deadline - Date.now() <= 0 || stop.signal.aborted) {
          waiter.cancel();
          return sendWorker(reply, 200, { task });
        }
        await waiter.ready;
      }
    } finally {
      opts.shutdown.removeEventListener("abort", onStop);
      reply.raw.off("close", onStop);
    }
  }

  scope.post("/query-tasks/poll", async (request, reply) => {
    const body = parse(pollSchema, request.body);
    const namespace = opts.namespaceOf(request);
    const types = registeredTypes(engine, namespace, body.worker_id, body.task_queue);
    return holdForTask(reply, namespace, body, types);
  });

  scope.post<TaskParams>("/query-tasks/:id/complete", async (request, reply) => {
    const body = parse(completeSchema, request.body);
    const r = broker.complete(
      opts.namespaceOf(request),
      request.params.id,
      body.lease_owner,
      body.query_task_attempt,
      body.result ?? null,
      body.result_envelope ?? null,
    );
    return sendWorker(reply, r.status, compact(r.body));
  });

  scope.post<TaskParams>("/query-tasks/:id/fail", async (request, reply) => {
    const body = parse(failSchema, request.body);
    const r = broker.fail(
      opts.namespaceOf(request),
      request.params.id,
      body.lease_owner,
      body.query_task_attempt,
      body.failure,
    );
    return sendWorker(reply, r.status, compact(r.body));
  });

  scope.get<TaskParams>("/query-tasks/:id/status", async (request, reply) => {
    const q = parse(statusSchema, request.query);
    const r = broker.status(opts.namespaceOf(request), request.params.id, q.lease_owner, q.query_task_attempt);
    return sendWorker(reply, r.status, r.body);
  });
}
