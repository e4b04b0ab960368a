import type { Decoder, DwDecoders } from "./transport";

/**
 * Decoders for bodies that the console's same-origin read proxy has already validated against the
 * zod schemas (lib/server/proxy/validation.ts): the proxy answers a contract break with 502
 * `malformed_response`, which `errorFromResponse` turns back into `DwMalformedResponseError`. The
 * transport still rejects non-JSON bodies; the shape is taken as checked, so zod and the schemas
 * stay out of browser bundles.
 */
function prevalidated<T>(): Decoder<T> {
  return (json) => ({ ok: true, value: json as T });
}

export const PREVALIDATED_DECODERS: DwDecoders = {
  health: prevalidated(),
  ready: prevalidated(),
  clusterInfo: prevalidated(),
  namespaceList: prevalidated(),
  workflowList: prevalidated(),
  runDescription: prevalidated(),
  runList: prevalidated(),
  workflowDebug: prevalidated(),
  historyPage: prevalidated(),
  historyExport: prevalidated(),
  startResponse: prevalidated(),
  commandResponse: prevalidated(),
  operatorMetrics: prevalidated(),
  systemMetrics: prevalidated(),
  repairStatus: prevalidated(),
  repairPassReport: prevalidated(),
  activityTimeoutStatus: prevalidated(),
  activityTimeoutPassReport: prevalidated(),
  workerList: prevalidated(),
  worker: prevalidated(),
  taskQueueList: prevalidated(),
  taskQueueDetail: prevalidated(),
  workflowQueryResult: prevalidated(),
};
