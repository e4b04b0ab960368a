import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { EngineError } from "../../engine";
import { MAX_DURATION_SECONDS } from "../../engine/activities";
import { validationError } from "../../engine/errors";
import type { CommandResult } from "../../engine";
import type { CommandRequest } from "../../engine/command-rows";
import { debugRun } from "../../read/debug";
import { jsonStream } from "../../read/chunked-json";
import { exportRunSliced } from "../../read/export";
import { historyPage } from "../../read/history";
import type { InstanceRow, RunRow } from "../../engine/rows";
import type { PayloadDecoder } from "../../read/runs";
import { currentRun, describeRun, findInstance, findRun, listRuns, listWorkflows } from "../../read/runs";
import type { PayloadValue } from "../../codec/codec";
import { decodeBlob, encodePayload, PayloadCodecError } from "../../codec/codec";
import type { ControlPlaneDeps } from "./context";
import { commandRequestOf } from "./command-attribution";
import { intParam, namespaceOf, OPERATOR, operationOf, parseInput, routeConfig } from "./context";
import { CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION, sendControlPlane } from "./envelope";
import type { Operation } from "./envelope";

export type IdParams = { Params: { id: string } };
export type RunParams = { Params: { id: string; runId: string } };
export type NameParams = { Params: { id: string; name: string } };
export type RunNameParams = { Params: { id: string; runId: string; name: string } };

function jsonSafe(v: PayloadValue): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSafe(x)]));
  return v;
}

/** Describe returns decoded `input` / `output`; a blob this server cannot decode reads as null. */
const decodePayload: PayloadDecoder = (env) => {
  if (env.codec !== "avro") return null;
  try {
    return jsonSafe(decodeBlob(env.blob));
  } catch {
    return null;
  }
};

const envelopeInput = z.object({ codec: z.string().min(1), blob: z.string() });
export const inputField = z.union([z.array(z.unknown()), envelopeInput]).optional();

export function toEnvelope(input: z.infer<typeof inputField>): { codec: string; blob: string } | null {
  if (input === undefined) return null;
  if (!Array.isArray(input)) return { codec: input.codec, blob: input.blob };
  try {
    return encodePayload(input);
  } catch (e) {
    // JSON admits values Avro cannot carry (`1e400` parses to Infinity): the caller's input is invalid.
    if (e instanceof PayloadCodecError)
      throw validationError({ input: [`The input field cannot be encoded: ${e.message}.`] });
    throw e;
  }
}

const listQuery = z.object({
  status: z
    .string()
    .optional()
    .refine((v) => v === undefined || ["running", "completed", "failed"].includes(v), {
      message: "The selected status is invalid.",
    }),
  workflow_type: z.string().max(255).optional(),
  query: z.string().max(255).optional(),
  page_size: intParam("page_size", 1, 200),
  next_page_token: z.string().optional(),
});

const historyQuery = z.object({
  page_size: intParam("page_size", 1, 1000),
  next_page_token: z.string().optional(),
  wait_new_event: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "1" || v === "0", {
      message: "The wait new event field must be true or false.",
    }),
});

export const operationName = z
  .string()
  .min(1)
  .max(256)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), {
    message: "The operation name must not contain control characters.",
  });

const REJECTED_START_FIELDS = [
  "workflow_execution_timeout",
  "workflow_run_timeout",
  "workflow_task_timeout",
  "retry_policy",
  "idempotency_key",
  "request_id",
];
const startBody = z
  .object({
    workflow_id: z
      .string()
      .max(128)
      .regex(/^[a-zA-Z0-9._:-]+$/, { message: "The workflow id field format is invalid." })
      .optional(),
    workflow_type: z
      .string({ message: "The workflow type field is required." })
      .min(1, { message: "The workflow type field is required." })
      .max(255),
    task_queue: z.string().min(1).max(255).optional(),
    input: inputField,
    business_key: z.string().max(191).nullish(),
    // The real start endpoint validates memo only as `array` (a PHP array: a JSON object or list;
    // WorkflowController::start, durable-workflow/server@11d35b7) and stores and echoes either.
    memo: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish(),
    search_attributes: z
      .record(
        z
          .string()
          .regex(/^[a-zA-Z][a-zA-Z0-9_]*$/)
          .max(128),
        z.unknown(),
      )
      .nullish(),
    duplicate_policy: z
      .enum(["fail", "use-existing"], { message: "The selected duplicate policy is invalid." })
      .optional(),
    execution_timeout_seconds: z.number().int().min(1).max(MAX_DURATION_SECONDS).nullish(),
    run_timeout_seconds: z.number().int().min(1).max(MAX_DURATION_SECONDS).nullish(),
  })
  .loose()
  .superRefine((body, ctx) => {
    for (const field of REJECTED_START_FIELDS) {
      if (field in body)
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `The ${field} field is not supported by the control-plane start contract.`,
        });
    }
  });

