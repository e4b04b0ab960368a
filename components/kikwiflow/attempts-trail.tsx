"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { FlowNodeFinishedPayload, RetryScheduledPayload } from "@/lib/kikwiflow/schemas";
import type { TypedEvent } from "@/lib/kikwiflow/events";
import type { KikwiflowTrail } from "@/lib/kikwiflow/trail";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted, Section } from "@/components/ui/section";
import { columnKit } from "@/components/kikwiflow/column-kit";
import { StackTrace } from "@/components/kikwiflow/stack-trace";

type Row = TypedEvent<RetryScheduledPayload>;
const col = dataColumns<Row>();

function useTrailColumns() {
  const t = useTranslations("kikwiflow.trail");
  const time = useTimeFormat();
  return useMemo(() => {
    const kit = columnKit<Row, Parameters<typeof t>[0]>(col, t, time);
    return col.columns([
      kit.text("task", (row) => row.payload.taskDefinitionId),
      col.display({
        id: "execution",
        header: () => t("execution"),
        cell: ({ row }) => `#${row.original.payload.executionsSoFar}`,
        meta: { className: "font-semibold" },
      }),
      col.display({
        id: "retriesLeft",
        header: () => t("retriesLeft"),
        cell: ({ row }) => row.original.payload.retriesLeft,
      }),
      kit.dateTime("nextDue", (row) => row.payload.nextDueDate),
      kit.text("error", (row) => row.payload.errorMessage, "max-w-md break-words text-xs"),
      kit.dateTime("scheduledAt", (row) => row.payload.scheduledAt ?? row.event.timestamp),
    ]);
  }, [t, time]);
}

/** Each failed execution (FLOW_NODE_FINISHED, ERROR): node, when, exception, and its stack trace collapsed. */
function FailedExecutions({ events }: { events: TypedEvent<FlowNodeFinishedPayload>[] }) {
  const t = useTranslations("kikwiflow.trail");
  const time = useTimeFormat();
  if (events.length === 0) return null;
  return (
    <div className="mt-3" data-testid="kikwiflow-trail-failures">
      <h3 className="mb-1 text-sm font-semibold">{t("failures")}</h3>
      <ul className="flex flex-col gap-2">
        {events.map(({ event, payload }) => (
          <li
            key={event.id}
            className="rounded-md border border-line p-2 text-sm"
            data-testid="kikwiflow-trail-failure"
          >
            <span className="font-mono text-xs">{payload.flowNodeDefinitionId ?? "–"}</span>
            <span className="ml-2 text-xs text-fg-muted">{time.dateTime(payload.finishedAt ?? event.timestamp)}</span>
            <p className="mt-1 text-xs break-words">
              <span className="font-mono">{payload.errorType ?? "–"}</span>
              {payload.errorMessage ? `: ${payload.errorMessage}` : ""}
            </p>
            <StackTrace trace={payload.errorStackTrace} label={payload.errorType ?? "–"} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** RETRY_SCHEDULED events as the attempts trail; says so when the engine keeps no events at all. */
export function AttemptsTrail({ trail }: { trail: KikwiflowTrail }) {
  const t = useTranslations("kikwiflow.trail");
  const rows = trail.retryScheduled;
  const columns = useTrailColumns();
  return (
    <Section title={t("title")} testId="kikwiflow-trail">
      <p className="mb-2 text-xs text-fg-muted">{t("description")}</p>
      {trail.eventCount === 0 ? (
        <Muted>{t("noEvents")}</Muted>
      ) : rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <DataTable
          columns={columns}
          data={rows}
          getRowId={(row) => row.event.id}
          testId="kikwiflow-trail-rows"
          rowTestId="kikwiflow-trail-row"
        />
      )}
      <FailedExecutions events={trail.failedExecutions ?? []} />
    </Section>
  );
}
