"use client";

import { useEffect, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { ViewEvent } from "@/lib/views/events";
import { DwErrorState } from "@/components/runs/dw-error-state";
import { useTimeFormat } from "@/components/runs/use-time-format";
import type { HistoryState } from "./use-history";
import { useHistory } from "./use-history";
import { decodePayloadTree, prettyJson } from "./payload";
import { VirtualRows } from "./virtual-rows";

function EventPayload({ event }: { event: ViewEvent }) {
  const t = useTranslations("run.history");
  const [decoded, setDecoded] = useState<{ sequence: number; text: string } | null>(null);
  useEffect(() => {
    let cancelled = false;
    void decodePayloadTree(event.payload).then((tree) => {
      if (!cancelled) setDecoded({ sequence: event.sequence, text: prettyJson(tree) });
    });
    return () => {
      cancelled = true;
    };
  }, [event]);
  const text = decoded?.sequence === event.sequence ? decoded.text : prettyJson(event.payload);
  return (
    <div className="min-w-0 flex-1 rounded-md border border-line" data-testid="history-payload">
      <div className="border-b border-line px-3 py-2 text-xs">
        <span className="font-mono font-semibold">
          #{event.sequence} {event.type}
        </span>
        {decoded?.sequence === event.sequence ? null : <span className="ml-2 text-fg-muted">{t("decoding")}</span>}
      </div>
      <pre className="max-h-[440px] overflow-auto p-3 font-mono text-xs whitespace-pre-wrap break-all">{text}</pre>
    </div>
  );
}

/**
 * The full history, virtualized: filter by type and failures-only (URL state), select an event to
 * see its decoded payload. Pages load in keyset order and the tail follows new events live.
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
  const time = useTimeFormat();
  const { buffer, version } = history;
  // `version` changes whenever the buffer gains events; the buffer itself is a stable object.
  const rows = useMemo(() => (version >= 0 ? buffer.filter(types, failuresOnly) : []), [buffer, version, types, failuresOnly]);
  const allTypes = useMemo(() => (version >= 0 ? buffer.eventTypes() : []), [buffer, version]);
  const selectedEvent = useMemo(
    () => (selected === null || version < 0 ? null : (buffer.events().find((event) => event.sequence === selected) ?? null)),
    [buffer, version, selected],
  );

  return (
    <div className="space-y-3" data-testid="history">
      <div className="flex flex-wrap items-end gap-3 text-sm">
        <label className="flex flex-col text-xs text-fg-muted">
          {t("type")}
          <select
            value={types[0] ?? ""}
            onChange={(event) => onChange({ types: event.target.value ? [event.target.value] : [] })}
            className="mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg"
            data-testid="history-type"
          >
            <option value="">{t("allTypes")}</option>
            {allTypes.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <label className="flex h-8 items-center gap-2 text-sm">
          <input type="checkbox" checked={failuresOnly} onChange={(event) => onChange({ failuresOnly: event.target.checked })} data-testid="history-failures" />
          {t("failuresOnly")}
        </label>
        <span className="text-xs text-fg-muted" aria-live="polite" data-testid="history-count">
          {t("count", { shown: rows.length, total: buffer.size })}
          {history.loading ? ` · ${t("loading")}` : ""}
          {history.tailing ? ` · ${t("tailing")}` : ""}
        </span>
      </div>
      {history.error ? <DwErrorState error={history.error} /> : null}
      <div className="flex flex-col gap-3 lg:flex-row">
        <div className="min-w-0 flex-1">
          <VirtualRows
            label={t("title")}
            testId="history-list"
            count={rows.length}
            renderRow={(index) => {
              const event = rows[index];
              const active = event.sequence === selected;
              return (
                <button
                  type="button"
                  onClick={() => onChange({ selected: active ? null : event.sequence })}
                  aria-pressed={active}
                  className={`flex h-full w-full items-center gap-3 border-b border-line px-2 text-left text-xs ${active ? "bg-accent-soft" : "hover:bg-panel-muted"}`}
                >
                  <span className="w-14 shrink-0 text-right font-mono text-fg-muted">{event.sequence}</span>
                  <span className="min-w-0 flex-1 truncate font-mono">{event.type}</span>
                  <span className="shrink-0 text-fg-muted">{time.compact(event.recordedAt)}</span>
                </button>
              );
            }}
          />
        </div>
        {selectedEvent ? <EventPayload event={selectedEvent} /> : <p className="text-xs text-fg-muted lg:w-80">{t("selectHint")}</p>}
      </div>
    </div>
  );
}

/** The History tab: pages and tails the run's event log itself, then shows it. */
export function HistoryPanel({
  workflowId,
  runId,
  live,
  ...view
}: {
  workflowId: string;
  runId: string;
  live: boolean;
  types: readonly string[];
  failuresOnly: boolean;
  selected: number | null;
  onChange: (change: { types?: string[]; failuresOnly?: boolean; selected?: number | null }) => void;
}) {
  const history = useHistory(workflowId, runId, live);
  return <HistoryView history={history} {...view} />;
}
