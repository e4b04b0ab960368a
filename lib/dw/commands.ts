import { errorFromResponse } from "./errors";
import type { CancellationReceipt } from "./schemas-cancellation";
import type { CommandResponse, StartResponse } from "./schemas-workflows";
import type { UpdateResponse } from "./schemas-updates";
import type { ActivityTimeoutPassReport, RepairPassReport } from "./schemas-system";
import type { OverlapPolicy, ScheduleCommandAnswer } from "./schemas-schedules";
import type { SearchAttributeAnswer } from "./schemas-search-attributes";
import type { BuildIdRolloutState } from "./schemas-build-ids";
import type { WorkerRemoved } from "./schemas-fleet";
import type { NamespaceAnswer, NamespaceDeleted, RetentionPassReport } from "./schemas-namespaces";
import { isRecord } from "../http/typed-errors";
import { compact, decodeWith, dwTransport, pathSegment, readsOf } from "./transport";
import type {
  ActivityTimeoutPassParams,
  CommandParams,
  CommandResult,
  Decoder,
  DwClient,
  DwClientOptions,
  DwDecoders,
  DwRequestOptions,
  DwTransport,
  PassResult,
  ReasonCommandParams,
  RepairPassParams,
  RequestSpec,
  SignalParams,
  StartWorkflowParams,
} from "./transport";

/** What an update is sent with: its arguments as a list, and how long the server holds the answer. */
export interface UpdateParams {
  runId?: string;
  requestId?: string;
  input?: unknown[];
  /** `accepted` (the server's default) answers once recorded; `completed` once the handler answered. */
  waitFor?: "accepted" | "completed";
}

/** What request-cancellation is sent with (docs/contract.md "Cooperative cancellation"). */
export interface CancellationParams {
  runId?: string;
  reason?: string;
  /** The cleanup bound, 1–3600 s; the server takes 600 when it is left out. */
  cleanupTimeoutSeconds?: number;
}

/**
 * The receipt, or the server's refusal: a closed run (409 `run_not_active`), a historical run (409),
 * one the engine cannot reach yet (422 `cooperative_cancellation_propagation_not_available`).
 * Refusals carry `{reason, message}` and no command body; an unknown workflow (404) is an error.
 */
export type CancellationResult =
  | { readonly kind: "accepted"; readonly httpStatus: number; readonly body: CancellationReceipt }
  | {
      readonly kind: "rejected";
      readonly httpStatus: number;
      readonly body: { readonly reason: string; readonly message: string | null };
    };

/**
 * The commands: start, cancel, terminate, repair, archive, signal and the system passes. Only the
 * console server sends them (lib/actions, behind the action guard), so they live apart from the
 * reads and never reach a browser bundle.
 */
