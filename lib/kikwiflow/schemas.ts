import * as z from "zod";
import type { Open } from "../dw/enums";
import { openEnum, timestamp } from "../dw/schema-kit";

/**
 * Response shapes of Kikwiflow's management REST (`kikwiflow.rest.base-path`, default
 * `/kikwiflow/api/v1`), read from the engine's source at atoxfy/kikwiflow@3b62f35. Open schemas, like
 * lib/dw: unknown fields survive (`z.looseObject`) and enum positions accept new members, so a newer
 * engine degrades to "unknown value" instead of a malformed response. Jackson writes every record
 * component, nulls included, so nullable fields are `nullish()`. Browser-safe: zod only.
 */

// In a zod-free module, so the instances screen can offer them without bundling zod.
export { PROCESS_INSTANCE_STATUSES } from "./statuses";
import { PROCESS_INSTANCE_STATUSES } from "./statuses";
export type ProcessInstanceStatus = Open<(typeof PROCESS_INSTANCE_STATUSES)[number]>;

/** kikwi-model/src/main/java/io/kikwiflow/model/execution/enumerated/ExecutableTaskStatus.java@3b62f35 */
export const EXECUTABLE_TASK_STATUSES = ["PENDING", "EXECUTING", "LOCKED", "AWAITING_BRANCHES", "ERROR"] as const;
export type ExecutableTaskStatus = Open<(typeof EXECUTABLE_TASK_STATUSES)[number]>;

export const INCIDENT_STATUSES = ["OPEN", "RESOLVED"] as const;
export type IncidentStatus = Open<(typeof INCIDENT_STATUSES)[number]>;

/**
 * Incident types the core opens (kikwi-core/.../execution/FailureHandler.java@3b62f35): FAILED_JOB for
 * exhausted retries and configured fatal exceptions alike, UNHANDLED_BUSINESS_ERROR for a
 * ProcessErrorException no boundary handler caught.
 */
export const INCIDENT_TYPES = ["FAILED_JOB", "UNHANDLED_BUSINESS_ERROR"] as const;
export type IncidentType = Open<(typeof INCIDENT_TYPES)[number]>;

export const RETRY_STRATEGIES = ["LINEAR", "EXPONENTIAL_BACKOFF"] as const;
export type RetryStrategy = Open<(typeof RETRY_STRATEGIES)[number]>;

/** kikwi-model/src/main/java/io/kikwiflow/model/event/CriticalEventType.java@3b62f35 */
export const CRITICAL_EVENT_TYPES = [
  "FLOW_NODE_FINISHED",
  "GATEWAY_ANSWER_RESOLVED",
  "PROCESS_INSTANCE_FINISHED",
  "PROCESS_INSTANCE_STARTED",
  "INCIDENT_CREATED",
  "INCIDENT_RESOLVED",
  "EXTERNAL_TASK_CLAIMED",
  "EXTERNAL_TASK_UNCLAIMED",
  "EXTERNAL_TASK_COMPLETED",
  "RETRY_SCHEDULED",
  "PROCESS_VARIABLE_CHANGED",
  "TIMER_FIRED",
  "ORPHANED_CHILD_COMPLETION",
] as const;
export type CriticalEventType = Open<(typeof CRITICAL_EVENT_TYPES)[number]>;

const str = z.string().nullish();
const instant = timestamp.nullish();
/** Java `Long`/`Integer` components. */
const count = z.number().int().nullish();