/**
 * The request metadata the real server keeps in a command's context
 * (`WorkflowCommandContextFactory::make`, durable-workflow/server@11d35b7): method, path, the
 * request ids, and who sent it (command-attribution.ts).
 */
export function commandRequest(request: FastifyRequest): CommandRequest {
  return commandRequestOf(request);
}

export function instanceOr404(deps: ControlPlaneDeps, namespace: string, workflowId: string): InstanceRow {
  const instance = findInstance(deps.engine.db, namespace, workflowId);
  if (!instance) throw new EngineError(404, "instance_not_found", "Workflow not found.", { workflow_id: workflowId });
  return instance;
}

function runOr404(deps: ControlPlaneDeps, instance: InstanceRow, runId: string): RunRow {
  const run = findRun(deps.engine.db, runId);
  if (!run || run.namespace !== instance.namespace || run.workflow_instance_id !== instance.id) {
    throw new EngineError(404, "run_not_found", "Workflow run not found.", { workflow_id: instance.id, run_id: runId });
  }
  return run;
}

function currentOr404(deps: ControlPlaneDeps, instance: InstanceRow): RunRow {
  const run = currentRun(deps.engine.db, instance);
  if (!run)
    throw new EngineError(404, "run_not_found", "Workflow run not found.", { workflow_id: instance.id, run_id: null });
  return run;
}

/** A run-targeted command must name the current run; historical or unknown runs are refused (409). */
export function requireCurrentRun(deps: ControlPlaneDeps, namespace: string, workflowId: string, runId: string): void {
  const instance = instanceOr404(deps, namespace, workflowId);
  if (currentRun(deps.engine.db, instance)?.id !== runId) {
    throw new EngineError(
      409,
      "historical_run_command_rejected",
      "Commands cannot target historical runs. Target the current run or the workflow instance.",
      {
        target_scope: "run",
        workflow_id: workflowId,
        run_id: runId,
      },
    );
  }
}

export const cfg = (operation: Operation | null) => ({ config: routeConfig(OPERATOR, { operation }) });

export function send(request: FastifyRequest, reply: FastifyReply, status: number, body: Record<string, unknown>) {
  return sendControlPlane(reply, status, body, operationOf(request));
}

function includeLastEventPayload(request: FastifyRequest): boolean {
  const v = (request.query as Record<string, unknown>).include_last_event_payload;
  return typeof v === "string" && ["1", "true", "yes", "on"].includes(v.toLowerCase());
}

/** The start answer: the command's outcome with the run it started or found. */
function startResponse(r: CommandResult): Record<string, unknown> {
  return {
    workflow_id: r.workflow_id,
    run_id: r.run_id,
    workflow_type: r.workflow_type,
    namespace: r.namespace,
    status: r.status ?? null,
    business_key: r.business_key ?? null,
    payload_codec: r.payload_codec ?? "avro",
    outcome: r.outcome,
    command_id: r.command_id,
    command_status: r.command_status,
    reason: r.reason,
    rejection_reason: r.rejection_reason,
  };
}

function registerListAndStart(scope: FastifyInstance, { engine }: ControlPlaneDeps): void {
  scope.get("/workflows", cfg("list"), async (request, reply) => {
    const q = parseInput(listQuery, request.query);
    const body = listWorkflows(engine.db, {
      namespace: namespaceOf(request),
      status: q.status,
      workflowType: q.workflow_type,
      query: q.query,
      pageSize: q.page_size ?? 50,
      pageToken: q.next_page_token,
    });
    return send(request, reply, 200, body);
  });

  scope.post("/workflows", cfg("start"), async (request, reply) => {
    const b = parseInput(startBody, request.body);
    const r = engine.startWorkflow({
      namespace: namespaceOf(request),
      workflow_id: b.workflow_id,
      workflow_type: b.workflow_type,
      task_queue: b.task_queue ?? "default",
      input: toEnvelope(b.input),
      business_key: b.business_key ?? null,
      memo: b.memo ?? null,
      search_attributes: b.search_attributes ?? null,
      execution_timeout_seconds: b.execution_timeout_seconds ?? null,
      run_timeout_seconds: b.run_timeout_seconds ?? null,
      duplicate_policy: b.duplicate_policy,
      request: commandRequest(request),
    });
    const status = r.outcome === "started_new" ? 201 : r.outcome === "returned_existing_active" ? 200 : 409;
    return send(request, reply, status, startResponse(r));
  });
}