export interface DwCommandClient extends DwClient {
  startWorkflow(params: StartWorkflowParams, opts?: DwRequestOptions): Promise<CommandResult<StartResponse>>;
  cancelWorkflow(
    workflowId: string,
    params?: ReasonCommandParams,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<CommandResponse>>;
  terminateWorkflow(
    workflowId: string,
    params?: ReasonCommandParams,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<CommandResponse>>;
  repairWorkflow(
    workflowId: string,
    params?: Omit<CommandParams, "runId">,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<CommandResponse>>;
  archiveWorkflow(
    workflowId: string,
    params?: Omit<ReasonCommandParams, "runId">,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<CommandResponse>>;
  signalWorkflow(
    workflowId: string,
    signalName: string,
    params?: SignalParams,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<CommandResponse>>;

  /** An update (docs/contract.md "Updates"); 409/404/422 refusals and a failed handler are `rejected` answers. */
  updateWorkflow(
    workflowId: string,
    updateName: string,
    params?: UpdateParams,
    opts?: DwRequestOptions,
  ): Promise<CommandResult<UpdateResponse>>;

  requestWorkflowCancellation(
    workflowId: string,
    params?: CancellationParams,
    opts?: DwRequestOptions,
  ): Promise<CancellationResult>;

  runRepairPass(params?: RepairPassParams, opts?: DwRequestOptions): Promise<PassResult<RepairPassReport>>;
  runActivityTimeoutPass(
    params?: ActivityTimeoutPassParams,
    opts?: DwRequestOptions,
  ): Promise<PassResult<ActivityTimeoutPassReport>>;
  /** History retention's pass for the client's namespace (SystemController::retentionEnforcePass@11d35b7). */
  runRetentionPass(
    params?: { runIds?: string[]; limit?: number },
    opts?: DwRequestOptions,
  ): Promise<PassResult<RetentionPassReport>>;

  /** Namespace lifecycle (NamespaceController.php@11d35b7 and the newer `destroy`): admin only. */
  createNamespace(
    params: NamespaceParams & { name: string },
    opts?: DwRequestOptions,
  ): Promise<NamespaceResult<NamespaceAnswer>>;
  updateNamespace(
    name: string,
    params: NamespaceParams,
    opts?: DwRequestOptions,
  ): Promise<NamespaceResult<NamespaceAnswer>>;
  deleteNamespace(name: string, opts?: DwRequestOptions): Promise<NamespaceResult<NamespaceDeleted>>;

  /** The schedule commands (durable-workflow/server ScheduleController.php@11d35b7). */
  pauseSchedule(scheduleId: string, note?: string, opts?: DwRequestOptions): Promise<ScheduleCommandResult>;
  resumeSchedule(scheduleId: string, note?: string, opts?: DwRequestOptions): Promise<ScheduleCommandResult>;
  triggerSchedule(
    scheduleId: string,
    overlapPolicy?: OverlapPolicy,
    opts?: DwRequestOptions,
  ): Promise<ScheduleCommandResult>;
  backfillSchedule(scheduleId: string, params: BackfillParams, opts?: DwRequestOptions): Promise<ScheduleCommandResult>;
  deleteSchedule(scheduleId: string, opts?: DwRequestOptions): Promise<ScheduleCommandResult>;

  /** The search-attribute registry (durable-workflow/server SearchAttributeController.php@11d35b7). */
  createSearchAttribute(name: string, type: string, opts?: DwRequestOptions): Promise<RegistryResult>;
  deleteSearchAttribute(name: string, opts?: DwRequestOptions): Promise<RegistryResult>;

  /** Removes a worker from the roster (admin; WorkerManagementController.php@11d35b7 `destroy`). */
  removeWorker(workerId: string, opts?: DwRequestOptions): Promise<WorkerRemovalResult>;

  /** A build id's rollout on a task queue (TaskQueueController `promoteBuildId` / `drainBuildId` / `resumeBuildId`). */
  rolloutBuildId(
    action: "promote" | "drain" | "resume",
    taskQueue: string,
    buildId: string | null,
    opts?: DwRequestOptions,
  ): Promise<BuildIdRolloutResult>;
}

/**
 * A rollout change: the answer, or the server's refusal in its words (promote's 409 with the
 * deployment lifecycle's blockages, the first of which names the reason).
 */
export type BuildIdRolloutResult =
  | { kind: "accepted"; httpStatus: number; body: BuildIdRolloutState }
  | { kind: "rejected"; httpStatus: number; reason: string; message: string | null };

/** A worker removal: the answer, or the controller's own refusal (404 worker_not_found). */
export type WorkerRemovalResult =
  | { kind: "accepted"; httpStatus: number; body: WorkerRemoved }
  | { kind: "rejected"; httpStatus: number; reason: string; message: string | null };

/** What a namespace is created or edited with; omitted fields are not sent. */
export interface NamespaceParams {
  description?: string | null;
  retentionDays?: number | null;
}

/** A namespace change: the answer, or the controller's own refusal (404 / 409 / 503 with a `reason`). */
export type NamespaceResult<T> =
  | { kind: "accepted"; httpStatus: number; body: T }
  | { kind: "rejected"; httpStatus: number; reason: string; message: string | null };

/** A registry change: the answer, or the controller's own refusal (409/404/422 with a `reason`). */
export type RegistryResult =
  | { kind: "accepted"; httpStatus: number; body: SearchAttributeAnswer }
  | { kind: "rejected"; httpStatus: number; reason: string; message: string | null };

/** Backfill's `[start_time, end_time)` (ISO-8601) and an optional overlap policy for its fires. */
export interface BackfillParams {
  startTime: string;
  endTime: string;
  overlapPolicy?: OverlapPolicy;
}

/**
 * A schedule command's answer. `accepted`: 2xx; `rejected`: the server's 404 `schedule_not_found`,
 * 409, 422 (`invalid_time_range`) or trigger's 500 `trigger_failed`, which carry a reason in words.
 */
export type ScheduleCommandResult =
  | { kind: "accepted"; httpStatus: number; body: ScheduleCommandAnswer }
  | { kind: "rejected"; httpStatus: number; reason: string; message: string | null };

/** The reads and the commands over one connection. */
export function createDwCommandClientWith(decoders: DwDecoders, options: DwClientOptions): DwCommandClient {
  const transport = dwTransport(decoders, options);
  return { ...readsOf(transport), ...commandsOf(transport) };
}

type Commands = Omit<DwCommandClient, keyof DwClient>;

function commandsOf({ decoders, send, call }: DwTransport): Commands {
  async function command<T>(
    spec: RequestSpec,
    decoder: Decoder<T>,
    opts: DwRequestOptions | undefined,
  ): Promise<CommandResult<T>> {
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300) {
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoder, raw, `${spec.method} ${spec.path}`),
      };
    }
    // Engine rejections come back as 409 (404/422 for unknown signal / invalid arguments) with the
    // full command body; envelopes without an outcome (e.g. historical_run_command_rejected) are errors.
    const body = raw.isJson && isRecord(raw.json) ? raw.json : null;
    const isCommandBody = body !== null && (body.command_status === "rejected" || typeof body.outcome === "string");
    if (isCommandBody && (raw.status === 409 || raw.status === 404 || raw.status === 422)) {
      return {
        kind: "rejected",
        httpStatus: raw.status,
        body: decodeWith(decoder, raw, `${spec.method} ${spec.path}`),
      };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  // No request_id: the server's body is `{reason?, cleanup_timeout_seconds?}` only, and a second
  // request on the run answers the first one's receipt (`duplicate: true`) anyway.
  async function requestCancellation(path: string, params: CancellationParams, opts: DwRequestOptions | undefined) {
    const spec: RequestSpec = {
      method: "POST",
      path,
      body: compact({ reason: params.reason, cleanup_timeout_seconds: params.cleanupTimeoutSeconds }) ?? {},
    };
    const raw = await send(spec, opts);
    if (raw.status === 200 || raw.status === 202) {
      const body = decodeWith(decoders.cancellationReceipt, raw, `${spec.method} ${spec.path}`);
      return { kind: "accepted", httpStatus: raw.status, body } satisfies CancellationResult;
    }
    const body = raw.isJson && isRecord(raw.json) ? raw.json : null;
    if (body !== null && typeof body.reason === "string" && (raw.status === 409 || raw.status === 422)) {
      const message = typeof body.message === "string" ? body.message : null;
      return {
        kind: "rejected",
        httpStatus: raw.status,
        body: { reason: body.reason, message },
      } satisfies CancellationResult;
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  async function pass<T>(path: string, body: unknown, decoder: Decoder<T>, opts: DwRequestOptions | undefined) {
    const { status, data } = await call({ method: "POST", path, body }, decoder, opts, [200, 207]);
    return { httpStatus: status, partial: status === 207, report: data } satisfies PassResult<T>;
  }

  async function registryCommand(spec: RequestSpec, opts: DwRequestOptions | undefined): Promise<RegistryResult> {
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300)
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoders.searchAttributeAnswer, raw, `${spec.method} ${spec.path}`),
      };
    const answer = raw.isJson && isRecord(raw.json) ? raw.json : null;
    // Laravel's validation 422 names no reason; the console's form keeps the same rules, so it is an error.
    if (answer !== null && typeof answer.reason === "string" && [404, 409, 422].includes(raw.status)) {
      const message = typeof answer.message === "string" ? answer.message : null;
      return { kind: "rejected", httpStatus: raw.status, reason: answer.reason, message };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  async function removeWorker(workerId: string, opts: DwRequestOptions | undefined): Promise<WorkerRemovalResult> {
    const spec: RequestSpec = { method: "DELETE", path: `/workers/${pathSegment(workerId)}` };
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300)
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoders.workerRemoved, raw, `${spec.method} ${spec.path}`),
      };
    const answer = raw.isJson && isRecord(raw.json) ? raw.json : null;
    if (answer !== null && typeof answer.reason === "string" && raw.status === 404) {
      const message = typeof answer.message === "string" ? answer.message : null;
      return { kind: "rejected", httpStatus: raw.status, reason: answer.reason, message };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  async function rolloutBuildId(
    action: "promote" | "drain" | "resume",
    taskQueue: string,
    buildId: string | null,
    opts: DwRequestOptions | undefined,
  ): Promise<BuildIdRolloutResult> {
    const spec: RequestSpec = {
      method: "POST",
      path: `/task-queues/${pathSegment(taskQueue)}/build-ids/${action}`,
      body: { build_id: buildId },
    };
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300)
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoders.buildIdRolloutState, raw, `${spec.method} ${spec.path}`),
      };
    const answer = raw.isJson && isRecord(raw.json) ? raw.json : null;
    if (answer !== null && typeof answer.reason === "string" && raw.status === 409) {
      const message = typeof answer.message === "string" ? answer.message : null;
      return { kind: "rejected", httpStatus: raw.status, reason: answer.reason, message };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }

  async function namespaceCommand<T>(
    spec: RequestSpec,
    decoder: Decoder<T>,
    opts: DwRequestOptions | undefined,
  ): Promise<NamespaceResult<T>> {
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300)
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoder, raw, `${spec.method} ${spec.path}`),
      };
    const answer = raw.isJson && isRecord(raw.json) ? raw.json : null;
    // The controller's refusals carry a reason; Laravel's 422 validation answer does not and stays an error.
    if (answer !== null && typeof answer.reason === "string" && [404, 409, 503].includes(raw.status)) {
      const message = typeof answer.message === "string" ? answer.message : null;
      return { kind: "rejected", httpStatus: raw.status, reason: answer.reason, message };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }
  const nsPath = (name: string) => `/namespaces/${pathSegment(name)}`;
  const nsBody = (params: NamespaceParams) => ({
    description: params.description,
    retention_days: params.retentionDays,
  });

