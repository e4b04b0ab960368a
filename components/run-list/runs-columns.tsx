"use client";

import { useMemo } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import type { WorkflowListItem } from "@/lib/dw/schemas-workflows";
import { runHref } from "@/lib/routes/route-for";
import type { RunRowDetail, RunRowMarks } from "@/lib/views/run-row";
import { runRowMarks } from "@/lib/views/run-row";
import type { Tone } from "@/lib/views/liveness";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { dataColumns } from "@/components/ui/data-table";
import { useTimeFormat } from "@/components/hooks/use-time-format";

const col = dataColumns<WorkflowListItem>();

const PILL_TONE: Readonly<Record<Tone, "danger" | "warning" | "neutral" | "info" | "success">> = {
  danger: "danger",
  warning: "warning",
  dark: "danger",
  info: "info",
  success: "success",
  neutral: "neutral",
};

/**
 * Long ids and names stop at a width and keep their full text in a title, so at 1440 px every column
 * (Duration included) fits without a horizontal scroll.
 */
function Clipped({ text, className = "", width }: { text: string; className?: string; width: string }) {
  return (
    <span className={`block truncate ${width} ${className}`} title={text}>
      {text}
    </span>
  );
}

function StatusCell({ row, marks, now }: { row: WorkflowListItem; marks: RunRowMarks; now: number }) {
  const t = useTranslations("runs");
  const tv = useTranslations();
  const time = useTimeFormat();
  const { closedReason, attention } = marks;
  const age = attention?.since ? time.duration(now - Date.parse(attention.since)) : null;
  const label = attention ? tv(attention.label.id, attention.label.values) : "";
  // "Stuck · 4m 10s" in the cell; the liveness wording and the last progress's time in the title.
  const short = attention?.stuck ? t("row.stuck") : label;
  return (
    // Stacked, not side by side: the marks add height to the rows that have them, never width to the table.
    <span className="flex flex-col items-start gap-0.5">
      <StatusBadge status={row.status} />
      {closedReason ? (
        <span data-testid="run-closed-reason" data-reason={closedReason}>
          <StatusBadge status={closedReason}>{t(`row.closedReason.${closedReason}`)}</StatusBadge>
        </span>
      ) : null}
      {attention ? (
        <span
          data-testid="run-attention"
          data-stuck={attention.stuck}
          title={attention.since ? `${label} · ${time.dateTime(attention.since)}` : label}
        >
          <Pill tone={PILL_TONE[attention.tone]}>{age ? t("row.attention", { label: short, age }) : short}</Pill>
        </span>
      ) : null}
    </span>
  );
}

/** Ids that share a prefix differ at the end ("shipment-batch-…-0042"): keep both ends (ids are monospace). */
const ID_CHARS = 22;
export function clipMiddle(text: string, max = ID_CHARS): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const tail = Math.floor((max - 1) * 0.4);
  return `${chars.slice(0, max - 1 - tail).join("")}…${chars.slice(-tail).join("")}`;
}

/** A long id shown by its two ends; the whole id stays in the text for screen readers, search and copy. */
function ClippedId({ id }: { id: string }) {
  const shown = clipMiddle(id);
  if (shown === id) return <>{id}</>;
  return (
    <>
      <span aria-hidden="true">{shown}</span>
      <span className="sr-only">{id}</span>
    </>
  );
}

function IdCell({ namespace, row, marks }: { namespace: string; row: WorkflowListItem; marks: RunRowMarks }) {
  const t = useTranslations("runs");
  const chain = marks.chain;
  return (
    <span className="flex flex-col items-start gap-0.5">
      <Link
        href={runHref(namespace, row.workflow_id, row.run_id)}
        className="block max-w-[12rem] truncate font-mono text-accent hover:underline"
        title={`${row.workflow_id}\n${row.run_id}`}
        data-testid="run-link"
      >
        <ClippedId id={row.workflow_id} />
      </Link>
      {chain ? (
        <span
          className="rounded bg-panel-muted px-1.5 py-0.5 text-xs text-fg-muted"
          data-testid="run-chain"
          title={t("row.chainTitle", { workflowId: row.workflow_id })}
        >
          {chain.count
            ? t("row.chain", { number: chain.number, count: chain.count })
            : t("row.chainOpen", { number: chain.number })}
        </span>
      ) : null}
    </span>
  );
}

function Age({ value, now }: { value: string | null; now: number }) {
  const time = useTimeFormat();
  if (!value) return <span>–</span>;
  return (
    // The age is computed at render time: the server's and the browser's differ by the seconds between them.
    <time dateTime={value} title={time.dateTime(value)} suppressHydrationWarning>
      {time.relative(value, now)}
    </time>
  );
}

