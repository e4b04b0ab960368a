"use client";

import { ELEMENT_TIMING } from "@/components/ui/element-timing";
import { memo, useCallback, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { ExceptionRow } from "@/lib/views/exceptions";
import { Pill } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { ROWS_PER_STEP, ShowMore, useShownRows } from "@/components/ui/show-more";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted, Section } from "@/components/ui/section";

const col = dataColumns<ExceptionRow>();

function useExceptionColumns(open: ReadonlySet<string>, toggle: (id: string) => void) {
  const t = useTranslations("run.exceptions");
  const time = useTimeFormat();
  return useMemo(
    () =>
      col.columns([
        col.display({
          id: "expand",
          header: () => <span className="sr-only">{t("expand")}</span>,
          cell: ({ row }) => {
            const expanded = open.has(row.original.id);
            return (
              <Button
                variant="bare"
                aria-expanded={expanded}
                aria-label={expanded ? t("collapse") : t("expand")}
                onClick={() => toggle(row.original.id)}
                className="w-6 rounded border border-line text-xs text-fg-muted hover:bg-panel-muted"
              >
                {expanded ? "−" : "+"}
              </Button>
            );
          },
        }),
        col.accessor("activity", {
          header: () => t("activity"),
          cell: ({ row }) =>
            row.original.activity ??
            // An update handler's failure names its update, as an activity failure names its activity.
            (row.original.update !== null ? (
              <span data-testid="exception-update">{t("update", { name: row.original.update })}</span>
            ) : (
              <span className="font-mono text-xs text-fg-muted">{row.original.sourceKind ?? "–"}</span>
            )),
        }),
        col.accessor("type", {
          header: () => t("type"),
          cell: (info) => info.getValue() ?? "–",
          meta: { className: "font-mono text-xs" },
        }),
        col.accessor("category", {
          header: () => t("category"),
          cell: ({ row }) => (
            <span className="inline-flex flex-wrap items-center gap-1" data-testid="exception-category">
              {/* The server's failure_category code, as its docs name it in every language. */}
              <span data-code="">{row.original.category}</span>
              {row.original.nonRetryable ? (
                <Pill tone="warning" testId="non-retryable-badge">
                  {t("nonRetryable")}
                </Pill>
              ) : null}
            </span>
          ),
        }),
        col.accessor("message", { header: () => t("message"), meta: { className: "max-w-md break-words" } }),
        col.accessor("handled", { header: () => t("handled"), cell: (info) => (info.getValue() ? t("yes") : t("no")) }),
        col.accessor("loggedAt", {
          header: () => t("loggedAt"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: { className: "whitespace-nowrap" },
        }),
      ]),
    [t, time, open, toggle],
  );
}

function ExceptionDetail({ row }: { row: ExceptionRow }) {
  const t = useTranslations("run.exceptions");
  return (
    <div className="pl-8" data-testid="exception-detail">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
        {/* The type is what non-retryable lists match; it often differs from the thrown class. */}
        {row.detail.exceptionType && row.detail.exceptionType !== row.detail.exceptionClass ? (
          <>
            <dt className="text-fg-muted">{t("type")}</dt>
            <dd className="font-mono break-all">{row.detail.exceptionType}</dd>
          </>
        ) : null}
        <dt className="text-fg-muted">{t("class")}</dt>
        <dd className="font-mono break-all">{row.detail.exceptionClass ?? "–"}</dd>
        {row.detail.resolvedClass ? (
          <>
            <dt className="text-fg-muted">{t("resolved")}</dt>
            <dd className="font-mono break-all">
              {row.detail.resolvedClass} {row.detail.resolutionSource ? `(${row.detail.resolutionSource})` : ""}
            </dd>
          </>
        ) : null}
        <dt className="text-fg-muted">{t("message")}</dt>
        <dd className="break-words whitespace-pre-wrap">{row.detail.message || "–"}</dd>
        <dt className="text-fg-muted">{t("location")}</dt>
        <dd className="font-mono break-all">{row.detail.location ?? "–"}</dd>
        <dt className="text-fg-muted">{t("source")}</dt>
        <dd className="font-mono break-all">
          {[row.sourceKind, row.sourceId, row.propagationKind].filter(Boolean).join(" · ") || "–"}
        </dd>
        {row.detail.replayBlocked ? (
          <>
            <dt className="text-fg-muted">{t("replay")}</dt>
            <dd className="text-bad">{t("replayBlocked")}</dd>
          </>
        ) : null}
      </dl>
      <p className="mt-3 text-xs font-semibold text-fg-muted">{t("trace")}</p>
      <pre className="mt-1 max-h-64 overflow-auto rounded border border-line bg-panel p-2 font-mono text-xs whitespace-pre-wrap">
        {row.detail.traceLines.length > 0 ? row.detail.traceLines.join("\n") : t("noTrace")}
      </pre>
    </div>
  );
}

const exceptionId = (row: ExceptionRow) => row.id;

/** The rows themselves, memoised apart from the heading: "reading…" coming and going does not redraw every cell. */
const ExceptionRows = memo(function ExceptionRows({
  rows,
  open,
  toggle,
  hidden,
  more,
}: {
  rows: readonly ExceptionRow[];
  open: ReadonlySet<string>;
  toggle: (id: string) => void;
  hidden: number;
  more: () => void;
}) {
  const columns = useExceptionColumns(open, toggle);
  const renderDetail = useCallback(
    (row: ExceptionRow) => (open.has(row.id) ? <ExceptionDetail row={row} /> : null),
    [open],
  );
  return (
    <>
      <DataTable
        columns={columns}
        data={rows}
        getRowId={exceptionId}
        testId="exceptions-rows"
        rowTestId="exception-row"
        renderDetail={renderDetail}
      />
      <ShowMore hidden={hidden} onMore={more} testId="exceptions-show-more" />
    </>
  );
});

/**
 * Exceptions shown before "Show 50 more": three, so the run's tabs stay in a 1440×900 window's first
 * screen under them (issue 37). The complete rows replace debug's `recent_failures` when the history
 * is read without the table growing: a table that grew as the read ended pushed the tabs down
 * under an operator who had opened one.
 */
export const EXCEPTIONS_FIRST_ROWS = 3;

/**
 * The Waterline v2 Exceptions table: Activity, Type, Category (`failure_category` or `-`, with a
 * non-retryable badge), message, handled, logged at. A row expands to class, message, file:line and
 * the trace, all as text. Until every history page is read the rows are debug's `recent_failures`
 * (at most 10, no trace), and the heading says so; `data-complete` tells tests which they see.
 */
// Memoised: the run page re-renders as the history streams in, and these rows change only twice.
export const ExceptionsTable = memo(function ExceptionsTable({
  rows,
  complete,
  reading = false,
}: {
  rows: readonly ExceptionRow[];
  complete: boolean;
  /** The history is being read now (the rows will be replaced by the complete ones). */
  reading?: boolean;
}) {
  const t = useTranslations("run.exceptions");
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // A run with hundreds of failures would otherwise lay out thousands of cells at once.
  const { shown, more, hidden } = useShownRows(rows, ROWS_PER_STEP, EXCEPTIONS_FIRST_ROWS);
  const toggle = useCallback(
    (id: string) =>
      setOpen((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const partial = complete ? null : (
    <span className="text-xs text-fg-muted" data-testid="exceptions-partial">
      {t(reading ? "recentReading" : "recent", { count: rows.length })}
    </span>
  );

  return (
    <Section
      title={t("title", { count: rows.length })}
      testId="exceptions"
      actions={partial}
      timing={ELEMENT_TIMING.exceptions}
    >
      <div data-testid="exceptions-table" data-complete={complete ? "true" : "false"}>
        {rows.length === 0 ? (
          <Muted>{complete ? t("none") : t("noneRecent")}</Muted>
        ) : (
          <ExceptionRows rows={shown} open={open} toggle={toggle} hidden={hidden} more={more} />
        )}
      </div>
    </Section>
  );
});
