"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import type { EventSubject, FailureEventKind, ViewEvent } from "@/lib/views/events";
import { classifyFailureEvent, eventSubject } from "@/lib/views/events";
import { eventSender } from "@/lib/views/command-sender";
import { Button } from "@/components/ui/button";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { MENU_ITEM, Menu } from "@/components/ui/menu";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import type { HistoryState } from "@/components/run-detail/use-history";
import { useHistory } from "@/components/run-detail/use-history";
import type { PayloadEntry } from "@/components/run-detail/payload";
import { decodePayloadTree, payloadEntries, prettyJson } from "@/components/run-detail/payload";
import { ROW_HEIGHT, VirtualRows } from "@/components/run-detail/virtual-rows";
import type { RunTabProps } from "@/components/run-detail/run-tab-registry";
import { shortcutAction } from "@/lib/shortcuts/registry";
import type { ShortcutAction } from "@/lib/shortcuts/registry";

/** The subject of an event as words: a name, or a timer's delay and what it times out. */
function useSubjectText() {
  const t = useTranslations("run.history");
  return (subject: EventSubject, event?: Pick<ViewEvent, "payload">): string | null => {
    // Who sent the command the event records, where the server named a person (lib/views/command-sender.ts).
    const sender = event ? eventSender(event.payload) : null;
    const named = subjectName(subject, t);
    if (!sender) return named;
    const by = t("subjectSentBy", { name: sender.name });
    return named ? `${named} · ${by}` : by;
  };
}

function subjectName(subject: EventSubject, t: ReturnType<typeof useTranslations<"run.history">>): string | null {
  if (!subject) return null;
  if (subject.kind !== "timer") return subject.name;
  if (subject.timeoutOf) return t("subjectTimeoutOf", { name: subject.timeoutOf });
  return subject.seconds !== null ? t("subjectDelay", { seconds: subject.seconds }) : null;
}

const FAILURE_TONE: Readonly<Record<FailureEventKind, string>> = {
  terminal: "border-bad/40 bg-bad/15 text-bad",
  attempt: "border-warn/40 bg-warn/15 text-warn",
  handled: "border-line bg-panel-muted text-fg-muted",
};

/** A failure row's tag: the words say what the colour does (failed, retried, handled). */
function FailureTag({ kind }: { kind: FailureEventKind }) {
  const t = useTranslations("run.history");
  return (
    <span
      data-testid="history-failure-tag"
      className={`shrink-0 rounded border px-1 text-[10px] leading-4 font-semibold uppercase ${FAILURE_TONE[kind]}`}
    >
      {t(`failureTag.${kind}`)}
    </span>
  );
}

