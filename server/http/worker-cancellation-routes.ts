import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Engine } from "../engine";
import { EngineError } from "../engine";
import { activityTaskStatus, deliverCancellation } from "../engine/cooperative-cancellation";
import { leasedWorkflowTask } from "../engine/workflow-tasks";
import { parse } from "./worker-request";
import { sendWorker, splitProtocolVersion, WORKER_PROTOCOL_HEADER } from "./worker-protocol";

/**
 * `POST /worker/workflow-tasks/{id}/deliver-cancellation`: the lease holder records the authored call
 * at which its workflow sees the run's cancellation request (sdk-python 2.12.0 client.py
 * `deliver_workflow_cancellation`; the rules are cooperative-cancellation.ts `deliverCancellation`).
 * Protocol 1.20 only, as the request and its delivery are 1.20's. And `POST /worker/activity-tasks/{id}/status`,
 * the read-only claim observation a cooperative worker makes around every activity it runs.
 */

const positive = z.number().int().min(1);
const deliverySchema = z
  .object({
    lease_owner: z.string().min(1),
    workflow_task_attempt: positive,
    request_id: z.string().min(1),
    sequence: positive,
    call_kind: z.string().min(1),
    sequence_span: positive.max(1000).nullish(),
    operation_sequence: positive.nullish(),
    operation_sequence_span: positive.max(1000).nullish(),
  })
  .strict();

function speaks120(header: string | string[] | undefined): boolean {
  const version = splitProtocolVersion(typeof header === "string" ? header : "");
  return version !== null && version[0] === 1 && version[1] >= 20;
}

const statusSchema = z.object({ activity_attempt_id: z.string().min(1), lease_owner: z.string().min(1).optional() });

export function registerCancellationDeliveryRoute(scope: FastifyInstance, engine: Engine): void {
  scope.post<{ Params: { id: string } }>("/activity-tasks/:id/status", async (request, reply) => {
    const body = parse(statusSchema, request.body);
    const answer = engine.transaction((tx) =>
      activityTaskStatus(tx, request.params.id, body.activity_attempt_id, body.lease_owner),
    );
    return sendWorker(reply, 200, answer);
  });

  scope.post<{ Params: { id: string } }>("/workflow-tasks/:id/deliver-cancellation", async (request, reply) => {
    if (!speaks120(request.headers[WORKER_PROTOCOL_HEADER.toLowerCase()])) {
      throw new EngineError(
        409,
        "cooperative_cancellation_not_supported",
        "Cancellation delivery needs worker protocol 1.20.",
      );
    }
    const body = parse(deliverySchema, request.body);
    const answer = engine.transaction((tx) => {
      const { task, run } = leasedWorkflowTask(tx, request.params.id, body.lease_owner, body.workflow_task_attempt);
      return deliverCancellation(tx, task, run, {
        request_id: body.request_id,
        sequence: body.sequence,
        call_kind: body.call_kind,
        sequence_span: body.sequence_span ?? 1,
        operation_sequence: body.operation_sequence ?? null,
        operation_sequence_span: body.operation_sequence_span ?? 1,
      });
    });
    return sendWorker(reply, 200, answer);
  });
}
