"use client";

import { useMemo, useState } from "react";
import dynamic from "next/dynamic";
import Link from "@/components/ui/link";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { AttentionGroup, AttentionScan } from "@/lib/kikwiflow/attention";
import { definitionText, kikwiflowAttentionQuery } from "@/lib/queries/kikwiflow";
import type { DefinitionLabel } from "@/lib/queries/kikwiflow";
import { kikwiflowInstanceHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Pill } from "@/components/ui/status-badge";
import { Button } from "@/components/ui/button";
import { EngineError } from "@/components/kikwiflow/engine-error";

// The bulk panel (and the bulk runner it drives) loads when an operator opens it, not with the page.
const BulkRetry = dynamic(() => import("@/components/kikwiflow/bulk-retry").then((m) => m.BulkRetry), {
  loading: () => null,
});

/** Instance links shown per group; the rest are counted. */
const SHOWN_INSTANCES = 5;
const col = dataColumns<AttentionGroup>();

function Instances({ group }: { group: AttentionGroup }) {
  const t = useTranslations("kikwiflow.attention");
  const hidden = group.instances.length - SHOWN_INSTANCES;
  return (
    <ul className="flex flex-col gap-0.5">
      {group.instances.slice(0, SHOWN_INSTANCES).map((instance) => (
        <li key={instance.incidentId}>
          <Link
            href={kikwiflowInstanceHref(instance.processInstanceId)}
            className="font-mono text-xs text-accent hover:underline"
            data-testid="kikwiflow-attention-instance"
          >
            {instance.processInstanceId}
          </Link>
        </li>
      ))}
      {hidden > 0 ? <li className="text-xs text-fg-muted">{t("moreInstances", { count: hidden })}</li> : null}
    </ul>
  );
}

function CategoryCell({ group }: { group: AttentionGroup }) {
  const ti = useTranslations("kikwiflow.incidents");
  return (
    <span className="flex flex-wrap items-center gap-1">
      <span className="font-mono text-xs" data-code="">
        {group.type ?? "–"}
      </span>
      {group.type === "UNHANDLED_BUSINESS_ERROR" ? (
        <span title={ti("businessErrorHint")}>
          <Pill tone="warning">{ti("businessError")}</Pill>
        </span>
      ) : null}
      {group.fatal > 0 ? (
        <span title={ti("fatalHint")} data-testid="kikwiflow-attention-fatal">
          <Pill tone="warning">{ti("fatal")}</Pill>
        </span>
      ) : null}
    </span>
  );
}

function useGroupColumns(
  definitions: Readonly<Record<string, DefinitionLabel>>,
  onRetryAll: (group: AttentionGroup) => void,
) {
  const t = useTranslations("kikwiflow.attention");
  const time = useTimeFormat();
  return useMemo(
    () =>
      col.columns([
        // First, so a phone sees it without scrolling the table sideways (as the incidents' Retry).
        col.display({
          id: "actions",
          header: () => t("actions"),
          cell: ({ row }) => (
            <Button
              size="sm"
              data-testid="kikwiflow-attention-retry-all"
              onClick={() => onRetryAll(row.original)}
              className="whitespace-nowrap"
            >
              {t("retryAll", { count: row.original.count })}
            </Button>
          ),
        }),
        col.accessor("processDefinitionId", {
          header: () => t("definition"),
          cell: (info) => {
            const id = info.getValue();
            return (
              <span className="font-mono text-xs" title={id ?? undefined} data-testid="kikwiflow-attention-definition">
                {id ? definitionText(id, definitions[id]) : "–"}
              </span>
            );
          },
        }),
        col.accessor("type", {
          header: () => t("category"),
          cell: ({ row }) => <CategoryCell group={row.original} />,
        }),
        col.accessor("taskName", {
          header: () => t("task"),
          cell: ({ row }) => (
            <span className="font-mono text-xs" title={row.original.taskDefinitionId ?? undefined}>
              {row.original.taskName ?? row.original.taskDefinitionId ?? "–"}
            </span>
          ),
        }),
        col.accessor("exception", {
          header: () => t("exception"),
          cell: (info) => <span className="font-mono text-xs">{info.getValue() ?? t("noException")}</span>,
        }),
        col.accessor("count", {
          header: () => t("count"),
          cell: (info) => <span data-testid="kikwiflow-attention-count">{info.getValue()}</span>,
        }),
        col.accessor("lastSeen", {
          header: () => t("lastSeen"),
          cell: ({ row }) => (
            <span className="whitespace-nowrap" title={time.dateTime(row.original.firstSeen)}>
              {time.dateTime(row.original.lastSeen)}
            </span>
          ),
        }),
        col.display({
          id: "instances",
          header: () => t("instances"),
          cell: ({ row }) => <Instances group={row.original} />,
        }),
      ]),
    [t, time, definitions, onRetryAll],
  );
}

/** What the scan read, its bound, and what finished while it ran: the limits are stated, not hidden. */
function ScanLine({ scan }: { scan: AttentionScan }) {
  const t = useTranslations("kikwiflow.attention");
  return (
    <p className="text-sm text-fg-muted" data-testid="kikwiflow-attention-scan">
      {t("scanned", { scanned: scan.scanned, total: scan.total })}
      {scan.capped ? ` ${t("capped", { limit: scan.scanned })}` : ""}
      {scan.movedOn > 0 ? ` ${t("movedOn", { count: scan.movedOn })}` : ""}
    </p>
  );
}

const NO_DEFINITIONS: Readonly<Record<string, DefinitionLabel>> = {};

function groupDefinition(group: AttentionGroup, definitions: Readonly<Record<string, DefinitionLabel>>): string {
  const id = group.processDefinitionId;
  return id ? definitionText(id, definitions[id]) : "–";
}

/** Kikwiflow's attention inbox: OPEN incidents across ACTIVE instances, grouped (issue 17 item 4). */
export function KikwiflowAttentionScreen() {
  const t = useTranslations("kikwiflow.attention");
  const query = useQuery(kikwiflowAttentionQuery());
  // The group as it was when its panel opened: the scan refreshes underneath it.
  const [retrying, setRetrying] = useState<AttentionGroup | null>(null);
  const columns = useGroupColumns(query.data?.definitions ?? NO_DEFINITIONS, setRetrying);
  const scan = query.data;
  return (
    <section className="flex flex-col gap-3" data-testid="kikwiflow-attention">
      {query.isPending ? <p className="text-sm text-fg-muted">{t("scanning")}</p> : null}
      {query.error ? <EngineError error={query.error} /> : null}
      {scan ? <ScanLine scan={scan} /> : null}
      {retrying ? (
        <BulkRetry
          key={retrying.key}
          group={retrying}
          definition={groupDefinition(retrying, scan?.definitions ?? NO_DEFINITIONS)}
          onClose={() => setRetrying(null)}
        />
      ) : null}
      {scan ? (
        scan.groups.length === 0 ? (
          <p className="text-sm text-fg-muted">{t("none")}</p>
        ) : (
          <DataTable
            columns={columns}
            data={[...scan.groups]}
            getRowId={(group) => group.key}
            testId="kikwiflow-attention-groups"
          />
        )
      ) : null}
    </section>
  );
}
