import "server-only";
import type { DwDecoders } from "@/lib/dw/client";
import { SCHEMA_DECODERS } from "@/lib/dw/client";

/**
 * Which contract a proxied GET answers with. The read proxy is the console's boundary with the DW
 * server, so bodies are validated here with the zod schemas and browser code only maps errors
 * (lib/dw/prevalidated.ts). `statuses` are the answers that carry that body: the probes also send
 * it with 503.
 */
export interface ResponseContract {
  decoder: DwDecoders[keyof DwDecoders];
  statuses: readonly number[];
}

const OK = [200] as const;

function contract(decoder: ResponseContract["decoder"], statuses: readonly number[] = OK): ResponseContract {
  return { decoder, statuses };
}

/** Segments are the decoded path after `/api/`, as `isProxiedPath` accepted them. */
export function responseContract(segments: readonly string[]): ResponseContract | null {
  const d = SCHEMA_DECODERS;
  const [head, ...rest] = segments;
  switch (head) {
    case "health":
      return contract(d.health, [200, 503]);
    case "ready":
      return contract(d.ready, [200, 503]);
    case "cluster":
      return contract(d.clusterInfo);
    case "namespaces":
      return rest.length === 0 ? contract(d.namespaceList) : null;
    case "system":
      if (rest.length !== 1) return null;
      switch (rest[0]) {
        case "operator-metrics":
          return contract(d.operatorMetrics);
        case "metrics":
          return contract(d.systemMetrics);
        case "repair":
          return contract(d.repairStatus);
        case "activity-timeouts":
          return contract(d.activityTimeoutStatus);
        default:
          return null;
      }
    case "workers":
      if (rest.length === 0) return contract(d.workerList);
      return rest.length === 1 ? contract(d.worker) : null;
    case "task-queues":
      if (rest.length === 0) return contract(d.taskQueueList);
      return rest.length === 1 ? contract(d.taskQueueDetail) : null;
    case "workflows":
      return workflowContract(rest);
    default:
      return null;
  }
}

/** `workflows/{id}[/debug | /runs[/{run}[/debug | /history]]]`; ids sit at fixed positions. */
function workflowContract(rest: readonly string[]): ResponseContract | null {
  const d = SCHEMA_DECODERS;
  const [, second, , fourth] = rest;
  switch (rest.length) {
    case 0:
      return contract(d.workflowList);
    case 1:
      return contract(d.runDescription);
    case 2:
      if (second === "debug") return contract(d.workflowDebug);
      return second === "runs" ? contract(d.runList) : null;
    case 3:
      return second === "runs" ? contract(d.runDescription) : null;
    case 4:
      if (second !== "runs") return null;
      if (fourth === "debug") return contract(d.workflowDebug);
      return fourth === "history" ? contract(d.historyPage) : null;
    // `runs/{run}/history/export` is not parsed: it is relayed byte for byte (lib/server/proxy/export-stream.ts).
    default:
      return null;
  }
}
