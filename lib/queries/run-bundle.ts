import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { PreparedBundle } from "@/lib/views/run-bundle";
import { prepareRunBundle } from "@/lib/views/run-bundle";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import type { ErrorInfo } from "@/lib/views/error-info";

export type RunBundle = PreparedBundle<HistoryExport>;

export interface BundleRequest {
  namespace: string;
  workflowId: string;
  runId: string;
}

export type BundleMessage =
  | { part: "head"; bundle: HistoryExport; exceptions: RunBundle["exceptions"]; counts: RunBundle["counts"] }
  | { part: "chart"; chart: RunBundle["timeline"]["chart"] }
  | { part: "ledger"; rows: RunBundle["ledger"]; last: boolean }
  | { part: "waits"; rows: NonNullable<HistoryExport["waits"]>; last: boolean }
  | { part: "list"; rows: RunBundle["timeline"]["list"]; last: boolean }
  | { part: "error"; error: ErrorInfo };

/** A failure reported by the bundle worker, with the typed client's reason and status. */
export class BundleLoadError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
    this.name = "BundleLoadError";
  }
}

/**
 * The run's export bundle, prepared for the run page (`prepareRunBundle`) in a Web Worker; where
 * there is no Worker (server rendering, tests) it is prepared in place. From the worker the bundle
 * comes without `timeline` and `payload_manifest` (the page does not use them).
 */
export function loadRunBundle(
  namespace: string,
  workflowId: string,
  runId: string,
  signal?: AbortSignal,
): Promise<RunBundle> {
  if (typeof Worker === "undefined")
    return browserDwClientFor(namespace).exportHistory(workflowId, runId, { signal }).then(prepareRunBundle);
  return new Promise<RunBundle>((resolve, reject) => {
    const worker = new Worker(new URL("./run-bundle-worker.ts", import.meta.url), { name: "run-bundle" });
    const parts: Partial<Omit<RunBundle, "timeline" | "ledger">> & { chart?: RunBundle["timeline"]["chart"] } = {};
    const ledger: RunBundle["ledger"] = [];
    const list: RunBundle["timeline"]["list"] = [];
    const waits: NonNullable<HistoryExport["waits"]> = [];
    let waitsDone = false;
    let ledgerDone = false;
    let listDone = false;
    const stop = (): void => {
      worker.terminate();
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      stop();
      reject(signal?.reason ?? new DOMException("The bundle load was aborted.", "AbortError"));
    };
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<BundleMessage>) => {
      const message = event.data;
      if (message.part === "error") {
        stop();
        reject(new BundleLoadError(message.error));
        return;
      }
      if (message.part === "head")
        Object.assign(parts, { bundle: message.bundle, exceptions: message.exceptions, counts: message.counts });
      else if (message.part === "chart") parts.chart = message.chart;
      else if (message.part === "waits") {
        for (const row of message.rows) waits.push(row);
        waitsDone = message.last;
      } else if (message.part === "ledger") {
        for (const row of message.rows) ledger.push(row);
        ledgerDone = message.last;
      } else {
        for (const row of message.rows) list.push(row);
        listDone = message.last;
      }
      const { bundle, exceptions, counts, chart } = parts;
      if (bundle && exceptions && counts && chart && waitsDone && ledgerDone && listDone) {
        stop();
        resolve({ bundle: { ...bundle, waits }, exceptions, counts, ledger, timeline: { chart, list } });
      }
    };
    worker.onerror = (event) => {
      stop();
      reject(
        new BundleLoadError({
          reason: "unknown",
          httpStatus: null,
          message: event.message || "The run's export bundle could not be prepared.",
          namespace: null,
        }),
      );
    };
    worker.postMessage({ namespace, workflowId, runId } satisfies BundleRequest);
  });
}
