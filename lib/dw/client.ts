import type { z } from "zod";
import { historyExportSchema } from "./schemas-export";
import {
  clusterInfoSchema,
  healthSchema,
  namespaceListSchema,
  readySchema,
  taskQueueDetailSchema,
  taskQueueListSchema,
  workerListSchema,
  workerSchema,
} from "./schemas-fleet";
import {
  activityTimeoutPassReportSchema,
  activityTimeoutStatusSchema,
  operatorMetricsResponseSchema,
  repairPassReportSchema,
  repairStatusSchema,
  systemMetricsSchema,
} from "./schemas-system";
import {
  commandResponseSchema,
  historyPageSchema,
  runDescriptionSchema,
  runListSchema,
  startResponseSchema,
  workflowDebugSchema,
  workflowListSchema,
} from "./schemas-workflows";
import { workflowQueryRequestSchema, workflowQueryResultSchema } from "./schemas-query";
import { createDwClientWith } from "./transport";
import type { Decoded, Decoder, DwClient, DwClientOptions, DwDecoders } from "./transport";

export * from "./transport";
export { errorFromResponse } from "./errors";

/** `$.a[0].b` for the first issue, so a malformed response names the field that broke. */
export function issuePathOf(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "$";
  return issue.path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}.${String(key)}`),
    "$",
  );
}

/** Validates with a zod schema; a failure names the first offending field. */
export function zodDecoder<S extends z.ZodType>(schema: S): Decoder<z.infer<S>> {
  return (json): Decoded<z.infer<S>> => {
    const result = schema.safeParse(json);
    if (result.success) return { ok: true, value: result.data };
    const issue = result.error.issues[0];
    return { ok: false, issuePath: issuePathOf(issue), message: issue?.message ?? "invalid", cause: result.error };
  };
}

/** Every response shape checked against its zod schema (server-api.md §1–§7). */
export const SCHEMA_DECODERS: DwDecoders = {
  health: zodDecoder(healthSchema),
  ready: zodDecoder(readySchema),
  clusterInfo: zodDecoder(clusterInfoSchema),
  namespaceList: zodDecoder(namespaceListSchema),
  workflowList: zodDecoder(workflowListSchema),
  runDescription: zodDecoder(runDescriptionSchema),
  runList: zodDecoder(runListSchema),
  workflowDebug: zodDecoder(workflowDebugSchema),
  historyPage: zodDecoder(historyPageSchema),
  historyExport: zodDecoder(historyExportSchema),
  startResponse: zodDecoder(startResponseSchema),
  commandResponse: zodDecoder(commandResponseSchema),
  operatorMetrics: zodDecoder(operatorMetricsResponseSchema),
  systemMetrics: zodDecoder(systemMetricsSchema),
  repairStatus: zodDecoder(repairStatusSchema),
  repairPassReport: zodDecoder(repairPassReportSchema),
  activityTimeoutStatus: zodDecoder(activityTimeoutStatusSchema),
  activityTimeoutPassReport: zodDecoder(activityTimeoutPassReportSchema),
  workerList: zodDecoder(workerListSchema),
  worker: zodDecoder(workerSchema),
  taskQueueList: zodDecoder(taskQueueListSchema),
  taskQueueDetail: zodDecoder(taskQueueDetailSchema),
  workflowQueryResult: zodDecoder(workflowQueryResultSchema),
};

/** The body schema of each POST that reads (endpoints.ts `request`), checked before it is forwarded. */
export const REQUEST_SCHEMAS = {
  workflowQuery: zodDecoder(workflowQueryRequestSchema),
} as const;

/** The client that validates every response body: for code that talks to the server directly. */
export function createDwClient(options: DwClientOptions): DwClient {
  return createDwClientWith(SCHEMA_DECODERS, options);
}
