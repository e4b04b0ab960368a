import { decodePayload, encodePayload } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import type { WorkerClient } from "./client";
import { WorkerProtocolError } from "./client";
import {
  activityHeartbeatResponseSchema,
  activityOutcomeResponseSchema,
  historyPageResponseSchema,
  queryTaskOutcomeResponseSchema,
  workflowTaskCompleteResponseSchema,
} from "./protocol";
import type {
  ActivityOutcomeResponse,
  ActivityTask,
  HistoryEvent,
  QueryTask,
  WorkflowCommand,
  WorkflowTask,
} from "./protocol";
import { replayState, replayWorkflow, updateArguments } from "./replay";
import type { ActivityContext, ActivityDefinition, HeartbeatProgress } from "./activity";
import type { WorkflowContext, WorkflowDefinition } from "./workflow";

/**
 * Running one claimed task (workflow, query or activity) and reporting its outcome; the worker
 * (worker.ts) polls for the tasks and hands each to one of these.
 */

export interface WorkerStats {
  workflowTasksCompleted: number;
  workflowTasksFailed: number;
  workflowTasksWithoutProgress: number;
  activitiesCompleted: number;
  activitiesFailed: number;
  staleReports: number;
  queriesAnswered: number;
  queriesFailed: number;
  updatesCompleted: number;
  updatesFailed: number;
}

/** What running a task needs from its worker: the client, the registered code, the counters. */
export interface TaskRunContext {
  readonly client: WorkerClient;
  readonly workerId: string;
  readonly workflows: ReadonlyMap<string, WorkflowDefinition>;
  readonly activities: ReadonlyMap<string, ActivityDefinition>;
  readonly stats: WorkerStats;
  /** The running activities' controllers, aborted by `shutdown({ abortActivities })`. */
  readonly activityAborts: Set<AbortController>;
}

/** A task's argument list: an envelope (a `blob` of null is no arguments) or a bare blob. */
function listPayload(field: unknown, codec: string | null | undefined): PayloadValue[] {
  if (field && typeof field === "object" && (field as { blob?: unknown }).blob === null) return [];
  const decoded = decodePayload(field, codec);
  return Array.isArray(decoded) ? decoded : decoded === null ? [] : [decoded];
}

function errorType(e: Error): string {
  return e.name && e.name !== "Error" ? e.name : e.constructor.name;
}

/**
 * Answers a query task as sdk-python 2.12.0 does (worker.py `_run_query_task_core`): replay the
 * whole history the task carries, call the handler the code registered, complete with the value
 * and its Avro envelope; an unknown name fails `rejected_unknown_query` (the caller's 404), a
 * handler that throws fails `query_rejected` with its message (409).
 */
export async function runQueryTask(worker: TaskRunContext, task: QueryTask): Promise<void> {
  const path = `/query-tasks/${encodeURIComponent(task.query_task_id)}`;
  const lease = { lease_owner: task.lease_owner, query_task_attempt: task.query_task_attempt };
  const fail = async (message: string, reason: string, type: string, stack?: string) => {
    worker.stats.queriesFailed += 1;
    await worker.client.post(
      `${path}/fail`,
      { ...lease, failure: { message, reason, type, stack_trace: stack ?? null } },
      queryTaskOutcomeResponseSchema,
    );
  };
  const definition = worker.workflows.get(task.workflow_type);
  if (!definition)
    return fail(
      `no workflow registered for type '${task.workflow_type}'`,
      "query_workflow_type_not_registered",
      "WorkflowTypeNotRegistered",
    );
  let value: unknown;
  try {
    const ctx = replayState({
      definition,
      args: listPayload(task.workflow_arguments, task.payload_codec),
      history: task.history_events,
      info: {
        workflowId: task.workflow_id,
        runId: task.run_id,
        workflowType: task.workflow_type,
        taskQueue: task.task_queue ?? null,
      },
      activityDefaults: (name) => worker.activities.get(name)?.options,
    });
    const handler = ctx.queryHandler(task.query_name);
    if (!handler) return fail(`unknown query '${task.query_name}'`, "rejected_unknown_query", "QueryFailed");
    value = await handler(...listPayload(task.query_arguments, task.payload_codec));
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    return fail(error.message || "query execution failed", "query_rejected", errorType(error), error.stack);
  }
  const result = (value ?? null) as PayloadValue;
  await worker.client.post(
    `${path}/complete`,
    { ...lease, result, result_envelope: encodePayload(result) },
    queryTaskOutcomeResponseSchema,
  );
  worker.stats.queriesAnswered += 1;
}

