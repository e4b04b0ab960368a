import type { ErrorInfo } from "@/lib/views/error-info";
import type { DerivedChunk, DerivedSnapshot } from "@/lib/views/run-derivation";
import { withBasePath } from "@/lib/http/base-path";

/**
 * The console's run-view stream (issue 14): `GET /api/run-view?workflow_id=…&run_id=…[&since=N][&wait=1]`
 * with `X-Namespace`, answered as NDJSON (`application/x-ndjson`; with `gzip=1` the same lines
 * gzip-compressed, as `application/gzip`), one {@link RunViewLine} per line.
 * The console server walks the run's history pages (or serves its cache) and derives the views
 * with {@link RunDerivation}; the browser never reads the export bundle to draw a run.
 *
 * Order: `meta` first; then `progress` and chunks as pages are read; then `snapshot`; then `done`.
 * `since=N` (the `lastSequence` of an earlier `done`) asks only for chunks emitted after event N,
 * then a fresh snapshot; `wait=1` (open runs only) holds until there is something after N or the
 * server's long-poll ends. Errors before the first line are JSON error envelopes with an HTTP
 * status (404 run_not_found, 401/403, 502/504); an error after it is an `error` line.
 * The response header `X-Breakwater-Run-View` says `hit` (closed run from cache), `joined` (a walk
 * already in flight), `miss` (a new walk) or `extend` (an open run's cache extended from `since`).
 */
export type RunViewLine =
  | {
      t: "meta";
      closed: boolean;
      /** Events in the run when known (debug `execution.last_event.sequence`), else null. */
      total: number | null;
      cache: "hit" | "joined" | "miss" | "extend";
      pageSize: number;
      /** Fields only the export bundle has, which these views therefore lack (shown to the operator). */
      exportOnly: string[];
      /**
       * (Added by the service.) The sequence the chunks of this answer follow: the `since` asked for
       * when the server could continue from it, else 0 — a whole view, so drop every chunk held.
       */
      from?: number;
      /**
       * (Added by the service.) True when this answer waits on the server's long-poll (`wait=1`
       * honoured); false when it is answered at once (closed run, nothing asked, or the console's
       * long-poll cap reached), so a tailing browser should pause before asking again.
       */
      held?: boolean;
    }
  | { t: "progress"; read: number; total: number | null }
  | DerivedChunk
  | { t: "snapshot"; snapshot: DerivedSnapshot }
  | { t: "done"; lastSequence: number }
  | { t: "error"; error: ErrorInfo };

export const RUN_VIEW_HEADER = "x-breakwater-run-view";
/**
 * (Added by the service.) With `gzip=1` in the query, the body is the same NDJSON gzip-compressed
 * (flushed after each page, so it inflates line by line) and this header says `gzip`; the browser
 * inflates it with `DecompressionStream("gzip")`. Content-Encoding cannot carry it: Next drops that
 * header from route handler responses.
 */
export const RUN_VIEW_ENCODING_HEADER = "x-breakwater-run-view-encoding";
export const RUN_VIEW_PATH = withBasePath("/api/run-view");

/**
 * `GET /api/run-view/extras?workflow_id=…&run_id=…` (JSON, with `X-Namespace`): the sections only the
 * export bundle has (all tasks, commands, the server's projected waits, links to parents/children),
 * read from the export on the console server when a tab asks for them, so the bulk never reaches
 * the browser. Closed runs' extras are cached like their views. Shapes are export `tasks[]`,
 * `commands[]`, `waits[]`, `links` (contracts/history-export-bundle.schema.json), relayed as read.
 */
export interface RunViewExtras {
  tasks: readonly Record<string, unknown>[];
  commands: readonly Record<string, unknown>[];
  waits: readonly Record<string, unknown>[];
  links: { parents?: readonly Record<string, unknown>[]; children?: readonly Record<string, unknown>[] } | null;
  /** Bytes of export JSON read to answer this (said in the UI: the export is the only source). */
  exportBytes: number;
}

export const RUN_VIEW_EXTRAS_PATH = withBasePath("/api/run-view/extras");
