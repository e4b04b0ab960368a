"use client";

import { useMemo } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import type { WorkflowListItem } from "@/lib/dw/schemas-workflows";
import { runHref } from "@/lib/routes/route-for";
import { StatusBadge } from "@/components/ui/status-badge";
import { dataColumns } from "@/components/ui/data-table";
import { useTimeFormat } from "@/components/hooks/use-time-format";

const col = dataColumns<WorkflowListItem>();

function closedReason(row: WorkflowListItem): string | null {
  return typeof row.closed_reason === "string" && row.closed_reason !== row.status ? row.closed_reason : null;
}

/** The runs list's columns: id (a link to the run), type, status with its closed reason, key, queue, times. */
export function useRunsColumns(namespace: string) {
  const t = useTranslations("runs");
  const time = useTimeFormat();
  return useMemo(
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
}
