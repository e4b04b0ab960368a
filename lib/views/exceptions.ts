import type { FailureCategory } from "@/lib/dw/enums";
import type { HistoryEventInput, Payload, ViewEvent } from "./events";
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

function traceLines(exception: Payload | null, tracePreview: string | null | undefined): string[] {
  const frames = readArray(exception, "trace").filter(
    (frame): frame is Payload => typeof frame === "object" && frame !== null && !Array.isArray(frame),
  );
  if (frames.length > 0) return frames.map(frameLine);
  return (tracePreview ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

interface HistoryJoin {
  /** Terminal failure events by failure id. */
  recordedBy: Map<string, ViewEvent>;
  /** Failure ids a FailureHandled event marks as caught. */
  handled: Set<string>;
}

function joinHistory(events: readonly ViewEvent[]): HistoryJoin {
  const recordedBy = new Map<string, ViewEvent>();
  const handled = new Set<string>();
  for (const event of events) {
    const failure = classifyFailureEvent(event);
    if (!failure?.failureId) continue;
    if (failure.kind === "handled") handled.add(failure.failureId);
    else if (!recordedBy.has(failure.failureId)) recordedBy.set(failure.failureId, event);
  }
  return { recordedBy, handled };
}

function failureActivity(
  failure: FailureInput,
  event: ViewEvent | undefined,
  activities: ReadonlyMap<string, ActivityLabelInput>,
): string | null {
  const sourceKind = failure.source_kind ?? (event ? classifyFailureEvent(event)?.sourceKind : null);
  if (sourceKind !== "activity_execution") return null;
  const fromEvent = event
    ? (readString(event.payload, "activity_type") ?? readString(event.payload, "activity_class"))
    : null;
  const activity = failure.source_id ? activities.get(failure.source_id) : undefined;
  return fromEvent ?? activity?.activity_type ?? activity?.activity_class ?? null;
}

/**
 * Rows for the Exceptions table, ordered as the engine orders failure snapshots (history sequence,
 * then time, then id). `history` defaults to the source's own `history_events`; pass `/history`
 * pages when the source is a debug response.
 */
export function exceptionRows(source: ExceptionSource, history?: readonly HistoryEventInput[]): ExceptionRow[] {
  const failures = source.failures ?? source.recent_failures ?? [];
  const join = joinHistory(toViewEvents(history ?? source.history_events ?? []));
  const activities = new Map((source.activities ?? []).map((activity) => [activity.id, activity] as const));

  const rows = failures.flatMap((failure): ExceptionRow[] => {
    const id = failureId(failure);
    if (!id) return [];
    const event = join.recordedBy.get(id);
    const fromEvent = event ? classifyFailureEvent(event) : null;
    const exception = event ? readObject(event.payload, "exception") : null;
    const file = nonEmpty(failure.file) ?? nonEmpty(readString(exception, "file"));
    const line = failure.line || readNumber(exception, "line") || null;
    const message = failure.message ?? fromEvent?.message ?? "";
    const exceptionType = failure.exception_type ?? fromEvent?.exceptionType ?? null;
    const exceptionClass = failure.exception_class ?? fromEvent?.exceptionClass ?? null;
    const category = failure.failure_category ?? fromEvent?.failureCategory ?? null;
    return [
      {
        id,
        activity: failureActivity(failure, event, activities),
        sourceKind: failure.source_kind ?? fromEvent?.sourceKind ?? null,
        sourceId: failure.source_id ?? fromEvent?.sourceId ?? null,
        propagationKind: failure.propagation_kind ?? fromEvent?.propagationKind ?? null,
        type: exceptionType ?? exceptionClass,
        failureCategory: category,
        category: category ?? "-",
        nonRetryable: failure.non_retryable ?? fromEvent?.nonRetryable ?? false,
        message,
        handled: (failure.handled ?? false) || join.handled.has(id),
        loggedAt: failure.created_at ?? event?.recordedAt ?? null,
        eventSequence: event?.sequence ?? null,
        detail: {
          exceptionClass,
          exceptionType,
          resolvedClass: failure.exception_resolved_class ?? null,
          resolutionSource: failure.exception_resolution_source ?? null,
          replayBlocked: failure.exception_replay_blocked ?? false,
          message,
          code: fromEvent?.code ?? null,
          file,
          line,
          location: file ? (line ? `${file}:${line}` : file) : null,
          traceLines: traceLines(exception, failure.trace_preview),
        },
      },
    ];
  });

  return rows.sort(
    (a, b) =>
      (a.eventSequence ?? Number.MAX_SAFE_INTEGER) - (b.eventSequence ?? Number.MAX_SAFE_INTEGER) ||
      (epochMs(a.loggedAt) ?? 0) - (epochMs(b.loggedAt) ?? 0) ||
      a.id.localeCompare(b.id),
  );
}
