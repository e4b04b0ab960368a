import "server-only";
import { isDwError } from "@/lib/dw/errors";

/**
 * Lists as downloads (issue 45 point 3): a source yields the upstream list page by page and the file
 * is written as the pages come (a pull stream: the next page is asked for only when the reader has
 * taken the last), so the console never holds the whole list. CSV cells are neutralised against
 * formula injection; a failure after the first byte ends the file with a marker that says the file
 * is incomplete and why, instead of a file that merely looks shorter.
 */

export type ExportFormat = "csv" | "json";

export function parseExportFormat(value: string | null): ExportFormat | null {
  return value === "csv" || value === "json" ? value : null;
}

export interface ExportColumn<Row> {
  key: string;
  value: (row: Row) => string | number | boolean | null | undefined;
}

export interface ExportSource<Row> {
  /** `runs`, `failures`, `schedules`: the file's name and its JSON `export` field. */
  name: string;
  columns: readonly ExportColumn<Row>[];
  /** The upstream list, one page at a time; the iterator's `return` is called when the reader leaves. */
  pages: (signal: AbortSignal) => AsyncIterator<readonly Row[]>;
}

/** The last line of a CSV file that did not end well (a row of its own, so a spreadsheet shows it). */
export const CSV_INCOMPLETE = "# EXPORT INCOMPLETE";

/**
 * One CSV cell (RFC 4180 quoting). A text starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is what spreadsheets run as a formula, so it gets a leading `'` (OWASP's CSV-injection
 * advice); numbers and booleans are written as they are. Control characters other than tab and line
 * breaks are dropped.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  let text = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

function message(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export interface ExportMeta {
  namespace: string;
  /** The filters the rows were selected by, as the URL gave them. */
  filters: Readonly<Record<string, string>>;
  /** When the export began (ISO). */
  startedAt: string;
}

/**
 * The file as a stream. CSV: a header line, a line per row, and after a failure one last line
 * `# EXPORT INCOMPLETE, <rows written>, <reason>`. JSON: one object whose `rows` array is written row
 * by row and which ends `"complete": true` or `"complete": false, "error": {…}` — a valid JSON document
 * either way.
 */
export function exportStream<Row>(
  source: ExportSource<Row>,
  format: ExportFormat,
  meta: ExportMeta,
  signal: AbortSignal,
  primed?: { iterator: AsyncIterator<readonly Row[]>; first: IteratorResult<readonly Row[]> },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<readonly Row[]> | null = primed?.iterator ?? null;
  let first = primed?.first ?? null;
  let rows = 0;
  let started = false;
  let finished = false;
  const head = () =>
    format === "csv"
      ? csvLine(source.columns.map((column) => column.key))
      : `{"export":${JSON.stringify(source.name)},"namespace":${JSON.stringify(meta.namespace)},"filters":${JSON.stringify(
          meta.filters,
        )},"started_at":${JSON.stringify(meta.startedAt)},"rows":[`;
  const line = (row: Row) => {
    if (format === "csv") return csvLine(source.columns.map((column) => column.value(row)));
    const object: Record<string, unknown> = {};
    for (const column of source.columns) object[column.key] = column.value(row) ?? null;
    return `${rows === 0 ? "\n" : ",\n"}${JSON.stringify(object)}`;
  };
  const tail = (error: unknown | null) => {
    if (format === "csv")
      return error === null ? "" : csvLine([CSV_INCOMPLETE, rows, `upstream failed: ${message(error)}`]);
    const end =
      error === null
        ? `"complete":true`
        : `"complete":false,"error":${JSON.stringify({ message: message(error), rows_written: rows })}`;
    return `\n],"row_count":${rows},${end}}\n`;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (finished) return;
        if (!started) {
          started = true;
          iterator ??= source.pages(signal);
          controller.enqueue(encoder.encode(head()));
          return;
        }
        try {
          const next = first ?? (await iterator!.next());
          first = null;
          if (next.done) {
            finished = true;
            const end = tail(null);
            if (end) controller.enqueue(encoder.encode(end));
            controller.close();
            return;
          }
          let chunk = "";
          for (const row of next.value) {
            chunk += line(row);
            rows += 1;
          }
          if (chunk) controller.enqueue(encoder.encode(chunk));
        } catch (error) {
          finished = true;
          if (signal.aborted) {
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(tail(error)));
          controller.close();
        }
      },
      async cancel() {
        finished = true;
        await iterator?.return?.();
      },
    },
    // One page ahead at most: the upstream is read as fast as the download takes it.
    { highWaterMark: 1 },
  );
}

/**
 * The download: no caching, a file name with the namespace and the time, the type for the format.
 * The first page is read before answering, so a refusal (the person's role, an unknown namespace)
 * is an HTTP error with the server's reason, not a file; only later failures end a file.
 */
export async function exportResponse<Row>(
  source: ExportSource<Row>,
  format: ExportFormat,
  meta: ExportMeta,
  signal: AbortSignal,
): Promise<Response> {
  const iterator = source.pages(signal);
  let first: IteratorResult<readonly Row[]>;
  try {
    first = await iterator.next();
  } catch (error) {
    const http = isDwError(error) ? error.httpStatus : null;
    const status = http !== null && http !== undefined && http >= 400 && http < 600 ? http : 502;
    return Response.json(
      {
        reason: isDwError(error) ? error.reason : "export_failed",
        message: `The ${source.name} list could not be read: ${message(error)}`,
        httpStatus: status,
      },
      { status, headers: { "cache-control": "no-store" } },
    );
  }
  const stamp = meta.startedAt.replace(/[:.]/g, "-");
  const file = `${source.name}-${meta.namespace}-${stamp}.${format}`.replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(exportStream(source, format, meta, signal, { iterator, first }), {
    status: 200,
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${file}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
