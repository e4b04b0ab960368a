"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { FormEvent } from "react";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import type { WorkflowList, WorkflowListItem } from "@/lib/dw/schemas-workflows";
import { runsListQuery } from "@/lib/queries/runs";
import { DwErrorState } from "@/components/ui/dw-error-state";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref, screenHref } from "@/lib/routes/route-for";
import { mergeLive } from "@/components/run-list/live-rows";
import { StatusBadge } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import type { RunsQuery } from "@/components/run-list/run-list-url-state";
import {
  PAGE_SIZES,
  STATUS_TABS,
  nextPage,
  parseRunsQuery,
  previousPage,
  runsQueryString,
  withFilter,
} from "@/components/run-list/run-list-url-state";

const features = tableFeatures({});
const col = createColumnHelper<typeof features, WorkflowListItem>();
const EMPTY: WorkflowListItem[] = [];

function closedReason(row: WorkflowListItem): string | null {
  return typeof row.closed_reason === "string" && row.closed_reason !== row.status ? row.closed_reason : null;
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName);
}

interface RunsScreenProps {
  namespace: string;
  initialQuery: RunsQuery;
  initialData: WorkflowList | null;
  initialError: ErrorInfo | null;
}

export function RunsScreen({ namespace, initialQuery, initialData, initialError }: RunsScreenProps) {
  const t = useTranslations("runs");
  const time = useTimeFormat();
  const router = useRouter();
  const searchParams = useSearchParams();
  const query = useMemo(() => parseRunsQuery(searchParams), [searchParams]);
  const options = runsListQuery(namespace, query);
  const keyText = JSON.stringify(options.queryKey);
  const initialKeyText = JSON.stringify(runsListQuery(namespace, initialQuery).queryKey);

  const result = useQuery({
    ...options,
    initialData: keyText === initialKeyText && initialData ? initialData : undefined,
    placeholderData: keepPreviousData,
  });

  // The rows on screen are a snapshot of one query; refreshes update them in place, never reorder.
  const [snapshot, setSnapshot] = useState<{ key: string; rows: WorkflowListItem[] } | null>(
    initialData && keyText === initialKeyText ? { key: keyText, rows: initialData.workflows } : null,
  );
  const latest = result.isPlaceholderData ? undefined : result.data;
  if (latest && snapshot?.key !== keyText) setSnapshot({ key: keyText, rows: latest.workflows });
  const live = useMemo(
    () =>
      snapshot && latest && snapshot.key === keyText
        ? mergeLive(snapshot.rows, latest.workflows)
        : { rows: snapshot?.rows ?? EMPTY, pending: EMPTY },
    [snapshot, latest, keyText],
  );
  const showNew = () => latest && setSnapshot({ key: keyText, rows: latest.workflows });

  // The native history API keeps Next's router and useSearchParams in sync without a server render:
  // the list is fetched by the client query, and the back button still walks the pages.
  const navigate = useCallback(
    (next: RunsQuery) => {
      window.history.pushState(null, "", `${screenHref(namespace, "runs")}${runsQueryString(next)}`);
    },
    [namespace],
  );

  const [selected, setSelected] = useState(0);
  const rows = live.rows;
  const selectedIndex = Math.min(selected, Math.max(rows.length - 1, 0));
  const nextToken = latest?.next_page_token ?? null;
  const previous = previousPage(query);

  const columns = useMemo(
    () =>
      col.columns([
        col.accessor("workflow_id", {
          header: () => t("columns.workflowId"),
          cell: (info) => (
            <Link
              href={runHref(namespace, info.row.original.workflow_id, info.row.original.run_id)}
              className="font-mono text-accent hover:underline"
              data-testid="run-link"
            >
              {info.getValue()}
            </Link>
          ),
        }),
        col.accessor("workflow_type", { header: () => t("columns.type") }),
        col.accessor("status", {
          header: () => t("columns.status"),
          cell: (info) => {
            const reason = closedReason(info.row.original);
            return (
              <span className="inline-flex items-center gap-1">
                <StatusBadge status={info.getValue()} />
                {reason ? <span className="text-xs text-fg-muted">{reason}</span> : null}
              </span>
            );
          },
        }),
        col.accessor("business_key", {
          header: () => t("columns.businessKey"),
          cell: (info) => info.getValue() ?? "–",
        }),
        col.accessor("task_queue", { header: () => t("columns.taskQueue"), cell: (info) => info.getValue() ?? "–" }),
        col.accessor("started_at", {
          header: () => t("columns.started"),
          cell: (info) => <time title={time.dateTime(info.getValue())}>{time.compact(info.getValue())}</time>,
        }),
        col.accessor("closed_at", {
          header: () => t("columns.closed"),
          cell: (info) => <time title={time.dateTime(info.getValue())}>{time.compact(info.getValue())}</time>,
        }),
        col.display({
          id: "duration",
          header: () => t("columns.duration"),
          cell: (info) => time.duration(time.between(info.row.original.started_at, info.row.original.closed_at)),
        }),
      ]),
    [t, time, namespace],
  );
  const table = useTable({ features, columns, data: rows });

  const tableRef = useRef<HTMLTableSectionElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "j" || event.key === "ArrowDown") {
        setSelected(Math.min(selectedIndex + 1, rows.length - 1));
        event.preventDefault();
      } else if (event.key === "k" || event.key === "ArrowUp") {
        setSelected(Math.max(selectedIndex - 1, 0));
        event.preventDefault();
      } else if (event.key === "Enter" && rows[selectedIndex]) {
        router.push(runHref(namespace, rows[selectedIndex].workflow_id, rows[selectedIndex].run_id));
      } else if (event.key === "ArrowRight" && nextToken) {
        navigate(nextPage(query, nextToken));
      } else if (event.key === "ArrowLeft" && previous) {
        navigate(previous);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selectedIndex, nextToken, previous, query, navigate, router, namespace]);

  useEffect(() => {
    tableRef.current?.querySelector(`[data-row-index="${selectedIndex}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selectedIndex]);

  const [search, setSearch] = useState(query.search);
  const [type, setType] = useState(query.workflowType);
  const [filterKey, setFilterKey] = useState(`${query.search}\u0000${query.workflowType}`);
  if (filterKey !== `${query.search}\u0000${query.workflowType}`) {
    setFilterKey(`${query.search}\u0000${query.workflowType}`);
    setSearch(query.search);
    setType(query.workflowType);
  }
  const submitFilters = (event: FormEvent) => {
    event.preventDefault();
    navigate(withFilter(query, { search: search.trim(), workflowType: type.trim() }));
  };
  const typeOptions = useMemo(() => [...new Set(rows.map((row) => row.workflow_type))].sort(), [rows]);

  const error = result.isError && !result.data ? toErrorInfo(result.error) : snapshot ? null : initialError;
  const filtered = query.status !== "all" || query.workflowType !== "" || query.search !== "";

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end gap-3">
        <div
          role="tablist"
          aria-label={t("statusTabs")}
          className="inline-flex rounded-md border border-line bg-panel p-0.5"
        >
          {STATUS_TABS.map((tab) => (
            <button
              key={tab}
              type="button"
              role="tab"
              aria-selected={query.status === tab}
              onClick={() => navigate(withFilter(query, { status: tab }))}
              className={`h-8 rounded px-3 text-sm font-medium ${query.status === tab ? "bg-accent text-accent-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg"}`}
            >
              {t(`tabs.${tab}`)}
            </button>
          ))}
        </div>
        <form onSubmit={submitFilters} className="flex flex-wrap items-end gap-2" role="search">
          <label className="flex flex-col text-xs text-fg-muted">
            {t("filters.search")}
            <input
              type="search"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              placeholder={t("filters.searchPlaceholder")}
              className="mt-1 h-8 w-64 rounded-md border border-line bg-panel px-2 text-sm text-fg"
            />
          </label>
          <label className="flex flex-col text-xs text-fg-muted">
            {t("filters.type")}
            <input
              list="runs-workflow-types"
              value={type}
              onChange={(event) => setType(event.target.value)}
              placeholder={t("filters.typePlaceholder")}
              className="mt-1 h-8 w-48 rounded-md border border-line bg-panel px-2 text-sm text-fg"
            />
            <datalist id="runs-workflow-types">
              {typeOptions.map((option) => (
                <option key={option} value={option} />
              ))}
            </datalist>
          </label>
          <button
            type="submit"
            className="h-8 rounded-md border border-line bg-panel-muted px-3 text-sm font-medium text-fg hover:bg-accent-soft"
          >
            {t("filters.apply")}
          </button>
          {filtered ? (
            <button
              type="button"
              onClick={() => navigate(withFilter(query, { status: "all", search: "", workflowType: "" }))}
              className="h-8 px-2 text-sm text-accent hover:underline"
            >
              {t("filters.clear")}
            </button>
          ) : null}
        </form>
        <label className="ml-auto flex flex-col text-xs text-fg-muted">
          {t("pageSize")}
          <select
            value={query.pageSize}
            onChange={(event) => navigate(withFilter(query, { pageSize: Number(event.target.value) }))}
            className="mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg"
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>

      <div className="flex min-h-8 items-center gap-3 text-sm text-fg-muted" aria-live="polite">
        {latest ? <span data-testid="runs-count">{t("count", { count: latest.workflow_count })}</span> : null}
        {live.pending.length > 0 ? (
          <button
            type="button"
            data-testid="runs-new"
            onClick={showNew}
            className="rounded-full bg-accent px-3 py-1 text-xs font-semibold text-accent-fg"
          >
            {t("newRuns", { count: live.pending.length })}
          </button>
        ) : null}
        {result.isFetching ? <span className="text-xs">{t("refreshing")}</span> : null}
        {result.isError && result.data ? (
          <span className="text-xs text-bad" data-testid="runs-refresh-failed">
            {t("refreshFailed", { message: toErrorInfo(result.error).message })}
          </span>
        ) : null}
        <span className="ml-auto hidden text-xs md:inline">{t("keyboardHint")}</span>
      </div>

      {error ? (
        <DwErrorState error={error} onRetry={() => void result.refetch()} />
      ) : !snapshot ? (
        <div
          data-testid="runs-loading"
          className="rounded-lg border border-line bg-panel px-6 py-10 text-center text-sm text-fg-muted"
        >
          {t("loading")}
        </div>
      ) : rows.length === 0 ? (
        <section
          data-testid="runs-empty"
          className="rounded-lg border border-dashed border-line bg-panel px-6 py-12 text-center"
        >
          <h2 className="text-base font-semibold text-fg">{filtered ? t("empty.filteredTitle") : t("empty.title")}</h2>
          <p className="mt-2 text-sm text-fg-muted">{filtered ? t("empty.filteredBody") : t("empty.body")}</p>
        </section>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-line bg-panel">
          <table className="w-full text-left text-sm" data-testid="runs-table">
            <thead className="border-b border-line bg-panel-muted text-xs text-fg-muted uppercase">
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => (
                    <th key={header.id} scope="col" className="px-3 py-2 font-semibold whitespace-nowrap">
                      {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                    </th>
                  ))}
                </tr>
              ))}
            </thead>
            <tbody ref={tableRef}>
              {table.getRowModel().rows.map((row, index) => (
                <tr
                  key={row.original.run_id}
                  data-row-index={index}
                  data-testid="runs-row"
                  aria-selected={index === selectedIndex}
                  onClick={() => setSelected(index)}
                  className={`border-b border-line last:border-0 ${index === selectedIndex ? "bg-accent-soft/60" : "hover:bg-panel-muted"}`}
                >
                  {row.getAllCells().map((cell) => (
                    <td key={cell.id} className="px-3 py-2 align-top whitespace-nowrap">
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <nav aria-label={t("pagination")} className="flex items-center justify-end gap-2">
        <button
          type="button"
          disabled={!previous}
          onClick={() => previous && navigate(previous)}
          className="h-8 rounded-md border border-line bg-panel px-3 text-sm text-fg disabled:opacity-40"
        >
          {t("previous")}
        </button>
        <button
          type="button"
          disabled={!nextToken}
          onClick={() => nextToken && navigate(nextPage(query, nextToken))}
          className="h-8 rounded-md border border-line bg-panel px-3 text-sm text-fg disabled:opacity-40"
        >
          {t("next")}
        </button>
      </nav>
    </div>
  );
}
