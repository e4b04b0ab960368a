"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { ExecutableTask, Incident } from "@/lib/kikwiflow/schemas";
import type { IncidentLineage } from "@/lib/kikwiflow/incident-lineage";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { Muted, Section } from "@/components/ui/section";
import { rootCauseClass } from "@/lib/kikwiflow/incident-view";
import { incidentMarker } from "@/components/kikwiflow/incident-marker";
import { StackTrace } from "@/components/kikwiflow/stack-trace";
import { statusTone } from "@/components/kikwiflow/status-tone";
import { columnKit } from "@/components/kikwiflow/column-kit";

export interface IncidentRow {
  incident: Incident;
  task: ExecutableTask | null;
  /** From the outbox: what decides the fatal marker (null while unread or when the outbox is off). */
  lineage: IncidentLineage | null;
}

export interface RetryControl {
  /** Why retrying is not possible now (read-only, role), or null. */
  disabledReason: string | null;
  /** The incident being retried, if any. */
  pendingId: string | null;
  onRetry: (incidentId: string) => void;
}

const col = dataColumns<IncidentRow>();

function CategoryCell({ row }: { row: IncidentRow }) {
  const t = useTranslations("kikwiflow.incidents");
  const marker = incidentMarker(row.incident, row.task, row.lineage);
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="kikwiflow-incident-category">
      <span className="font-mono text-xs">{row.incident.type}</span>
      {marker === "fatal" ? (
        <span title={t("fatalHint")}>
          <Pill tone="warning" testId="kikwiflow-incident-marker">
            {t("fatal")}
          </Pill>
        </span>
      ) : marker === "business" ? (
        <span title={t("businessErrorHint")}>
          <Pill tone="warning" testId="kikwiflow-incident-marker">
            {t("businessError")}
          </Pill>
        </span>
      ) : null}
    </span>
  );
}

function useIncidentColumns(retry: RetryControl) {
  const t = useTranslations("kikwiflow.incidents");
  const time = useTimeFormat();
  return useMemo(() => {
    const kit = columnKit<IncidentRow, Parameters<typeof t>[0]>(col, t, time);
    // Retry leads the row, so a phone's narrow screen shows it without scrolling the table sideways.
    return col.columns([
      col.display({
        id: "action",
        header: () => <span className="sr-only">{t("action")}</span>,
        cell: ({ row }) => {
          const { incident } = row.original;
          if (incident.status !== "OPEN") return null;
          const pending = retry.pendingId === incident.id;
          return (
            <Button
              onClick={() => retry.onRetry(incident.id)}
              disabled={retry.disabledReason !== null || retry.pendingId !== null}
              title={retry.disabledReason || undefined}
              data-testid="kikwiflow-retry"
            >
              {pending ? t("retrying") : t("retry")}
            </Button>
          );
        },
      }),
      kit.text("task", (row) => row.incident.taskDefinitionId),
      col.display({
        id: "category",
        header: () => t("category"),
        cell: ({ row }) => <CategoryCell row={row.original} />,
      }),
      col.display({
        id: "exception",
        header: () => t("exception"),
        cell: ({ row }) => (
          <span className="font-mono text-xs break-all" data-testid="kikwiflow-incident-exception">
            {rootCauseClass(row.original.incident.stackTrace) ?? "–"}
          </span>
        ),
      }),
      kit.text("message", (row) => row.incident.message, "max-w-md break-words"),
      col.display({
        id: "status",
        header: () => t("status"),
        cell: ({ row }) => (
          <span data-testid="kikwiflow-incident-status">
            <StatusBadge status={statusTone(row.original.incident.status)}>{row.original.incident.status}</StatusBadge>
          </span>
        ),
      }),
      kit.dateTime("created", (row) => row.incident.createdAt),
    ]);
  }, [t, time, retry]);
}

/** Which incident a stack-trace toggle opens: its status, task, exception, time and id. */
function traceLabel(incident: Incident, time: ReturnType<typeof useTimeFormat>): string {
  const parts = [
    incident.status,
    incident.taskDefinitionId ?? "–",
    rootCauseClass(incident.stackTrace) ?? incident.type ?? "–",
    time.dateTime(incident.createdAt),
    incident.id.slice(0, 8),
  ];
  return parts.join(" · ");
}

/** Incidents as the exceptions table: Category = incident type, with a fatal / business-error marker. */
export function IncidentsTable({ rows, retry }: { rows: readonly IncidentRow[]; retry: RetryControl }) {
  const t = useTranslations("kikwiflow.incidents");
  const time = useTimeFormat();
  const columns = useIncidentColumns(retry);
  return (
    <Section title={t("title", { count: rows.length })} testId="kikwiflow-incidents">
      {rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <DataTable
          columns={columns}
          data={[...rows]}
          getRowId={(row) => row.incident.id}
          testId="kikwiflow-incident-rows"
          rowTestId="kikwiflow-incident-row"
        />
      )}
      {rows.map((row) => (
        <StackTrace key={row.incident.id} trace={row.incident.stackTrace} label={traceLabel(row.incident, time)} />
      ))}
    </Section>
  );
}