function PayloadFields({ entries }: { entries: readonly PayloadEntry[] }) {
  const t = useTranslations("run.history");
  return (
    <dl className="max-h-[440px] divide-y divide-line overflow-auto text-xs" data-testid="history-fields">
      {entries.map((entry) => (
        <div key={entry.key} className={entry.block ? "px-3 py-1.5" : "flex gap-3 px-3 py-1.5"}>
          <dt className="w-44 shrink-0 truncate font-mono text-fg-muted" title={entry.key}>
            {entry.key}
            {entry.decoded ? (
              <span
                className="ml-1 rounded bg-accent-soft px-1 font-sans text-[10px] text-accent"
                title={t("decodedTitle")}
              >
                {t("decodedMark")}
              </span>
            ) : null}
          </dt>
          <dd
            className={`min-w-0 font-mono break-words whitespace-pre-wrap ${entry.block ? "mt-1 rounded bg-panel-muted px-2 py-1" : ""}`}
          >
            {entry.text}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function EventPayload({ event }: { event: ViewEvent }) {
  const t = useTranslations("run.history");
  const subjectText = useSubjectText();
  const [decoded, setDecoded] = useState<{ sequence: number; entries: PayloadEntry[]; failed: boolean } | null>(null);
  const [raw, setRaw] = useState(false);
  useEffect(() => {
    let cancelled = false;
    const controller = new AbortController();
    decodePayloadTree(event.payload, controller.signal).then(
      (tree) => {
        if (!cancelled) setDecoded({ sequence: event.sequence, entries: payloadEntries(tree), failed: false });
      },
      // The console could not decode (signed out, console restarting): the fields are still listed,
      // their blobs as stored, and the pane says so.
      () => {
        if (!cancelled) setDecoded({ sequence: event.sequence, entries: payloadEntries(event.payload), failed: true });
      },
    );
    return () => {
      cancelled = true;
      controller.abort();
    };
  }, [event]);
  const ready = decoded?.sequence === event.sequence;
  const subject = subjectText(eventSubject(event), event);
  const failure = classifyFailureEvent(event);
  return (
    <div className="min-w-0 flex-1 rounded-md border border-line" data-testid="history-payload">
      <div className="flex flex-wrap items-center gap-2 border-b border-line px-3 py-2 text-xs">
        {/* Announced, so paging with ←/→ says which event is now shown. */}
        <span className="font-mono font-semibold" aria-live="polite">
          #{event.sequence} {event.type}
          {subject ? <span className="font-normal text-fg-muted"> · {subject}</span> : null}
        </span>
        {failure ? <FailureTag kind={failure.kind} /> : null}
        {ready || raw ? null : <span className="text-fg-muted">{t("decoding")}</span>}
        <label className="ml-auto flex items-center gap-1.5 text-fg-muted">
          <input
            type="checkbox"
            checked={raw}
            onChange={(change) => setRaw(change.target.checked)}
            data-testid="history-raw-toggle"
          />
          {t("rawJson")}
        </label>
      </div>
      {raw || !ready ? (
        <pre
          className="max-h-[440px] overflow-auto p-3 font-mono text-xs whitespace-pre-wrap break-all"
          data-testid="history-raw"
        >
          {prettyJson(event.payload)}
        </pre>
      ) : (
        <>
          {decoded.failed ? (
            <p className="border-b border-line px-3 py-1.5 text-xs text-warn" data-testid="history-decode-failed">
              {t("decodeFailed")}
            </p>
          ) : null}
          <PayloadFields entries={decoded.entries} />
        </>
      )}
    </div>
  );
}

/** One history row: sequence, type, a failure's tag, the subject it names, and when it was recorded. */
export function HistoryRow({ event, active, onSelect }: { event: ViewEvent; active: boolean; onSelect: () => void }) {
  const time = useTimeFormat();
  const subjectText = useSubjectText();
  const failure = classifyFailureEvent(event);
  const subject = subjectText(eventSubject(event), event);
  // A failure row is tinted and tagged in words; the tint alone would say nothing to a screen reader.
  const tint = failure?.kind === "terminal" ? "bg-bad/5" : failure?.kind === "attempt" ? "bg-warn/5" : "";
  const typeTone = failure?.kind === "terminal" ? "text-bad" : failure?.kind === "attempt" ? "text-warn" : "";
  return (
    <Button
      variant="bare"
      onClick={onSelect}
      aria-pressed={active}
      data-sequence={event.sequence}
      data-failure={failure?.kind}
      className={`flex h-full w-full items-center gap-3 border-b border-line px-2 text-left text-xs ${active ? "bg-accent-soft" : `${tint} hover:bg-panel-muted`}`}
    >
      <span className="w-14 shrink-0 text-right font-mono text-fg-muted">{event.sequence}</span>
      <span className={`shrink-0 font-mono ${typeTone}`}>{event.type}</span>
      {failure ? <FailureTag kind={failure.kind} /> : null}
      <span
        className="min-w-0 flex-1 truncate text-fg-muted"
        data-testid="history-subject"
        title={subject ?? undefined}
      >
        {subject}
      </span>
      <span className="shrink-0 text-fg-muted">{time.compact(event.recordedAt)}</span>
    </Button>
  );
}

/** Where ←/→ paging lands: the row to select and the list's new scroll offset. */
export interface PageStep {
  index: number;
  scrollTop: number;
}

/** One keypress's input to {@link pageStep} and {@link rowStep}: the list as it stands and the direction. */
export interface StepInput {
  count: number;
  /** Index of the selected row in the shown rows, or -1. */
  current: number;
  direction: 1 | -1;
  scrollTop: number;
  viewHeight: number;
  rowHeight?: number;
}

/**
 * One ←/→ keypress in the history list. The selection moves by the number of rows in view; with no
 * selection (or one the filter hides) the first row in view is selected. When the new row is out of
 * view the list scrolls by the same amount, so the selection keeps its place on screen.
 */
export function pageStep(input: StepInput): PageStep | null {
  const { count, current, direction, scrollTop, viewHeight, rowHeight = ROW_HEIGHT } = input;
  if (count === 0) return null;
  const perPage = Math.max(1, Math.floor(viewHeight / rowHeight));
  const firstInView = Math.ceil(scrollTop / rowHeight);
  const index =
    current < 0 ? Math.min(firstInView, count - 1) : Math.min(Math.max(current + direction * perPage, 0), count - 1);
  const top = index * rowHeight;
  if (top >= scrollTop && top + rowHeight <= scrollTop + viewHeight) return { index, scrollTop };
  const offset =
    current < 0 ? 0 : Math.min(Math.max(current * rowHeight - scrollTop, 0), Math.max(viewHeight - rowHeight, 0));
  const maxScroll = Math.max(count * rowHeight - viewHeight, 0);
  return { index, scrollTop: Math.min(Math.max(top - offset, 0), maxScroll) };
}

/**
 * One ↑/↓ (k/j) keypress: the selection moves one row (with none, the first row in view is
 * selected), and the list scrolls only as far as needed to keep it wholly in view.
 */
export function rowStep(input: StepInput): PageStep | null {
  const { count, current, direction, scrollTop, viewHeight, rowHeight = ROW_HEIGHT } = input;
  if (count === 0) return null;
  const index =
    current < 0
      ? Math.min(Math.ceil(scrollTop / rowHeight), count - 1)
      : Math.min(Math.max(current + direction, 0), count - 1);
  const top = index * rowHeight;
  if (top < scrollTop) return { index, scrollTop: top };
  if (top + rowHeight > scrollTop + viewHeight) return { index, scrollTop: Math.max(top + rowHeight - viewHeight, 0) };
  return { index, scrollTop };
}

/** The History keys come from the shortcut registry (lib/shortcuts/registry.ts), which the `?` sheet lists. */
const STEPS = {
  nextEvent: { rows: true, direction: 1 },
  previousEvent: { rows: true, direction: -1 },
  nextEventPage: { rows: false, direction: 1 },
  previousEventPage: { rows: false, direction: -1 },
} as const satisfies Record<ShortcutAction<"history">, { rows: boolean; direction: 1 | -1 }>;
const NOT_TEXT_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset"]);

/** Keys typed into a field belong to the field; a checkbox or a button does not use ←/→. */
function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "SELECT" || target.tagName === "TEXTAREA") return true;
  return target instanceof HTMLInputElement && !NOT_TEXT_INPUTS.has(target.type);
}

/**
 * The event-type filter: a menu of checkboxes (several types at once), each with its event count;
 * keyboard and closing behaviour come from the Menu primitive.
 */
function TypeFilter({
  types,
  selected,
  counts,
  open,
  onOpen,
  onChange,
}: {
  types: readonly string[];
  selected: readonly string[];
  /** Events per type, for the numbers beside each box. */
  counts: ReadonlyMap<string, number>;
  open: boolean;
  onOpen: (open: boolean) => void;
  onChange: (types: string[]) => void;
}) {
  const t = useTranslations("run.history");
  const chosen = useMemo(() => new Set(selected), [selected]);
  // Keeps the list's order, so the URL reads the same whichever box was ticked first.
  const toggle = (type: string) =>
    onChange(types.filter((candidate) => (candidate === type ? !chosen.has(type) : chosen.has(candidate))));
  const summary =
    selected.length === 0
      ? t("allTypes")
      : selected.length === 1
        ? selected[0]
        : t("typesSelected", { count: selected.length });
  return (
    <Menu
      label={t("type")}
      summary={<span className={`truncate ${selected.length === 1 ? "font-mono text-xs" : ""}`}>{summary}</span>}
      open={open}
      onOpenChange={onOpen}
      triggerTestId="history-type"
      panelTestId="history-type-panel"
      panelClassName="w-80 max-w-[calc(100vw-2rem)]"
    >
      <div className="flex items-center justify-between border-b border-line px-3 py-1.5 text-xs text-fg-muted">
        <span>{selected.length === 0 ? t("allTypes") : t("typesSelected", { count: selected.length })}</span>
        <Button
          variant="bare"
          onClick={() => onChange([])}
          disabled={selected.length === 0}
          className="rounded px-1.5 py-0.5 font-medium text-accent hover:bg-accent-soft disabled:cursor-default disabled:text-fg-muted disabled:hover:bg-transparent"
        >
          {t("clearTypes")}
        </Button>
      </div>
      <ul className="max-h-72 overflow-auto py-1">
        {types.map((type) => (
          <li key={type}>
            <label className="flex h-7 cursor-pointer items-center gap-2 px-3 text-xs hover:bg-panel-muted">
              <input
                type="checkbox"
                checked={chosen.has(type)}
                onChange={() => toggle(type)}
                className="accent-accent"
                {...MENU_ITEM}
              />
              <span className="min-w-0 flex-1 truncate font-mono">{type}</span>
              <span className="text-fg-muted tabular-nums">{counts.get(type) ?? 0}</span>
            </label>
          </li>
        ))}
      </ul>
    </Menu>
  );
}

/**
 * The full history, virtualized: filter by event types and failures-only (URL state), select an
 * event to see its decoded payload as fields (or its raw JSON), ↑/↓ (k/j) move the selection one
 * event and ←/→ (h/l) a page at a time. Pages load in
 * keyset order and the tail follows new events live.
 */
export function HistoryView({
  history,
  types,
  failuresOnly,
  selected,
  onChange,
}: {
  history: HistoryState;
  types: readonly string[];
  failuresOnly: boolean;
  selected: number | null;
  onChange: (change: { types?: string[]; failuresOnly?: boolean; selected?: number | null }) => void;
}) {
  const t = useTranslations("run.history");
  const { buffer, version } = history;
  const [typesOpen, setTypesOpen] = useState(false);
  const listRef = useRef<HTMLDivElement>(null);
  // `version` changes whenever the buffer gains events; the buffer itself is a stable object.
  const rows = useMemo(
    () => (version >= 0 ? buffer.filter(types, failuresOnly) : []),
    [buffer, version, types, failuresOnly],
  );
  // Types the URL names but the history (so far) lacks stay listed, so they can be unticked.
  const allTypes = useMemo(
    () => (version >= 0 ? [...new Set([...buffer.eventTypes(), ...types])].sort() : []),
    [buffer, version, types],
  );
  // Counted only while the filter is open: one pass over the buffer per change.
  const typeCounts = useMemo(() => {
    const counts = new Map<string, number>();
    if (typesOpen && version >= 0)
      for (const event of buffer.events()) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    return counts;
  }, [buffer, version, typesOpen]);
  const selectedEvent = useMemo(
    () =>
      selected === null || version < 0 ? null : (buffer.events().find((event) => event.sequence === selected) ?? null),
    [buffer, version, selected],
  );

  // The key handler reads these through refs: a held key repeats faster than the URL round trip
  // re-renders, and each press must step from the previous one, not from the last render.
  const keyState = useRef({ rows, selected, typesOpen, onChange });
  useEffect(() => {
    keyState.current = { rows, selected, typesOpen, onChange };
  }, [rows, selected, typesOpen, onChange]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = shortcutAction("history", event.key);
      const state = keyState.current;
      if (
        !action ||
        state.typesOpen ||
        event.defaultPrevented ||
        event.metaKey ||
        event.ctrlKey ||
        event.altKey ||
        event.shiftKey ||
        isEditable(event.target)
      )
        return;
      const list = listRef.current?.querySelector<HTMLElement>('[role="list"]');
      if (!list) return;
      const current = state.selected === null ? -1 : state.rows.findIndex((row) => row.sequence === state.selected);
      const { rows: byRow, direction } = STEPS[action];
      const step = (byRow ? rowStep : pageStep)({
        count: state.rows.length,
        current,
        direction,
        scrollTop: list.scrollTop,
        viewHeight: list.clientHeight,
      });
      if (!step) return;
      event.preventDefault();
      list.scrollTop = step.scrollTop;
      // The list may sit below the fold (header, actions, exceptions above it): bring it into view.
      list.scrollIntoView({ block: "nearest" });
      const row = state.rows[step.index];
      if (!row) return;
      state.selected = row.sequence;
      state.onChange({ selected: state.selected });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="space-y-3" data-testid="history">
      <div className="flex flex-wrap items-end gap-3 text-sm">
        <TypeFilter
          types={allTypes}
          selected={types}
          counts={typeCounts}
          open={typesOpen}
          onOpen={setTypesOpen}
          onChange={(next) => onChange({ types: next })}
        />
        <label className="flex h-8 items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={failuresOnly}
            onChange={(event) => onChange({ failuresOnly: event.target.checked })}
            data-testid="history-failures"
          />
          {t("failuresOnly")}
        </label>
        <span className="flex h-8 items-center text-xs text-fg-muted" aria-live="polite" data-testid="history-count">
          {t("count", { shown: rows.length, total: buffer.size })}
          {history.loading ? ` · ${t("loading")}` : ""}
          {history.tailing ? ` · ${t("tailing")}` : ""}
        </span>
      </div>
      {types.length > 1 ? (
        <ul className="flex flex-wrap gap-1.5" aria-label={t("activeTypes")}>
          {types.map((type) => (
            <li key={type}>
              <Button
                variant="bare"
                onClick={() => onChange({ types: types.filter((candidate) => candidate !== type) })}
                aria-label={t("removeType", { type })}
                className="inline-flex h-6 items-center gap-1 rounded-full border border-line bg-panel-muted px-2 font-mono text-xs text-fg hover:border-accent"
                data-testid="history-type-chip"
              >
                {type}
                <span aria-hidden="true" className="text-fg-muted">
                  ×
                </span>
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {history.error ? <DwErrorState error={history.error} /> : null}
      <div className="flex flex-col gap-3 lg:flex-row">
        <div ref={listRef} className="min-w-0 flex-1">
          <VirtualRows
            label={t("title")}
            testId="history-list"
            count={rows.length}
            renderRow={(index) => {
              const event = rows[index];
              if (!event) return null;
              const active = event.sequence === selected;
              return (
                <HistoryRow
                  event={event}
                  active={active}
                  onSelect={() => onChange({ selected: active ? null : event.sequence })}
                />
              );
            }}
          />
          <p className="mt-1 text-xs text-fg-muted">{t("keysHintRows")}</p>
        </div>
        {selectedEvent ? (
          <EventPayload event={selectedEvent} />
        ) : (
          <p className="text-xs text-fg-muted lg:w-80">{t("selectHint")}</p>
        )}
      </div>
    </div>
  );
}

/** The History tab: pages and tails the run's event log itself, then shows it. */
/** The History tab: pages and tails the event log on its own; its filters and selection live in the URL. */
export function HistoryTab({ namespace, workflowId, runId, open, settings, onSettings }: RunTabProps) {
  const history = useHistory(namespace, workflowId, runId, open);
  return (
    <HistoryView
      history={history}
      types={settings.historyTypes}
      failuresOnly={settings.failuresOnly}
      selected={settings.selectedEvent}
      onChange={(change) =>
        onSettings({
          ...(change.types !== undefined ? { historyTypes: change.types } : {}),
          ...(change.failuresOnly !== undefined ? { failuresOnly: change.failuresOnly } : {}),
          ...(change.selected !== undefined ? { selectedEvent: change.selected } : {}),
        })
      }
    />
  );
}