/** What ended a failed run: the exception type the run page shows, and its message (server text). */
function FailureCell({ failure }: { failure: RunRowDetail["failure"] }) {
  if (!failure) return <span>–</span>;
  return (
    <span className="flex max-w-[13rem] flex-col items-start gap-0.5" data-testid="run-failure">
      <span className="block max-w-full truncate font-mono text-xs" title={failure.type ?? undefined}>
        {failure.type ?? "–"}
      </span>
      {failure.message ? (
        <span className="block max-w-full truncate text-xs text-fg-muted" title={failure.message}>
          {failure.message}
        </span>
      ) : null}
    </span>
  );
}

/** The rows picked for a batch action, and how to change them (the header box covers the page). */
export interface RowSelection {
  has: (runId: string) => boolean;
  toggle: (row: WorkflowListItem) => void;
  page: "none" | "some" | "all";
  togglePage: () => void;
}

function PageBox({ selection }: { selection: RowSelection }) {
  const t = useTranslations("runs");
  return (
    <input
      type="checkbox"
      aria-label={t("select.page")}
      checked={selection.page === "all"}
      ref={(box) => {
        if (box) box.indeterminate = selection.page === "some";
      }}
      onChange={selection.togglePage}
      data-testid="runs-select-page"
    />
  );
}

function RowBox({ row, selection }: { row: WorkflowListItem; selection: RowSelection }) {
  const t = useTranslations("runs");
  return (
    <input
      type="checkbox"
      aria-label={t("select.row", { workflowId: row.workflow_id })}
      checked={selection.has(row.run_id)}
      onChange={() => selection.toggle(row)}
      onClick={(event) => event.stopPropagation()}
      data-testid="runs-select-row"
    />
  );
}

/**
 * The runs list's columns: id (a link to the run, with its place in a continue-as-new chain), status
 * with the closed reason and a stuck marker with its age, on the failed tab what ended the run, type,
 * key, queue, times.
 */
export function useRunsColumns(
  namespace: string,
  details: Readonly<Record<string, RunRowDetail>>,
  now: number,
  selection: RowSelection,
  /** The failed tab: a Failure column (what ended each run) after the status. */
  withFailure = false,
) {
  const t = useTranslations("runs");
  const time = useTimeFormat();
  return useMemo(() => {
    const marks = (row: WorkflowListItem) => runRowMarks(row, details[row.run_id]);
    const failure = withFailure
      ? [
          col.display({
            id: "failure",
            header: () => t("columns.failure"),
            cell: (info) => <FailureCell failure={details[info.row.original.run_id]?.failure ?? null} />,
          }),
        ]
      : [];
    return col.columns([
      col.display({
        id: "select",
        header: () => <PageBox selection={selection} />,
        cell: (info) => <RowBox row={info.row.original} selection={selection} />,
      }),
      col.accessor("workflow_id", {
        header: () => t("columns.workflowId"),
        cell: (info) => <IdCell namespace={namespace} row={info.row.original} marks={marks(info.row.original)} />,
      }),
      // Status right after the id: on a phone (390 px) both fit before the table scrolls sideways.
      col.accessor("status", {
        header: () => t("columns.status"),
        cell: (info) => <StatusCell row={info.row.original} marks={marks(info.row.original)} now={now} />,
      }),
      ...failure,
      col.accessor("workflow_type", {
        header: () => t("columns.type"),
        cell: (info) => <Clipped text={info.getValue()} width="max-w-[9rem]" />,
      }),
      col.accessor("business_key", {
        header: () => t("columns.businessKey"),
        cell: (info) => <Clipped text={info.getValue() ?? "–"} width="max-w-[7rem]" />,
      }),
      col.accessor("task_queue", {
        header: () => t("columns.taskQueue"),
        cell: (info) => <Clipped text={info.getValue() ?? "–"} width="max-w-[6rem]" />,
      }),
      // Ages where the operator scans ("3 min ago"), the absolute time in the chosen zone on hover.
      col.accessor("started_at", {
        header: () => t("columns.started"),
        cell: (info) => <Age value={info.getValue()} now={now} />,
      }),
      col.accessor("closed_at", {
        header: () => t("columns.closed"),
        cell: (info) => <Age value={info.getValue()} now={now} />,
      }),
      col.display({
        id: "duration",
        header: () => t("columns.duration"),
        cell: (info) => time.duration(time.between(info.row.original.started_at, info.row.original.closed_at)),
      }),
    ]);
  }, [t, time, namespace, details, now, selection, withFailure]);
}
