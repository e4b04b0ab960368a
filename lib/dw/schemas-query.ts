import * as z from "zod";
import { controlPlaneSchema, payloadEnvelopeSchema } from "./schema-kit";

/**
 * A workflow query (endpoints.ts `queryWorkflow` / `queryRun`): a POST that reads.
 * The body the real server validates is `input: nullable array` (durable-workflow/server
 * app/Http/Controllers/Api/WorkflowController.php@11d35b7 `query`): the arguments as a list, or a
 * `{codec, blob}` envelope (Laravel's `array` rule takes an object too; PayloadEnvelopeResolver reads both).
 */
export const workflowQueryRequestSchema = z.looseObject({
  input: z.union([z.array(z.unknown()), payloadEnvelopeSchema]).nullish(),
});
export type WorkflowQueryRequest = z.infer<typeof workflowQueryRequestSchema>;

/**
 * The answer: the result mapper's canonical payload (app/Support/ControlPlaneResultMapper.php@11d35b7
 * `query`: `workflow_id`, `run_id` when targeted, `query_name`, the `control_plane` envelope) with
 * the handler's value as `result` and its encoded form as `result_envelope` (durable-workflow/cli
 * schemas/output/workflow-query.schema.json@830d26e: `result` is any JSON, `result_envelope`
 * `{codec: "avro", blob}` or null). Open: unknown fields pass. Recorded shapes: lib/dw/fixtures/query-*.json.
 */
export const workflowQueryResultSchema = z.looseObject({
  workflow_id: z.string().nullish(),
  run_id: z.string().nullish(),
  query_name: z.string().nullish(),
  target_scope: z.string().nullish(),
  result: z.unknown(),
  result_envelope: payloadEnvelopeSchema.nullish(),
  control_plane: controlPlaneSchema.optional(),
});
export type WorkflowQueryResult = z.infer<typeof workflowQueryResultSchema>;
