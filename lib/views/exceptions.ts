import type { FailureCategory } from "@/lib/dw/enums";
import type { FailureInfo, HistoryEventInput, Payload, ViewEvent } from "./events";
import { classifyFailureEvent, epochMs, readArray, readNumber, readObject, readString, toViewEvents } from "./events";

/**
 * The Waterline v2 Exceptions table (v2-model §5.2): one row per failure row, i.e. per *terminal*
 * failure. Retried attempts have no failure row and appear in the attempt ledger instead.
 */

/** A failure from export `failures[]` or debug `recent_failures[]` (which names its id `failure_id`). */
export interface FailureInput {
  id?: string | null;
  failure_id?: string | null;
  source_kind?: string | null;
  source_id?: string | null;
  propagation_kind?: string | null;
  failure_category?: string | null;
  non_retryable?: boolean | null;
  handled?: boolean | null;
  exception_type?: string | null;
  exception_class?: string | null;
  exception_resolved_class?: string | null;
  exception_resolution_source?: string | null;
  exception_replay_blocked?: boolean | null;
  message?: string | null;
  file?: string | null;
  line?: number | null;
  trace_preview?: string | null;
  created_at?: string | null;
}

/** The fields of export `activities[]` used to name a failure's activity. */
export interface ActivityLabelInput {
  id: string;
  activity_type?: string | null;
  activity_class?: string | null;
}

/** Export bundle, debug response, or any object holding failures (and optionally history). */
export interface ExceptionSource {
  failures?: readonly FailureInput[] | null;
  recent_failures?: readonly FailureInput[] | null;
  history_events?: readonly HistoryEventInput[] | null;
  activities?: readonly ActivityLabelInput[] | null;
}

export interface ExceptionDetail {
  exceptionClass: string | null;
  exceptionType: string | null;
  resolvedClass: string | null;
  resolutionSource: string | null;
  /** Replay stays blocked until the exception mapping is fixed. */
  replayBlocked: boolean;
  message: string;
  code: string | null;
  file: string | null;
  line: number | null;
  /** `file:line`, or the file alone, or null when the worker did not report one. */
  location: string | null;
  /** One text line per frame, `Class->method() in file:line`; rendered as text, never HTML. */
  traceLines: string[];
}

export interface ExceptionRow {
  id: string;
  /** Activity type (or class) when the failure came from an activity execution. */
  activity: string | null;
  /** The update's name when the failure came from an update handler (`UpdateCompleted` with a failure). */
  update: string | null;
  sourceKind: string | null;
  sourceId: string | null;
  propagationKind: string | null;
  /** exception_type, else exception_class. */
  type: string | null;
  failureCategory: FailureCategory | null;
  /** What the Category column shows: the category, or `-` when unclassified. */
  category: string;
  nonRetryable: boolean;
  message: string;
  handled: boolean;
  loggedAt: string | null;
  /** Sequence of the history event that recorded the failure, when history was given. */
  eventSequence: number | null;
  detail: ExceptionDetail;
}

function failureId(failure: FailureInput): string | null {
  return failure.id ?? failure.failure_id ?? null;
}

function nonEmpty(value: string | null | undefined): string | null {
  return value === null || value === undefined || value === "" ? null : value;
}

function frameLine(frame: Payload): string {
  const owner = (readString(frame, "class") ?? "") + (readString(frame, "type") ?? "");
  const fn = readString(frame, "function");
  const call = fn ? `${owner}${fn}()` : owner || "{main}";
  const file = nonEmpty(readString(frame, "file"));
  const line = readNumber(frame, "line");
  if (!file) return call;
  return `${call} in ${file}${line ? `:${line}` : ""}`;
}

function frameLines(exception: Payload | null): string[] {
  return readArray(exception, "trace")
    .filter((frame): frame is Payload => typeof frame === "object" && frame !== null && !Array.isArray(frame))
    .map(frameLine);
}

