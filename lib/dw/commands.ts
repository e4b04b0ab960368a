import { errorFromResponse } from "./errors";
import type { CommandResponse, StartResponse } from "./schemas-workflows";
import type { ActivityTimeoutPassReport, RepairPassReport } from "./schemas-system";
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

  runRepairPass(params?: RepairPassParams, opts?: DwRequestOptions): Promise<PassResult<RepairPassReport>>;
  runActivityTimeoutPass(
    params?: ActivityTimeoutPassParams,
    opts?: DwRequestOptions,
  ): Promise<PassResult<ActivityTimeoutPassReport>>;
}

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

  async function pass<T>(path: string, body: unknown, decoder: Decoder<T>, opts: DwRequestOptions | undefined) {
    const { status, data } = await call({ method: "POST", path, body }, decoder, opts, [200, 207]);
    return { httpStatus: status, partial: status === 207, report: data } satisfies PassResult<T>;
  }

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
    signalWorkflow: (workflowId, signalName, params = {}, opts) =>
      sendCommand(
        `${target(workflowId, params.runId)}/signal/${pathSegment(signalName)}`,
        { input: params.input, request_id: params.requestId },
        opts,
      ),
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
  };
}
