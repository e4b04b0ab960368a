import { cancellationReceiptSchema } from "./schemas-cancellation";
import { historyExportSchema } from "./schemas-export";
import {
  clusterInfoSchema,
  healthSchema,
  namespaceListSchema,
  readySchema,
  taskQueueDetailSchema,
  taskQueueListSchema,
  workerListSchema,
  workerRemovedSchema,
  workerSchema,
} from "./schemas-fleet";
import {
  namespaceAnswerSchema,
  namespaceDeletedSchema,
  retentionPassReportSchema,
  retentionStatusSchema,
} from "./schemas-namespaces";
import { workflowQueryResultSchema } from "./schemas-query";
import { searchAttributeAnswerSchema, searchAttributeListSchema } from "./schemas-search-attributes";
import { buildIdRolloutStateSchema, deploymentListSchema, taskQueueBuildIdsSchema } from "./schemas-build-ids";
import { updateResponseSchema } from "./schemas-updates";
import {
  scheduleCommandAnswerSchema,
  scheduleDescriptionSchema,
  scheduleHistorySchema,
  scheduleListSchema,
} from "./schemas-schedules";
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

/**
 * Every answer the client parses, by the decoder name an endpoint entry (endpoints.ts `response`)
 * gives it. The one list: `DwDecoders` (transport.ts) is its type, `SCHEMA_DECODERS` (client.ts) its
 * zod decoders, and the browser's pass-through decoders (prevalidated.ts) cover it without a list.
 */
export const RESPONSE_SCHEMAS = {
  health: healthSchema,
  ready: readySchema,
  clusterInfo: clusterInfoSchema,
  namespaceList: namespaceListSchema,
  workflowList: workflowListSchema,
  runDescription: runDescriptionSchema,
  runList: runListSchema,
  workflowDebug: workflowDebugSchema,
  historyPage: historyPageSchema,
  historyExport: historyExportSchema,
  startResponse: startResponseSchema,
  commandResponse: commandResponseSchema,
  operatorMetrics: operatorMetricsResponseSchema,
  systemMetrics: systemMetricsSchema,
  repairStatus: repairStatusSchema,
  repairPassReport: repairPassReportSchema,
  activityTimeoutStatus: activityTimeoutStatusSchema,
  activityTimeoutPassReport: activityTimeoutPassReportSchema,
  retentionStatus: retentionStatusSchema,
  retentionPassReport: retentionPassReportSchema,
  namespaceAnswer: namespaceAnswerSchema,
  namespaceDeleted: namespaceDeletedSchema,
  workerList: workerListSchema,
  worker: workerSchema,
  workerRemoved: workerRemovedSchema,
  taskQueueList: taskQueueListSchema,
  taskQueueDetail: taskQueueDetailSchema,
  workflowQueryResult: workflowQueryResultSchema,
  updateResponse: updateResponseSchema,
  scheduleList: scheduleListSchema,
  scheduleDescription: scheduleDescriptionSchema,
  scheduleHistory: scheduleHistorySchema,
  scheduleCommandAnswer: scheduleCommandAnswerSchema,
  cancellationReceipt: cancellationReceiptSchema,
  searchAttributeList: searchAttributeListSchema,
  searchAttributeAnswer: searchAttributeAnswerSchema,
  taskQueueBuildIds: taskQueueBuildIdsSchema,
  buildIdRolloutState: buildIdRolloutStateSchema,
  deploymentList: deploymentListSchema,
};
