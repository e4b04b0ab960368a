import * as z from "zod";
import { nullableString, optionalString, timestamp } from "./schema-kit";
import { namespaceSchema } from "./schemas-fleet";

/**
 * Namespace writes and history retention (durable-workflow/server NamespaceController.php@11d35b7 and
 * the newer `destroy`, SystemController::retentionStatus / retentionEnforcePass@11d35b7;
 * lib/dw/fixtures/namespaces-retention.md). Create answers without `updated_at`, update without
 * `created_at`: both are the namespace schema with those optional.
 */

const count = z.number().int();

export const namespaceAnswerSchema = namespaceSchema;
export type NamespaceAnswer = z.infer<typeof namespaceAnswerSchema>;

/** `destroy`: `{name, status: "deleted", deleted: {table: count > 0}}`. */
export const namespaceDeletedSchema = z.looseObject({
  name: z.string(),
  status: z.string(),
  deleted: z.record(z.string(), count).nullish(),
});
export type NamespaceDeleted = z.infer<typeof namespaceDeletedSchema>;

export const retentionStatusSchema = z.looseObject({
  namespace: z.string(),
  retention_days: count,
  cutoff: timestamp,
  expired_run_count: count,
  expired_run_ids: z.array(z.string()),
  scan_limit: count,
  scan_pressure: z.boolean(),
});
export type RetentionStatus = z.infer<typeof retentionStatusSchema>;

export const retentionPassReportSchema = z.looseObject({
  processed: count,
  pruned: count,
  skipped: count,
  failed: count,
  results: z.array(
    z.looseObject({
      run_id: nullableString.optional(),
      outcome: z.string(),
      reason: nullableString.optional(),
      history_events_deleted: count.nullish(),
      tasks_deleted: count.nullish(),
      external_payloads_deleted: count.nullish(),
      status: optionalString,
    }),
  ),
});
export type RetentionPassReport = z.infer<typeof retentionPassReportSchema>;
