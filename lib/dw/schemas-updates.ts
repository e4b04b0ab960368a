import * as z from "zod";
import { optionalInt, optionalString, optionalTimestamp, payloadEnvelopeSchema } from "./schema-kit";
import { commandResponseSchema } from "./schemas-workflows";

/**
 * The answer to `POST /workflows/{id}[/runs/{runId}]/update/{name}`: the command body of
 * `CommandResponse::payload` for an `UpdateResult` (durable-workflow/workflow
 * src/V2/Support/CommandResponse.php@8dc90d64, merged by `DefaultWorkflowControlPlane::update`)
 * after durable-workflow/server `ControlPlaneResultMapper::update@11d35b7`. Its status: 202 accepted
 * (or a completion wait that timed out), 200 completed, 422 a failed handler, 409 a refusal
 * (`run_not_active`), 404 an update the run does not declare. Shapes: lib/dw/fixtures/update-*.json.
 */
export const updateResponseSchema = commandResponseSchema.extend({
  update_id: optionalString,
  update_name: optionalString,
  /** `UpdateStatus`: accepted | rejected | completed | failed. */
  update_status: optionalString,
  workflow_sequence: optionalInt,
  result: z.unknown().optional(),
  result_envelope: payloadEnvelopeSchema.nullish(),
  failure_id: optionalString,
  failure_message: optionalString,
  accepted_at: optionalTimestamp,
  applied_at: optionalTimestamp,
  rejected_at: optionalTimestamp,
  closed_at: optionalTimestamp,
  wait_for: optionalString,
  wait_timed_out: z.boolean().nullish(),
  wait_timeout_seconds: optionalInt,
});
export type UpdateResponse = z.infer<typeof updateResponseSchema>;