/** Describe, runs, describe-run and debug: reads of the instance's current run or a named run. */
function registerDescribeRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  scope.get<IdParams>("/workflows/:id", cfg("describe"), async (request, reply) => {
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    return send(request, reply, 200, describeRun(engine.db, currentOr404(deps, instance), instance, decodePayload));
  });

  scope.get<IdParams>("/workflows/:id/runs", cfg("list_runs"), async (request, reply) => {
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    return send(request, reply, 200, listRuns(engine.db, instance));
  });

  scope.get<RunParams>("/workflows/:id/runs/:runId", cfg("describe_run"), async (request, reply) => {
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    return send(
      request,
      reply,
      200,
      describeRun(engine.db, runOr404(deps, instance, request.params.runId), instance, decodePayload),
    );
  });

  const debug = (request: FastifyRequest, run: RunRow) =>
    debugRun(engine.db, run, engine.clock.now(), { includeLastEventPayload: includeLastEventPayload(request) });

  scope.get<IdParams>("/workflows/:id/debug", cfg("debug_workflow"), async (request, reply) => {
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    return send(request, reply, 200, debug(request, currentOr404(deps, instance)));
  });

  scope.get<RunParams>("/workflows/:id/runs/:runId/debug", cfg("debug_workflow"), async (request, reply) => {
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    return send(request, reply, 200, debug(request, runOr404(deps, instance, request.params.runId)));
  });
}

/** History pages (long-polling for new events when asked) and the streamed export bundle. */
function registerHistoryRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  scope.get<RunParams>("/workflows/:id/runs/:runId/history", cfg("history"), async (request, reply) => {
    const q = parseInput(historyQuery, request.query);
    const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
    const run = runOr404(deps, instance, request.params.runId);
    const gone = new AbortController();
    reply.raw.on("close", () => gone.abort());
    const page = await historyPage(
      engine.db,
      engine.notifier,
      {
        runId: run.id,
        pageSize: q.page_size ?? 100,
        pageToken: q.next_page_token ?? null,
        waitNewEvent: q.wait_new_event === "1",
      },
      deps.historyPollTimeoutMs,
      AbortSignal.any([gone.signal, deps.shutdown]),
    );
    return send(request, reply, 200, { workflow_id: instance.id, run_id: run.id, ...page });
  });

  scope.get<RunParams>(
    "/workflows/:id/runs/:runId/history/export",
    { config: routeConfig(OPERATOR) },
    async (request, reply) => {
      const instance = instanceOr404(deps, namespaceOf(request), request.params.id);
      const run = runOr404(deps, instance, request.params.runId);
      // Built from a snapshot in time slices and streamed: a long run's bundle is too big to build in one go.
      const gone = new AbortController();
      reply.raw.on("close", () => gone.abort());
      const ref = { namespace: instance.namespace, workflowId: instance.id, runId: run.id };
      let bundle: Record<string, unknown>;
      try {
        bundle = await exportRunSliced(
          engine.db,
          ref,
          engine.clock.now(),
          deps.exportSigning,
          AbortSignal.any([gone.signal, deps.shutdown]),
        );
      } catch (e) {
        // The client left while the bundle was built: nobody to answer.
        if (gone.signal.aborted) return reply;
        throw e;
      }
      return reply
        .code(200)
        .header(CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION)
        .header("content-type", "application/json; charset=utf-8")
        .send(jsonStream(bundle));
    },
  );
}

/** The control plane's workflow reads, history and export, and start (the other commands: workflow-command-routes.ts). */
export function registerWorkflowRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  registerListAndStart(scope, deps);
  registerDescribeRoutes(scope, deps);
  registerHistoryRoutes(scope, deps);
}
