import { z } from "zod";

/**
 * Wire shapes of the worker plane (`/api/worker/*`, protocol 1.19) as this SDK reads them.
 * Every object is open: servers add fields over time and the SDK must not break on them.
 */

export const PROTOCOL_VERSION = "1.19";

const nullableString = z.string().nullish();

export const historyEventSchema = z
  .object({
    id: z.string().nullish(),
    sequence: z.number().nullish(),
    event_type: z.string(),
    // PHP renders an empty map as []; treat it as an empty object.
    payload: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .nullish()
      .transform((p): Record<string, unknown> => (p && !Array.isArray(p) ? p : {})),
    recorded_at: nullableString,
  })
  .loose();
export type HistoryEvent = z.infer<typeof historyEventSchema>;

export const workflowTaskSchema = z
  .object({
    task_id: z.string(),
    workflow_id: z.string(),
    run_id: z.string(),
    workflow_task_attempt: z.number(),
    workflow_type: z.string(),
    payload_codec: nullableString,
    arguments: z.unknown().nullish(),
    run_status: nullableString,
    history_events: z.array(historyEventSchema).default([]),
    next_history_page_token: nullableString,
    task_queue: nullableString,
    lease_owner: z.string(),
    lease_expires_at: nullableString,
    // Set on a task readied for an accepted update (WorkflowTaskPayload::forUpdate, workflow@8dc90d64):
    // the worker runs that update's handler and answers with complete_update / fail_update.
    workflow_update_id: nullableString,
  })
  .loose();
export type WorkflowTask = z.infer<typeof workflowTaskSchema>;

export const workflowPollResponseSchema = z.object({ task: workflowTaskSchema.nullable() }).loose();

export const historyPageResponseSchema = z
  .object({
    history_events: z.array(historyEventSchema).default([]),
    next_history_page_token: nullableString,
  })
  .loose();

export const activityTaskSchema = z
  .object({
    task_id: z.string(),
    workflow_id: z.string(),
    run_id: z.string(),
    activity_execution_id: z.string(),
    activity_attempt_id: z.string(),
    attempt_number: z.number(),
    activity_type: z.string(),
    payload_codec: nullableString,
    arguments: z.unknown().nullish(),
    retry_policy: z.unknown().nullish(),
    task_queue: nullableString,
    lease_owner: z.string(),
    lease_expires_at: nullableString,
    deadlines: z
      .object({
        schedule_to_start: nullableString,
        start_to_close: nullableString,
        schedule_to_close: nullableString,
        heartbeat: nullableString,
      })
      .loose()
      .nullish(),
  })
  .loose();
export type ActivityTask = z.infer<typeof activityTaskSchema>;

export const activityPollResponseSchema = z.object({ task: activityTaskSchema.nullable() }).loose();

/** A query task (`POST /worker/query-tasks/poll`; server WorkflowQueryTaskBroker `queryTaskPayload`@11d35b7). */
export const queryTaskSchema = z
  .object({
    query_task_id: z.string(),
    query_task_attempt: z.number(),
    workflow_id: z.string(),
    run_id: z.string(),
    workflow_type: z.string(),
    query_name: z.string(),
    payload_codec: nullableString,
    workflow_arguments: z.unknown().nullish(),
    query_arguments: z.unknown().nullish(),
    history_events: z.array(historyEventSchema).default([]),
    task_queue: nullableString,
    lease_owner: z.string(),
  })
  .loose();
export type QueryTask = z.infer<typeof queryTaskSchema>;

export const queryPollResponseSchema = z.object({ task: queryTaskSchema.nullable() }).loose();

/** `{query_task_id, query_task_attempt, outcome}` of a query task's complete or fail. */
export const queryTaskOutcomeResponseSchema = z
  .object({ query_task_id: nullableString, outcome: nullableString, reason: nullableString })
  .loose();

export const registerResponseSchema = z.object({ worker_id: z.string(), registered: z.boolean().optional() }).loose();

export const heartbeatResponseSchema = z
  .object({ worker_id: z.string(), acknowledged: z.boolean().optional() })
  .loose();

export const activityOutcomeResponseSchema = z
  .object({
    task_id: nullableString,
    activity_attempt_id: nullableString,
    outcome: z.string().nullish(),
    recorded: z.boolean().nullish(),
    reason: nullableString,
    next_task_id: nullableString,
  })
  .loose();
export type ActivityOutcomeResponse = z.infer<typeof activityOutcomeResponseSchema>;

export const activityHeartbeatResponseSchema = z
  .object({
    cancel_requested: z.boolean().nullish(),
    can_continue: z.boolean().nullish(),
    reason: nullableString,
    heartbeat_recorded: z.boolean().nullish(),
    lease_expires_at: nullableString,
  })
  .loose();

export const workflowTaskCompleteResponseSchema = z
  .object({
    task_id: nullableString,
    outcome: z.string().nullish(),
    recorded: z.boolean().nullish(),
    run_status: nullableString,
    reason: nullableString,
    created_task_ids: z.array(z.string()).nullish(),
  })
  .loose();

export const errorBodySchema = z
  .object({ error: nullableString, message: nullableString, reason: nullableString })
  .loose();

/** Retry policy as `schedule_activity` / `start_child_workflow` carry it. */
export interface WireRetryPolicy {
  max_attempts?: number | null;
  backoff_seconds?: number[];
  non_retryable_error_types?: string[];
}

export interface PayloadEnvelopeWire {
  codec: string;
  blob: string;
}

export type WorkflowCommand =
  | {
      type: "schedule_activity";
      activity_type: string;
      arguments: PayloadEnvelopeWire;
      queue?: string;
      retry_policy?: WireRetryPolicy;
      start_to_close_timeout?: number;
      schedule_to_start_timeout?: number;
      schedule_to_close_timeout?: number;
      heartbeat_timeout?: number;
    }
  | { type: "start_timer"; delay_seconds: number }
  | {
      type: "start_child_workflow";
      workflow_type: string;
      arguments: PayloadEnvelopeWire;
      workflow_id?: string;
      queue?: string;
      retry_policy?: WireRetryPolicy;
      execution_timeout_seconds?: number;
      run_timeout_seconds?: number;
      parent_close_policy?: "abandon" | "request_cancel" | "terminate";
    }
  | { type: "open_signal_wait"; signal_name: string; timeout_seconds?: number }
  | { type: "complete_workflow"; result: PayloadEnvelopeWire }
  | {
      type: "fail_workflow";
      message: string;
      exception_type?: string;
      exception_class?: string;
      non_retryable?: boolean;
    }
  | { type: "continue_as_new"; arguments: PayloadEnvelopeWire; workflow_type?: string }
  | { type: "complete_update"; update_id: string; result: PayloadEnvelopeWire }
  | {
      type: "fail_update";
      update_id: string;
      message: string;
      exception_type?: string;
      non_retryable?: boolean;
    };
