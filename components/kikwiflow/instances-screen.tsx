"use client";

import { useEffect, useMemo, useRef, useState, useTransition } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import Link from "@/components/ui/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { ProcessInstanceStatus, ProcessInstanceSummary } from "@/lib/kikwiflow/schemas";
import { PROCESS_INSTANCE_STATUSES } from "@/lib/kikwiflow/statuses";
import type { IncidentCounts } from "@/lib/kikwiflow/instance-list";
import { listStateQuery, readListState } from "@/lib/kikwiflow/list-url";
import type { ListFilter, ListState } from "@/lib/kikwiflow/list-url";
import { definitionText, kikwiflowInstancesQuery } from "@/lib/queries/kikwiflow";
import type { DefinitionLabel, InstanceListPage } from "@/lib/queries/kikwiflow";
import { kikwiflowInstanceHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Pager } from "@/components/ui/pager";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { Button } from "@/components/ui/button";
import { EngineError } from "@/components/kikwiflow/engine-error";
import { statusTone } from "@/components/kikwiflow/status-tone";
import { activeNodeIds } from "@/components/kikwiflow/active-nodes";

const PAGE_SIZE = 20;
const col = dataColumns<ProcessInstanceSummary>();

/** The row's incidents: a marker with the open count, or how many were resolved. */
function IncidentsCell({ counts }: { counts: IncidentCounts | undefined }) {
  const t = useTranslations("kikwiflow.list");
  if (!counts || counts.total === 0) return <span className="text-fg-muted">–</span>;
  if (counts.open === 0) {
    return <span className="text-xs text-fg-muted">{t("resolvedIncidents", { count: counts.total })}</span>;
  }
  return (
    <span data-testid="kikwiflow-instance-incidents" data-open={counts.open}>
      <Pill tone="warning">{t("openIncidents", { count: counts.open })}</Pill>
    </span>
  );
}

function useInstanceColumns(
  definitions: Readonly<Record<string, DefinitionLabel>>,
  incidents: Readonly<Record<string, IncidentCounts>>,
) {
  const t = useTranslations("kikwiflow.list");
  const time = useTimeFormat();
  return useMemo(
    () =>
      col.columns([
        col.accessor("id", {
          header: () => t("id"),
          cell: (info) => (
            <Link
              href={kikwiflowInstanceHref(info.getValue())}
              className="font-mono text-xs text-accent hover:underline"
              data-testid="kikwiflow-instance-link"
            >
              {info.getValue()}
            </Link>
          ),
        }),
        // Right after the id, so a phone sees the marker without scrolling the table sideways.
        col.display({
          id: "incidents",
          header: () => t("incidents"),
          cell: ({ row }) => <IncidentsCell counts={incidents[row.original.id]} />,
        }),
        col.accessor("processDefinitionId", {
          header: () => t("definition"),
          cell: (info) => {
            const label = definitions[info.getValue()];
            return (
              <span title={label?.name ?? info.getValue()} className="font-mono text-xs">
                {definitionText(info.getValue(), label)}
              </span>
            );
          },
        }),
        col.accessor("businessKey", { header: () => t("businessKey"), cell: (info) => info.getValue() ?? "–" }),
        col.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={statusTone(info.getValue())}>{info.getValue()}</StatusBadge>,
        }),
        col.accessor("startedAt", {
          header: () => t("started"),
          cell: (info) => <span title={time.dateTime(info.getValue())}>{time.compact(info.getValue())}</span>,
          meta: { className: "whitespace-nowrap" },
        }),
        col.display({
          id: "activeNodes",
          header: () => t("activeNodes"),
          cell: ({ row }) => (
            <span className="font-mono text-xs">{activeNodeIds(row.original.activeNodes).join(", ") || "–"}</span>
          ),
        }),
      ]),
    [t, time, definitions, incidents],
  );
}

const NO_DEFINITIONS: Readonly<Record<string, DefinitionLabel>> = {};
const NO_INCIDENTS: Readonly<Record<string, IncidentCounts>> = {};

