/**
 * The commands a workflow task completion may carry: one zod schema per command of the worker
 * protocol, and the validation that answers every problem of a completion at once.
 */
import { z } from "zod";
import { MAX_DURATION_SECONDS, scheduleActivitySchema } from "./activities";
import { validationError } from "./errors";

export const envelopeSchema = z.object({ codec: z.string().min(1), blob: z.string() });

const positiveInt = z.number().int().min(1).max(MAX_DURATION_SECONDS);

const commandSchemas = z.discriminatedUnion("type", [
  scheduleActivitySchema,
  z.object({ type: z.literal("start_timer"), delay_seconds: z.number().int().min(0).max(MAX_DURATION_SECONDS) }),
  z.object({
    type: z.literal("start_child_workflow"),
    workflow_type: z.string().min(1),
    workflow_id: z
      .string()
      .regex(/^[a-zA-Z0-9._:-]+$/)
      .max(128)
      .nullish(),
    arguments: envelopeSchema.nullish(),
    task_queue: z.string().min(1).nullish(),
    queue: z.string().min(1).nullish(),
    execution_timeout_seconds: positiveInt.nullish(),
    run_timeout_seconds: positiveInt.nullish(),
    parent_close_policy: z.enum(["abandon", "request_cancel", "terminate"]).nullish(),
  }),
  z.object({
    type: z.literal("open_signal_wait"),
    signal_name: z.string().min(1).max(256),
    timeout_seconds: positiveInt.nullish(),
  }),
  z.object({
    type: z.literal("open_condition_wait"),
    condition_key: z.string().min(1).max(256).nullish(),
    condition_definition_fingerprint: z.string().min(1).max(256).nullish(),
    // The bridge accepts 0 (a wait with no timer), as DefaultWorkflowTaskBridge::applyOpenConditionWait does.
    timeout_seconds: z.number().int().min(0).max(MAX_DURATION_SECONDS).nullish(),
  }),
  // record_side_effect / record_version_marker: non-terminal commands of the engine's protocol
  // (WorkerProtocolVersion::nonTerminalCommandTypes, src/V2/Support/WorkerProtocolVersion.php@8dc90d64),
  // which sdk-python sends for ctx.side_effect / ctx.get_version / ctx.patched. The result is the
  // serialised blob, or an envelope whose codec names it (DefaultWorkflowTaskBridge.php
  // `normalizeRecordSideEffectCommand`).
  z.object({
    type: z.literal("record_side_effect"),
    result: z.union([z.string().min(1), envelopeSchema]),
    payload_codec: z.string().min(1).nullish(),
  }),
  z
    .object({
      type: z.literal("record_version_marker"),
      change_id: z.string().min(1).max(255),
      version: z.number().int(),
      min_supported: z.number().int(),
      max_supported: z.number().int(),
    })
    .refine((c) => c.min_supported <= c.max_supported && c.version >= c.min_supported && c.version <= c.max_supported, {
      message: "version must lie within [min_supported, max_supported].",
      path: ["version"],
    }),
  // upsert_search_attributes (protocol 1.8, WorkerProtocolVersion::upsertSearchAttributesCommandShape@8dc90d64):
  // scalar, keyword-list or null (delete) values; limits of cluster/info `limits`.
  z.object({
    type: z.literal("upsert_search_attributes"),
    attributes: z
      .record(
        z.string().min(1).max(128),
        z.union([z.string().max(2048), z.number(), z.boolean(), z.null(), z.array(z.string().max(2048)).max(100)]),
      )
      .refine((a) => Object.keys(a).length >= 1 && Object.keys(a).length <= 100, {
        message: "attributes must name 1 to 100 search attributes.",
      }),
    attribute_types: z.record(z.string(), z.string()).nullish(),
  }),
  // complete_update / fail_update (WorkflowTaskBridge.php@8dc90d64): the answer to the task's
  // `workflow_update_id`; a result is a serialised blob or an envelope, as for side effects.
  z.object({
    type: z.literal("complete_update"),
    update_id: z.string().min(1),
    result: z.union([z.string(), envelopeSchema]).nullish(),
    payload_codec: z.string().min(1).nullish(),
  }),
  z.object({
    type: z.literal("fail_update"),
    update_id: z.string().min(1),
    message: z.string().min(1),
    exception_class: z.string().nullish(),
    exception_type: z.string().nullish(),
    non_retryable: z.boolean().nullish(),
  }),
  z.object({ type: z.literal("complete_workflow"), result: envelopeSchema.nullish() }),
  z.object({
    type: z.literal("fail_workflow"),
    message: z.string().min(1),
    exception_class: z.string().nullish(),
    exception_type: z.string().nullish(),
    non_retryable: z.boolean().nullish(),
    stack_trace: z.string().nullish(),
    // Protocol 1.10: the worker's structured failure, preserved in WorkflowFailed.exception
    // (WorkerProtocolVersion::failWorkflowCommandShape, src/V2/Support/WorkerProtocolVersion.php@8dc90d64).
    exception: z.record(z.string(), z.unknown()).nullish(),
  }),
  z.object({
    type: z.literal("continue_as_new"),
    arguments: envelopeSchema.nullish(),
    workflow_type: z.string().min(1).nullish(),
    task_queue: z.string().min(1).nullish(),
  }),
]);

export type WorkflowTaskCommand = z.infer<typeof commandSchemas>;

export const SUPPORTED_WORKFLOW_TASK_COMMANDS = [
  "complete_workflow",
  "fail_workflow",
  "continue_as_new",
  "schedule_activity",
  "start_timer",
  "start_child_workflow",
  "open_signal_wait",
  "open_condition_wait",
  "record_side_effect",
  "record_version_marker",
  "upsert_search_attributes",
  "complete_update",
  "fail_update",
] as const;

export const TERMINAL_COMMANDS: ReadonlySet<string> = new Set([
  "complete_workflow",
  "fail_workflow",
  "continue_as_new",
]);

/** Validates the `commands` array of a completion; every problem is a 422 `validation_failed`. */
export function parseCommands(raw: unknown): WorkflowTaskCommand[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw validationError({ commands: ["The commands field is required and must contain at least one command."] });
  const errors: Record<string, string[]> = {};
  const out: WorkflowTaskCommand[] = [];
  raw.forEach((c: unknown, i) => {
    const obj = typeof c === "object" && c !== null ? (c as Record<string, unknown>) : {};
    if ("non_retryable" in obj && obj.type !== "fail_workflow" && obj.type !== "fail_update") {
      errors[`commands.${i}.non_retryable`] = [
        "non_retryable is only supported for fail_workflow and fail_update commands.",
      ];
      return;
    }
    const parsed = commandSchemas.safeParse(c);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = ["commands", i, ...issue.path].join(".");
        errors[key] = [
          ...(errors[key] ?? []),
          issue.code === "invalid_union"
            ? `The commands.${i}.type is not a supported workflow task command.`
            : issue.message,
        ];
      }
      return;
    }
    if (TERMINAL_COMMANDS.has(parsed.data.type) && i !== raw.length - 1) {
      errors[`commands.${i}.type`] = [`The ${parsed.data.type} command must be the last command of a completion.`];
      return;
    }
    out.push(parsed.data);
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return out;
}