function previewLines(tracePreview: string | null | undefined): string[] {
  return (tracePreview ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/**
 * What a failure event says about its failure, kept instead of the event (issue 14: the paged view
 * keeps no events). Built the way the engine builds failure snapshots from typed history
 * (durable-workflow/workflow src/V2/Support/FailureSnapshots.php@797aa6f163cbf78d2de76ebc09e6be89b99477dd
 * `snapshotFromEvent`, `exceptionPayload`): the ActivityFailed payload carries failure_id,
 * failure_category, non_retryable, exception_type, exception_class, message, code and
 * exception{class,message,code,file,line,trace} (ActivityOutcomeRecorder.php@797aa6f1).
 */
interface FailureEventRecord {
  sequence: number;
  recordedAt: string | null;
  info: FailureInfo;
  /** activity_type, else activity_class, from the event payload. */
  activity: string | null;
  /** update_name of a failed update's `UpdateCompleted` (propagation `update`). */
  update: string | null;
  file: string | null;
  line: number | null;
  frames: string[];
  /** One of the engine's failure-snapshot event types (`supportsEvent`): it makes a row without a failure row. */
  makesRow: boolean;
}

/** FailureSnapshots.php@797aa6f1 `supportsEvent`: the events a failure snapshot is built from. */
const SNAPSHOT_EVENTS = new Set([
  "ActivityFailed",
  "ActivityTimedOut",
  "ChildRunFailed",
  "ChildRunCancelled",
  "ChildRunTerminated",
  "WorkflowFailed",
  "WorkflowTimedOut",
  "WorkflowCancelled",
  "WorkflowTerminated",
  "UpdateCompleted",
]);

function failureActivity(
  failure: FailureInput | undefined,
  record: FailureEventRecord | undefined,
  activities: ReadonlyMap<string, ActivityLabelInput>,
): string | null {
  const sourceKind = failure?.source_kind ?? record?.info.sourceKind;
  if (sourceKind !== "activity_execution") return null;
  const sourceId = failure?.source_id ?? record?.info.sourceId;
  const activity = sourceId ? activities.get(sourceId) : undefined;
  return record?.activity ?? activity?.activity_type ?? activity?.activity_class ?? null;
}

/** One row from a failure row, its recording event, or both (the row wins where both say something). */
function exceptionRow(
  id: string,
  failure: FailureInput | undefined,
  record: FailureEventRecord | undefined,
  handled: boolean,
  activities: ReadonlyMap<string, ActivityLabelInput>,
): ExceptionRow {
  const fromEvent = record?.info;
  const file = nonEmpty(failure?.file) ?? record?.file ?? null;
  const line = failure?.line || record?.line || null;
  const message = failure?.message ?? fromEvent?.message ?? "";
  // A debug row has exception_class only; the event names the type (exception_type) the table shows.
  const exceptionType = failure?.exception_type ?? fromEvent?.exceptionType ?? null;
  const exceptionClass = failure?.exception_class ?? fromEvent?.exceptionClass ?? null;
  const category = failure?.failure_category ?? fromEvent?.failureCategory ?? null;
  const frames = record?.frames ?? [];
  return {
    id,
    activity: failureActivity(failure, record, activities),
    update: record?.update ?? null,
    sourceKind: failure?.source_kind ?? fromEvent?.sourceKind ?? null,
    sourceId: failure?.source_id ?? fromEvent?.sourceId ?? null,
    propagationKind: failure?.propagation_kind ?? fromEvent?.propagationKind ?? null,
    type: exceptionType ?? exceptionClass,
    failureCategory: category,
    category: category ?? "-",
    nonRetryable: failure?.non_retryable ?? fromEvent?.nonRetryable ?? false,
    message,
    handled: (failure?.handled ?? false) || handled,
    loggedAt: failure?.created_at ?? record?.recordedAt ?? null,
    eventSequence: record?.sequence ?? null,
    detail: {
      exceptionClass,
      exceptionType,
      resolvedClass: failure?.exception_resolved_class ?? null,
      resolutionSource: failure?.exception_resolution_source ?? null,
      replayBlocked: failure?.exception_replay_blocked ?? false,
      message,
      code: fromEvent?.code ?? null,
      file,
      line,
      location: file ? (line ? `${file}:${line}` : file) : null,
      // Frames from the event when it has them; else the row's stored preview (the pages cannot give it).
      traceLines: frames.length > 0 ? frames : previewLines(failure?.trace_preview),
    },
  };
}

/**
 * The Exceptions table as a fold over events in sequence order (issue 14): it keeps one small
 * record per failure event and the ids FailureHandled marks, never the events. {@link
 * ExceptionFold.rows} merges failure rows (export `failures[]`, or debug `recent_failures`, ≤ 10) by
 * failure id, as the engine's FailureSnapshots::forRun does: a row supplies `handled`, `trace_preview`
 * and failures no event recorded; an event with no row still makes a row.
 */
export class ExceptionFold {
  private readonly records = new Map<string, FailureEventRecord>();
  private readonly handled = new Set<string>();

  add(event: ViewEvent): void {
    const failure = classifyFailureEvent(event);
    if (!failure?.failureId) return;
    if (failure.kind === "handled") {
      this.handled.add(failure.failureId);
      return;
    }
    // The first recording event names the failure (a later repeat of the id adds nothing).
    if (this.records.has(failure.failureId)) return;
    const exception = readObject(event.payload, "exception");
    this.records.set(failure.failureId, {
      sequence: event.sequence,
      recordedAt: event.recordedAt,
      info: failure,
      activity: readString(event.payload, "activity_type") ?? readString(event.payload, "activity_class"),
      update: event.type === "UpdateCompleted" ? readString(event.payload, "update_name") : null,
      file: nonEmpty(readString(exception, "file")),
      line: readNumber(exception, "line"),
      frames: frameLines(exception),
      makesRow: SNAPSHOT_EVENTS.has(event.type),
    });
  }

  /** Failures recorded by events so far. */
  get recordedCount(): number {
    return this.records.size;
  }

  /**
   * Rows ordered as the engine orders failure snapshots (history sequence, then time, then id);
   * non-destructive.
   */
  rows(failures: readonly FailureInput[], activityRows: readonly ActivityLabelInput[] = []): ExceptionRow[] {
    const activities = new Map(activityRows.map((activity) => [activity.id, activity] as const));
    const rows: ExceptionRow[] = [];
    const seen = new Set<string>();
    for (const failure of failures) {
      const id = failureId(failure);
      if (!id || seen.has(id)) continue;
      seen.add(id);
      rows.push(exceptionRow(id, failure, this.records.get(id), this.handled.has(id), activities));
    }
    for (const [id, record] of this.records) {
      if (seen.has(id) || !record.makesRow) continue;
      rows.push(exceptionRow(id, undefined, record, this.handled.has(id), activities));
    }
    return rows.sort(
      (a, b) =>
        (a.eventSequence ?? Number.MAX_SAFE_INTEGER) - (b.eventSequence ?? Number.MAX_SAFE_INTEGER) ||
        (epochMs(a.loggedAt) ?? 0) - (epochMs(b.loggedAt) ?? 0) ||
        a.id.localeCompare(b.id),
    );
  }
}

/**
 * Rows for the Exceptions table (see {@link ExceptionFold}). `history` defaults to the source's own
 * `history_events`; pass `/history` pages when the source is a debug response.
 */
export function exceptionRows(source: ExceptionSource, history?: readonly HistoryEventInput[]): ExceptionRow[] {
  const fold = new ExceptionFold();
  for (const event of toViewEvents(history ?? source.history_events ?? [])) fold.add(event);
  return fold.rows(source.failures ?? source.recent_failures ?? [], source.activities ?? []);
}