async function fullHistory(worker: TaskRunContext, task: WorkflowTask): Promise<HistoryEvent[]> {
  const events = [...task.history_events];
  let token = task.next_history_page_token ?? null;
  while (token) {
    const page = await worker.client.post(
      `/workflow-tasks/${encodeURIComponent(task.task_id)}/history`,
      {
        lease_owner: task.lease_owner,
        workflow_task_attempt: task.workflow_task_attempt,
        next_history_page_token: token,
        history_page_size: 1000,
      },
      historyPageResponseSchema,
    );
    events.push(...page.history_events);
    token = page.next_history_page_token ?? null;
  }
  return events;
}

async function failWorkflowTask(worker: TaskRunContext, task: WorkflowTask, error: Error): Promise<void> {
  await worker.client.post(
    `/workflow-tasks/${encodeURIComponent(task.task_id)}/fail`,
    {
      lease_owner: task.lease_owner,
      workflow_task_attempt: task.workflow_task_attempt,
      failure: { message: error.message, type: errorType(error), stack_trace: error.stack ?? null },
    },
    workflowTaskCompleteResponseSchema,
  );
}

export async function runWorkflowTask(worker: TaskRunContext, task: WorkflowTask): Promise<void> {
  const definition = worker.workflows.get(task.workflow_type);
  if (!definition) {
    worker.stats.workflowTasksFailed += 1;
    await failWorkflowTask(
      worker,
      task,
      new Error(`workflow type ${task.workflow_type} is not registered on worker ${worker.workerId}`),
    );
    return;
  }
  let result;
  try {
    const history = await fullHistory(worker, task);
    const decoded = decodePayload(task.arguments, task.payload_codec);
    const input = {
      definition,
      args: Array.isArray(decoded) ? decoded : decoded === null ? [] : [decoded],
      history,
      info: {
        workflowId: task.workflow_id,
        runId: task.run_id,
        workflowType: task.workflow_type,
        taskQueue: task.task_queue ?? null,
      },
      activityDefaults: (name: string) => worker.activities.get(name)?.options,
    };
    const updateId = task.workflow_update_id;
    result = updateId
      ? { commands: [updateCommand(replayState(input), history, updateId)], terminal: false }
      : replayWorkflow(input);
  } catch (e) {
    worker.stats.workflowTasksFailed += 1;
    await failWorkflowTask(worker, task, e instanceof Error ? e : new Error(String(e)));
    return;
  }
  if (result.commands.length === 0) {
    // Woken by something that unblocks nothing (a signal nobody waits for yet, one member of
    // ctx.all): the protocol requires at least one command and has no no-op, so the task is
    // failed instead; the server retries it with a short backoff, by which time the history
    // holds whatever the code is waiting for.
    worker.stats.workflowTasksWithoutProgress += 1;
    await failWorkflowTask(
      worker,
      task,
      Object.assign(new Error("Workflow task made no progress: every open operation is still pending."), {
        name: "NoProgress",
      }),
    );
    return;
  }
  await worker.client.post(
    `/workflow-tasks/${encodeURIComponent(task.task_id)}/complete`,
    { lease_owner: task.lease_owner, workflow_task_attempt: task.workflow_task_attempt, commands: result.commands },
    workflowTaskCompleteResponseSchema,
  );
  worker.stats.workflowTasksCompleted += 1;
  for (const c of result.commands) {
    if (c.type === "complete_update") worker.stats.updatesCompleted += 1;
    if (c.type === "fail_update") worker.stats.updatesFailed += 1;
  }
}

/**
 * The one command answering a task readied for update `updateId`, as sdk-python 2.12.0 answers it
 * (worker.py `_run_workflow_task`, workflow.py `apply_update`): the handler runs on the replayed
 * state with the arguments `UpdateAccepted` recorded. A throw is `fail_update`, marked
 * `non_retryable` only when the error says so, as the engine marks its own update failures
 * (WorkflowExecutor.php@8dc90d64 `FailureFactory::isNonRetryable`); sdk-python marks every one.
 */
