/**
 * Breakwater's TypeScript worker SDK for the Durable Workflow worker protocol 1.19 (HTTP only).
 * Workflows are generator functions replayed from history; activities are async functions.
 */
export {
  defineWorkflow,
  WorkflowContext,
  ActivityFailure,
  ChildWorkflowFailure,
  TimerCancelled,
  NonDeterminismError,
  InvalidYieldError,
  ContinueAsNew,
} from "./workflow";
export type {
  ActivityOptions,
  ActivityTimeouts,
  ChildWorkflowOptions,
  WorkflowDefinition,
  WorkflowInfo,
  WorkflowGenerator,
  WorkflowCommandContract,
  Operation,
  QueryHandler,
  UpdateHandler,
} from "./workflow";
export { defineActivity, NonRetryableError, ApplicationError } from "./activity";
export type { ActivityContext, ActivityDefinition, HeartbeatProgress } from "./activity";
export { Worker } from "./worker";
export type { WorkerOptions, WorkerStats } from "./worker";
export { WorkerClient, WorkerProtocolError } from "./client";
export { encodePayload, decodePayload, encodeBlob, decodeBlob, PayloadCodecError } from "../codec/codec";
export type { PayloadEnvelope, PayloadValue } from "../codec/codec";
export { replayWorkflow } from "./replay";
