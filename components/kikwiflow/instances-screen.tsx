"use client";

import { useMemo, useState } from "react";
import Link from "@/components/ui/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { ProcessInstanceStatus, ProcessInstanceSummary } from "@/lib/kikwiflow/schemas";
import { PROCESS_INSTANCE_STATUSES } from "@/lib/kikwiflow/statuses";
import { definitionText, kikwiflowInstancesQuery } from "@/lib/queries/kikwiflow";
import type { DefinitionLabel } from "@/lib/queries/kikwiflow";
import { kikwiflowInstanceHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Pager } from "@/components/ui/pager";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { StatusBadge } from "@/components/ui/status-badge";
import { EngineError } from "@/components/kikwiflow/engine-error";
import { statusTone } from "@/components/kikwiflow/status-tone";
import { activeNodeIds } from "@/components/kikwiflow/active-nodes";

const PAGE_SIZE = 20;
type Filter = ProcessInstanceStatus | "all";
const col = dataColumns<ProcessInstanceSummary>();

function useInstanceColumns(definitions: Readonly<Record<string, DefinitionLabel>>) {
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
    [t, time, definitions],
  );
}

const NO_DEFINITIONS: Readonly<Record<string, DefinitionLabel>> = {};

/** The engine's instances (its search), filtered by status and paged the engine's way (0-based pages). */
export function KikwiflowInstancesScreen() {
  const t = useTranslations("kikwiflow.list");
  const [filter, setFilter] = useState<Filter>("all");
  const [page, setPage] = useState(0);
  const query = useQuery({
    ...kikwiflowInstancesQuery({ page, size: PAGE_SIZE, status: filter === "all" ? null : filter }),
    placeholderData: keepPreviousData,
  });
  const columns = useInstanceColumns(query.data?.definitions ?? NO_DEFINITIONS);
  const options = [
    { value: "all" as const, label: t("statusAll") },
    ...PROCESS_INSTANCE_STATUSES.map((status) => ({ value: status, label: status })),
  ];
  const data = query.data;
  const pages = data?.totalPages ?? 0;

  return (
    <div className="space-y-4" data-testid="kikwiflow-instances">
      <SegmentedControl
        label={t("statusFilter")}
        value={filter}
        options={options}
        onChange={(value) => {
          setFilter(value);
          setPage(0);
        }}
      />
      {query.error ? <EngineError error={query.error} /> : null}
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
                  onPrevious={page > 0 ? () => setPage(page - 1) : undefined}
                  onNext={page + 1 < pages ? () => setPage(page + 1) : undefined}
                />
              </div>
            </div>
          </>
        )
      ) : null}
    </div>
  );
}