/** The list's filter, page and search, kept in the URL (lib/kikwiflow/list-url.ts). */
function useListState(): [ListState, (next: Partial<ListState>) => void] {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // The last query asked for while its navigation is in flight: router.replace changes the address
  // bar only once the page's server round trip is done, so a search typed right after a filter click
  // must build on the click, not on the address bar.
  const pending = useRef<string | null>(null);
  const [navigating, startNavigation] = useTransition();
  useEffect(() => {
    if (!navigating) pending.current = null;
  }, [navigating]);
  const state = readListState(new URLSearchParams(params.toString()));
  const update = (next: Partial<ListState>) => {
    const base = pending.current ?? window.location.search;
    const query = listStateQuery({ ...readListState(new URLSearchParams(base)), ...next });
    pending.current = query;
    startNavigation(() => router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false }));
  };
  return [state, update];
}

/** Search by instance id or business key; submitted, not per keystroke (each search reads the engine). */
function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string) => void }) {
  const t = useTranslations("kikwiflow.list");
  const [text, setText] = useState(value);
  return (
    <form
      role="search"
      className="flex min-w-0 items-center gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(text.trim());
      }}
    >
      <input
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        aria-label={t("search")}
        placeholder={t("searchPlaceholder")}
        className="w-64 max-w-full min-w-0 rounded-md border border-line bg-panel px-2 py-1 text-sm"
        data-testid="kikwiflow-instance-search"
      />
      <Button type="submit">{t("searchSubmit")}</Button>
    </form>
  );
}

/** With the open-incidents filter: how many active instances the answer was read from. */
function WalkLine({ walk }: { walk: NonNullable<InstanceListPage["walk"]> }) {
  const t = useTranslations("kikwiflow.attention");
  return (
    <p className="text-xs text-fg-muted" data-testid="kikwiflow-instance-walk">
      {t("scanned", { scanned: walk.scanned, total: walk.total })}
      {walk.capped ? ` ${t("capped", { limit: walk.scanned })}` : ""}
    </p>
  );
}

/**
 * The engine's instances (its search), filtered by status or by open incidents, searched by id or
 * business key, paged the engine's way (0-based pages); all three kept in the URL.
 */
export function KikwiflowInstancesScreen() {
  const t = useTranslations("kikwiflow.list");
  const [{ filter, page, q }, update] = useListState();
  const status: ProcessInstanceStatus | null = filter === "all" || filter === "incidents" ? null : filter;
  const query = useQuery({
    ...kikwiflowInstancesQuery({ page, size: PAGE_SIZE, status, q: q || null, openIncidents: filter === "incidents" }),
    placeholderData: keepPreviousData,
  });
  const columns = useInstanceColumns(query.data?.definitions ?? NO_DEFINITIONS, query.data?.incidents ?? NO_INCIDENTS);
  const options: { value: ListFilter; label: string }[] = [
    { value: "all", label: t("statusAll") },
    { value: "incidents", label: t("filterOpenIncidents") },
    ...PROCESS_INSTANCE_STATUSES.map((value) => ({ value, label: value })),
  ];
  const data = query.data;
  const pages = data?.totalPages ?? 0;

  return (
    <div className="space-y-4" data-testid="kikwiflow-instances">
      <div className="flex flex-wrap items-center gap-3">
        <div className="max-w-full overflow-x-auto">
          <SegmentedControl
            label={t("statusFilter")}
            value={filter}
            options={options}
            onChange={(value) => update({ filter: value, page: 0 })}
          />
        </div>
        <SearchBox key={q} value={q} onSearch={(text) => update({ q: text, page: 0 })} />
      </div>
      {query.error ? <EngineError error={query.error} /> : null}
      {data?.walk ? <WalkLine walk={data.walk} /> : null}
      {data ? (
        data.content.length === 0 ? (
          <p className="text-sm text-fg-muted">{t("empty")}</p>
        ) : (
          <>
            <DataTable
              columns={columns}
              data={data.content}
              getRowId={(row) => row.id}
              testId="kikwiflow-instance-rows"
              rowTestId="kikwiflow-instance-row"
            />
            <div className="flex flex-wrap items-center gap-2">
              <span className="text-xs text-fg-muted">
                {t("range", { page: data.page + 1, pages: Math.max(pages, 1), total: data.totalElements })}
              </span>
              <div className="ml-auto">
                <Pager
                  label={t("pager")}
                  previousLabel={t("previous")}
                  nextLabel={t("next")}
                  onPrevious={page > 0 ? () => update({ page: page - 1 }) : undefined}
                  onNext={page + 1 < pages ? () => update({ page: page + 1 }) : undefined}
                />
              </div>
            </div>
          </>
        )
      ) : null}
    </div>
  );
}