  async function scheduleCommand(
    method: "POST" | "DELETE",
    path: string,
    body: Record<string, unknown> | undefined,
    opts: DwRequestOptions | undefined,
  ): Promise<ScheduleCommandResult> {
    const spec: RequestSpec = { method, path, body: body === undefined ? undefined : compact(body) };
    const raw = await send(spec, opts);
    if (raw.status >= 200 && raw.status < 300) {
      return {
        kind: "accepted",
        httpStatus: raw.status,
        body: decodeWith(decoders.scheduleCommandAnswer, raw, `${method} ${path}`),
      };
    }
    const answer = raw.isJson && isRecord(raw.json) ? raw.json : null;
    // The controller's own refusals name a reason; anything else (auth, version) stays an error.
    if (answer !== null && typeof answer.reason === "string" && [404, 409, 422, 500].includes(raw.status)) {
      const message = typeof answer.message === "string" ? answer.message : null;
      return { kind: "rejected", httpStatus: raw.status, reason: answer.reason, message };
    }
    throw errorFromResponse(raw.status, raw.isJson ? raw.json : undefined);
  }
  const schedule = (scheduleId: string) => `/schedules/${pathSegment(scheduleId)}`;

  const wf = (workflowId: string) => `/workflows/${pathSegment(workflowId)}`;
  const target = (workflowId: string, runId: string | undefined) =>
    runId === undefined ? wf(workflowId) : `${wf(workflowId)}/runs/${pathSegment(runId)}`;
  const sendCommand = (path: string, body: Record<string, unknown>, opts: DwRequestOptions | undefined) =>
    command<CommandResponse>({ method: "POST", path, body: compact(body) }, decoders.commandResponse, opts);

