import { browserDwClientFor } from "@/lib/dw/browser-client";
import { toErrorInfo } from "@/lib/views/error-info";
import { prepareRunBundle } from "@/lib/views/run-bundle";
import type { BundleRequest, BundleMessage } from "@/lib/queries/run-bundle";

/**
 * Web Worker: fetches a run's export bundle and derives the run page's views from it, so the page's
 * main thread never parses (~120 MB for 50,000 events) or walks the bulk. The results go back in
 * several messages, each deserialised in its own main-thread task.
 */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<BundleRequest>) => void) | null;
  postMessage(message: BundleMessage): void;
};

const LIST_SLICE = 5_000;
const LEDGER_SLICE = 2_000;
const WAITS_SLICE = 2_000;

function sliced<T>(rows: readonly T[], size: number, post: (rows: T[], last: boolean) => void): void {
  if (rows.length === 0) post([], true);
  for (let i = 0; i < rows.length; i += size) post(rows.slice(i, i + size), i + size >= rows.length);
}

scope.onmessage = (event) => {
  const { namespace, workflowId, runId } = event.data;
  void browserDwClientFor(namespace)
    .exportHistory(workflowId, runId)
    .then(
      (bundle) => {
        const prepared = prepareRunBundle(bundle);
        // The bundle's own `timeline` and `payload_manifest` (~55 MB for 50,000 events) have no use on
        // the page, and its waits (one per activity) go in slices like the other long arrays.
        const head = { ...prepared.bundle, waits: [] };
        delete head.timeline;
        delete head.payload_manifest;
        scope.postMessage({ part: "head", bundle: head, exceptions: prepared.exceptions, counts: prepared.counts });
        sliced(prepared.bundle.waits ?? [], WAITS_SLICE, (rows, last) =>
          scope.postMessage({ part: "waits", rows, last }),
        );
        scope.postMessage({ part: "chart", chart: prepared.timeline.chart });
        // The long arrays go in slices: a 50,000-row list in one message took ~250 ms to deserialise.
        sliced(prepared.ledger, LEDGER_SLICE, (rows, last) => scope.postMessage({ part: "ledger", rows, last }));
        sliced(prepared.timeline.list, LIST_SLICE, (rows, last) => scope.postMessage({ part: "list", rows, last }));
      },
      (error: unknown) => scope.postMessage({ part: "error", error: toErrorInfo(error) }),
    );
};