function updateCommand(ctx: WorkflowContext, history: HistoryEvent[], updateId: string): WorkflowCommand {
  const fail = (message: string, type: string, nonRetryable: boolean): WorkflowCommand => ({
    type: "fail_update",
    update_id: updateId,
    message,
    exception_type: type,
    ...(nonRetryable ? { non_retryable: true } : {}),
  });
  const accepted = history.find((e) => e.event_type === "UpdateAccepted" && e.payload.update_id === updateId);
  if (!accepted) return fail(`accepted update ${updateId} is not in the workflow's history`, "UpdateNotFound", true);
  const name = typeof accepted.payload.update_name === "string" ? accepted.payload.update_name : "";
  const handler = ctx.updateHandler(name);
  if (!handler) return fail(`unknown update '${name}'`, "UnknownUpdate", true);
  try {
    const value = handler(...updateArguments(accepted.payload));
    if (value instanceof Promise) {
      value.catch(() => undefined); // refused below; its own rejection is not this worker's error
      return fail(
        `update handler '${name}' returned a promise; update handlers are synchronous`,
        "InvalidUpdate",
        true,
      );
    }
    return { type: "complete_update", update_id: updateId, result: encodePayload((value ?? null) as PayloadValue) };
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    const nonRetryable = (error as Error & { nonRetryable?: unknown }).nonRetryable === true;
    return fail(error.message || errorType(error), errorType(error), nonRetryable);
  }
}

export async function runActivityTask(worker: TaskRunContext, task: ActivityTask): Promise<void> {
  const definition = worker.activities.get(task.activity_type);
  const abort = new AbortController();
  worker.activityAborts.add(abort);
  const taskPath = `/activity-tasks/${encodeURIComponent(task.task_id)}`;
  const ctx: ActivityContext = {
    activityExecutionId: task.activity_execution_id,
    idempotencyKey: task.activity_execution_id,
    activityAttemptId: task.activity_attempt_id,
    attempt: task.attempt_number,
    activityType: task.activity_type,
    workflowId: task.workflow_id,
    runId: task.run_id,
    taskId: task.task_id,
    signal: abort.signal,
    heartbeat: async (progress: HeartbeatProgress = {}) => {
      let res;
      try {
        res = await worker.client.post(
          `${taskPath}/heartbeat`,
          { activity_attempt_id: task.activity_attempt_id, lease_owner: task.lease_owner, ...progress },
          activityHeartbeatResponseSchema,
        );
      } catch (e) {
        // A superseded attempt or a closed run answers 409 with `can_continue: false`.
        if (!(e instanceof WorkerProtocolError && e.status === 409)) throw e;
        res = activityHeartbeatResponseSchema.parse(e.body);
      }
      const canContinue = res.can_continue !== false && res.cancel_requested !== true;
      if (!canContinue) abort.abort();
      return canContinue;
    },
  };
  try {
    let outcome: ActivityOutcomeResponse;
    try {
      if (!definition)
        throw new Error(`activity type ${task.activity_type} is not registered on worker ${worker.workerId}`);
      const decoded = decodePayload(task.arguments, task.payload_codec);
      const args: PayloadValue[] = Array.isArray(decoded) ? decoded : decoded === null ? [] : [decoded];
      const value = await definition.run(ctx, ...args);
      outcome = await report409(() =>
        worker.client.post(
          `${taskPath}/complete`,
          {
            activity_attempt_id: task.activity_attempt_id,
            lease_owner: task.lease_owner,
            result: encodePayload(value ?? null),
          },
          activityOutcomeResponseSchema,
        ),
      );
      worker.stats.activitiesCompleted += 1;
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      const nonRetryable = (error as Error & { nonRetryable?: unknown }).nonRetryable === true;
      outcome = await report409(() =>
        worker.client.post(
          `${taskPath}/fail`,
          {
            activity_attempt_id: task.activity_attempt_id,
            lease_owner: task.lease_owner,
            failure: {
              message: error.message || errorType(error),
              type: errorType(error),
              stack_trace: error.stack ?? null,
              non_retryable: nonRetryable,
              kind: "application",
            },
          },
          activityOutcomeResponseSchema,
        ),
      );
      worker.stats.activitiesFailed += 1;
    }
    // A superseded attempt's report is refused without touching history: that is normal
    // redelivery, not a failure of this worker.
    if (outcome.recorded === false && outcome.reason === "stale_attempt") worker.stats.staleReports += 1;
  } finally {
    worker.activityAborts.delete(abort);
  }
}

/** Cancelled/terminated runs answer 409 with an `ignored` outcome body; that is an answer, not an error. */
async function report409(send: () => Promise<ActivityOutcomeResponse>): Promise<ActivityOutcomeResponse> {
  try {
    return await send();
  } catch (e) {
    if (e instanceof WorkerProtocolError && e.status === 409) {
      const parsed = activityOutcomeResponseSchema.safeParse(e.body);
      if (parsed.success) return parsed.data;
    }
    throw e;
  }
}