  return {
    startWorkflow: (params, opts) =>
      command<StartResponse>(
        { method: "POST", path: "/workflows", body: compact({ ...params }) },
        decoders.startResponse,
        opts,
      ),
    cancelWorkflow: (workflowId, params = {}, opts) =>
      sendCommand(
        `${target(workflowId, params.runId)}/cancel`,
        { reason: params.reason, request_id: params.requestId },
        opts,
      ),
    terminateWorkflow: (workflowId, params = {}, opts) =>
      sendCommand(
        `${target(workflowId, params.runId)}/terminate`,
        { reason: params.reason, request_id: params.requestId },
        opts,
      ),
    repairWorkflow: (workflowId, params = {}, opts) =>
      sendCommand(`${wf(workflowId)}/repair`, { request_id: params.requestId }, opts),
    archiveWorkflow: (workflowId, params = {}, opts) =>
      sendCommand(`${wf(workflowId)}/archive`, { reason: params.reason, request_id: params.requestId }, opts),
    updateWorkflow: (workflowId, updateName, params = {}, opts) =>
      command<UpdateResponse>(
        {
          method: "POST",
          path: `${target(workflowId, params.runId)}/update/${pathSegment(updateName)}`,
          body: compact({ input: params.input, request_id: params.requestId, wait_for: params.waitFor }),
        },
        decoders.updateResponse,
        opts,
      ),
    signalWorkflow: (workflowId, signalName, params = {}, opts) =>
      sendCommand(
        `${target(workflowId, params.runId)}/signal/${pathSegment(signalName)}`,
        { input: params.input, request_id: params.requestId },
        opts,
      ),
    requestWorkflowCancellation: (workflowId, params = {}, opts) =>
      requestCancellation(`${target(workflowId, params.runId)}/request-cancellation`, params, opts),
    runRepairPass: (params = {}, opts) =>
      pass<RepairPassReport>(
        "/system/repair/pass",
        compact({ run_ids: params.runIds, instance_id: params.instanceId }),
        decoders.repairPassReport,
        opts,
      ),
    runActivityTimeoutPass: (params = {}, opts) =>
      pass<ActivityTimeoutPassReport>(
        "/system/activity-timeouts/pass",
        compact({ limit: params.limit, execution_ids: params.executionIds }),
        decoders.activityTimeoutPassReport,
        opts,
      ),
    runRetentionPass: (params = {}, opts) =>
      pass<RetentionPassReport>(
        "/system/retention/pass",
        compact({ limit: params.limit, run_ids: params.runIds }),
        decoders.retentionPassReport,
        opts,
      ),
    createNamespace: (params, opts) =>
      namespaceCommand(
        { method: "POST", path: "/namespaces", body: compact({ name: params.name, ...nsBody(params) }) },
        decoders.namespaceAnswer,
        opts,
      ),
    updateNamespace: (name, params, opts) =>
      namespaceCommand(
        { method: "PUT", path: nsPath(name), body: compact(nsBody(params)) ?? {} },
        decoders.namespaceAnswer,
        opts,
      ),
    deleteNamespace: (name, opts) =>
      namespaceCommand({ method: "DELETE", path: nsPath(name) }, decoders.namespaceDeleted, opts),
    pauseSchedule: (scheduleId, note, opts) => scheduleCommand("POST", `${schedule(scheduleId)}/pause`, { note }, opts),
    resumeSchedule: (scheduleId, note, opts) =>
      scheduleCommand("POST", `${schedule(scheduleId)}/resume`, { note }, opts),
    triggerSchedule: (scheduleId, overlapPolicy, opts) =>
      scheduleCommand("POST", `${schedule(scheduleId)}/trigger`, { overlap_policy: overlapPolicy }, opts),
    backfillSchedule: (scheduleId, params, opts) =>
      scheduleCommand(
        "POST",
        `${schedule(scheduleId)}/backfill`,
        { start_time: params.startTime, end_time: params.endTime, overlap_policy: params.overlapPolicy },
        opts,
      ),
    deleteSchedule: (scheduleId, opts) => scheduleCommand("DELETE", schedule(scheduleId), undefined, opts),
    createSearchAttribute: (name, type, opts) =>
      registryCommand({ method: "POST", path: "/search-attributes", body: { name, type } }, opts),
    deleteSearchAttribute: (name, opts) =>
      registryCommand({ method: "DELETE", path: `/search-attributes/${pathSegment(name)}` }, opts),
    removeWorker,
    rolloutBuildId,
  };
}