/** `{code, message}` of KikwiflowExceptionHandler (kikwi-management-rest/.../exception/KikwiflowExceptionHandler.java@3b62f35). */
export const errorBodySchema = z.looseObject({ code: z.string(), message: z.string().nullish() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** kikwi-model/.../execution/ProcessVariable.java@3b62f35 — `isTransient` keeps its Java name on the wire. */
export const processVariableSchema = z.looseObject({
  name: str,
  isTransient: z.boolean().nullish(),
  value: z.unknown(),
});
export type ProcessVariable = z.infer<typeof processVariableSchema>;

/** The components ProcessInstance and its search row, ProcessInstanceSummary, both carry. */
const processInstanceSummaryShape = {
  id: z.string(),
  businessKey: str,
  status: openEnum(PROCESS_INSTANCE_STATUSES),
  processDefinitionId: z.string(),
  startedAt: instant,
  endedAt: instant,
  /** Node id → tokens currently there (0 once a node is left). */
  activeNodes: z.record(z.string(), z.number().int()).nullish(),
  parentInstanceId: str,
  callerTaskId: str,
  callerBranchId: str,
};

/** kikwi-model/.../execution/ProcessInstance.java@3b62f35 */
export const processInstanceSchema = z.looseObject({
  ...processInstanceSummaryShape,
  businessValue: z.number().nullish(),
  tenantId: str,
  variables: z.record(z.string(), processVariableSchema).nullish(),
  origin: str,
  version: z.number().int().nullish(),
});
export type ProcessInstance = z.infer<typeof processInstanceSchema>;

/** kikwi-model/.../execution/ProcessInstanceSummary.java@3b62f35 — what search returns per row. */
export const processInstanceSummarySchema = z.looseObject(processInstanceSummaryShape);
export type ProcessInstanceSummary = z.infer<typeof processInstanceSummarySchema>;

/** kikwi-model/.../shared/PageResult.java@3b62f35; `page` is 0-based. */
export const processInstancePageSchema = z.looseObject({
  content: z.array(processInstanceSummarySchema),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
});
export type ProcessInstancePage = z.infer<typeof processInstancePageSchema>;

/**
 * kikwi-model/.../definition/process/policies/RetryPolicy.java@3b62f35. Durations are ISO-8601
 * (`PT0.3S`). LINEAR reads `intervals` (the last one reused); EXPONENTIAL_BACKOFF reads
 * `initialInterval` × `multiplier` (default 2.0) ^ executions, capped by `maxInterval`
 * (kikwi-core/.../execution/policy/DefaultRetryPolicyEvaluator.java@3b62f35). `maxRetries` counts
 * total executions.
 */
export const retryPolicySchema = z.looseObject({
  strategy: openEnum(RETRY_STRATEGIES).nullish(),
  maxRetries: z.number().int(),
  initialInterval: str,
  multiplier: z.number().nullish(),
  maxInterval: str,
  intervals: z.array(z.string()).nullish(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** kikwi-model/.../execution/node/ExecutableTask.java@3b62f35 */
export const executableTaskSchema = z.looseObject({
  id: z.string(),
  taskDefinitionId: str,
  name: str,
  description: str,
  processDefinitionId: str,
  processInstanceId: str,
  createdAt: instant,
  /** Executions so far. */
  executions: count,
  /** Retries left; 0 once an incident is open. */
  retries: count,
  /** Message of the last failure (root cause); cleared by retry-incident. */
  error: str,
  status: openEnum(EXECUTABLE_TASK_STATUSES),
  executorId: str,
  acquiredAt: instant,
  /** When the task is next due (the retry's schedule); null after an incident opened at once. */
  dueDate: instant,
  type: str,
  branchId: str,
  retryPolicy: retryPolicySchema.nullish(),
});
export type ExecutableTask = z.infer<typeof executableTaskSchema>;

/** kikwi-model/.../execution/node/ExternalTask.java@3b62f35 (the fields the console reads). */
export const externalTaskSchema = z.looseObject({
  id: z.string(),
  name: str,
  taskDefinitionId: str,
  processInstanceId: str,
  status: str,
  createdAt: instant,
  assignee: str,
  tenantId: str,
});
export type ExternalTask = z.infer<typeof externalTaskSchema>;

/** What an incident says of the failure, in the Incident record and in its INCIDENT_CREATED event alike. */
const incidentFactsShape = {
  type: openEnum(INCIDENT_TYPES),
  message: str,
  /** The failed ExecutableTask's id. */
  executionId: str,
  taskDefinitionId: str,
  createdAt: instant,
};

/** kikwi-model/.../execution/Incident.java@3b62f35 */
export const incidentSchema = z.looseObject({
  id: z.string(),
  ...incidentFactsShape,
  stackTrace: str,
  processDefinitionId: str,
  processInstanceId: str,
  status: openEnum(INCIDENT_STATUSES),
});
export type Incident = z.infer<typeof incidentSchema>;

/** kikwi-management-rest/.../dtos/KKFEventCatcherWaitStatus.java@3b62f35 */
export const eventCatcherWaitStatusSchema = z.looseObject({
  taskDefinitionId: str,
  externalTaskId: str,
  matchPolicy: str,
  totalCorrelationKeys: count,
  receivedCount: count,
  pendingCorrelationKeys: z.array(z.string()).nullish(),
});

/** kikwi-management-rest/.../dtos/ProcessInstanceSnapshot.java@3b62f35 */
export const processInstanceSnapshotSchema = z.looseObject({
  instance: processInstanceSchema,
  executableTasks: z.array(executableTaskSchema),
  externalTasks: z.array(externalTaskSchema),
  incidents: z.array(incidentSchema),
  eventCatcherWaitStatus: z.array(eventCatcherWaitStatusSchema).nullish(),
});
export type ProcessInstanceSnapshot = z.infer<typeof processInstanceSnapshotSchema>;

/**
 * kikwi-model/.../event/HistoryEventSummary.java@3b62f35: one outbox event, common fields promoted,
 * the polymorphic payload kept whole (read a known one with {@link retryScheduledPayloadSchema}).
 */
export const historyEventSchema = z.looseObject({
  id: z.string(),
  eventType: openEnum(CRITICAL_EVENT_TYPES),
  processInstanceId: str,
  processDefinitionId: str,
  tenantId: str,
  actorId: str,
  timestamp: instant,
  payload: z.looseObject({}).nullish(),
});
export type HistoryEvent = z.infer<typeof historyEventSchema>;
export const historyEventListSchema = z.array(historyEventSchema);

/** kikwi-model/.../event/RetryScheduled.java@3b62f35 */
export const retryScheduledPayloadSchema = z.looseObject({
  executableTaskId: str,
  taskDefinitionId: str,
  executionsSoFar: z.number().int(),
  retriesLeft: z.number().int(),
  nextDueDate: instant,
  errorMessage: str,
  scheduledAt: instant,
});
export type RetryScheduledPayload = z.infer<typeof retryScheduledPayloadSchema>;

/**
 * kikwi-model/.../event/FlowNodeFinished.java@3b62f35: one per node left. On a failed execution
 * `nodeExecutionStatus` is ERROR and the error fields are set (CriticalEventRecorder.recordFlowNodeFinished:
 * the exception's class, message and the stack trace as FailureHandler.getStackTrace writes it).
 */
export const flowNodeFinishedPayloadSchema = z.looseObject({
  flowNodeDefinitionId: str,
  flowNodeType: str,
  flowNodeName: str,
  startedAt: instant,
  finishedAt: instant,
  nodeExecutionStatus: str,
  interruptedByNodeDefinitionId: str,
  errorType: str,
  errorMessage: str,
  errorStackTrace: str,
});
export type FlowNodeFinishedPayload = z.infer<typeof flowNodeFinishedPayloadSchema>;

/** kikwi-model/.../event/IncidentCreated.java@3b62f35 */
export const incidentCreatedPayloadSchema = z.looseObject({ incidentId: z.string(), ...incidentFactsShape });
export type IncidentCreatedPayload = z.infer<typeof incidentCreatedPayloadSchema>;

/**
 * kikwi-model/.../stats/KKFMetrics.java@3b62f35 — all the engine counts per node. `running` is every
 * ExecutableTask (ERROR included) or uncorrelated ExternalTask now on the node, `fail` those in ERROR,
 * `sla` a percentage (the in-memory store always writes 100.0); there is no completed count
 * (InMemoryKikwiEngineRepository.getMetricsByNodeForProcessDefinition@3b62f35).
 */
export const metricsSchema = z.looseObject({
  running: count,
  sla: z.number().nullish(),
  fail: count,
});
export type PulseMetrics = z.infer<typeof metricsSchema>;

/** kikwi-model/.../definition/process/elements/LayoutCoordinates (x, y of the modeler). */
export const layoutSchema = z.looseObject({ x: z.number().nullish(), y: z.number().nullish() });

/** kikwi-model/.../elements/SequenceFlowDefinition.java@3b62f35 — one outgoing edge of a node. */
export const sequenceFlowSchema = z.looseObject({
  id: str,
  name: str,
  description: str,
  /** The gateway answer that takes this edge (EXCLUSIVE_GATEWAY). */
  expectedAnswer: str,
  targetNodeId: z.string(),
  isDefault: z.boolean().nullish(),
  handlesNull: z.boolean().nullish(),
});
export type SequenceFlow = z.infer<typeof sequenceFlowSchema>;

/**
 * A flow node of a definition: the FlowNodeDefinition interface's components plus what the task
 * subtypes add (ExecutableTaskDefinition: executor, boundaryEventIds, retryPolicy). `type` is the
 * Jackson type id (FlowNodeDefinitionMixin@3b62f35: EXECUTABLE_TASK, EXTERNAL_TASK, …), kept open.
 */
const flowNodeShape = {
  id: z.string(),
  name: str,
  type: str,
  description: str,
  commitBefore: z.boolean().nullish(),
  commitAfter: z.boolean().nullish(),
  outgoing: z.array(sequenceFlowSchema).nullish(),
  layout: layoutSchema.nullish(),
  executor: str,
  boundaryEventIds: z.array(z.string()).nullish(),
  retryPolicy: retryPolicySchema.nullish(),
};
export const flowNodeSchema = z.looseObject(flowNodeShape);
export type FlowNode = z.infer<typeof flowNodeSchema>;

/**
 * A node of the pulse snapshot (KKFFlowNodeDefinition and its subtypes): the definition's node plus
 * `metrics`, which StatsService@3b62f35 sets only on EXECUTABLE_TASK, EXTERNAL_TASK, EVENT_CATCHER,
 * CALL_ACTIVITY_COORDINATOR and TIMER_TASK nodes.
 */
export const pulseFlowNodeSchema = z.looseObject({ ...flowNodeShape, metrics: metricsSchema.nullish() });
export type PulseFlowNode = z.infer<typeof pulseFlowNodeSchema>;

/** kikwi-management-rest/.../dtos/KKFProcessStats.java@3b62f35 — `GET /pulse/process-definition/{id}/snapshot`. */
export const pulseSnapshotSchema = z.looseObject({
  id: z.string(),
  key: str,
  name: str,
  description: str,
  sla: str,
  metrics: metricsSchema.nullish(),
  checksum: str,
  flowNodes: z.record(z.string(), pulseFlowNodeSchema).nullish(),
  defaultStartPoint: str,
});
export type PulseSnapshot = z.infer<typeof pulseSnapshotSchema>;

/** kikwi-model/.../definition/process/ProcessDefinition.java@3b62f35 (`flowNodes` is never null there). */
export const processDefinitionSchema = z.looseObject({
  id: z.string(),
  key: z.string(),
  name: str,
  version: z.number().int().nullish(),
  description: str,
  sla: str,
  checksum: str,
  flowNodes: z.record(z.string(), flowNodeSchema).nullish(),
  defaultStartPoint: str,
});
export type ProcessDefinition = z.infer<typeof processDefinitionSchema>;
