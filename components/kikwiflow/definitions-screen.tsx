"use client";

import { useMemo } from "react";
import Link from "@/components/ui/link";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { DefinitionSummary } from "@/lib/kikwiflow/definition-view";
import { kikwiflowDefinitionsQuery } from "@/lib/queries/kikwiflow";
import { kikwiflowDefinitionHref } from "@/lib/routes/route-for";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { EngineError } from "@/components/kikwiflow/engine-error";

const col = dataColumns<DefinitionSummary>();

function useDefinitionColumns() {
  const t = useTranslations("kikwiflow.definitions");
  return useMemo(
    () =>
      col.columns([
        col.accessor("key", {
          header: () => t("key"),
          cell: ({ row }) => (
            <Link
              href={kikwiflowDefinitionHref(row.original.id)}
              className="font-mono text-xs text-accent hover:underline"
              data-testid="kikwiflow-definition-link"
            >
              {row.original.key}
            </Link>
          ),
        }),
        col.accessor("version", { header: () => t("version"), cell: (info) => info.getValue() ?? "–" }),
        col.accessor("name", { header: () => t("name"), cell: (info) => info.getValue() ?? "–" }),
        col.accessor("nodeCount", { header: () => t("nodes"), cell: (info) => info.getValue() }),
        col.accessor("id", {
          header: () => t("id"),
          cell: (info) => <span className="font-mono text-xs text-fg-muted">{info.getValue()}</span>,
        }),
      ]),
    [t],
  );
}

/** Every deployed version of every Kikwiflow process definition. */
export function KikwiflowDefinitionsScreen() {
  const t = useTranslations("kikwiflow.definitions");
  const query = useQuery(kikwiflowDefinitionsQuery());
  const columns = useDefinitionColumns();
  return (
    <section className="flex flex-col gap-3" data-testid="kikwiflow-definitions">
      {query.isPending ? <p className="text-sm text-fg-muted">{t("loading")}</p> : null}
      {query.error ? <EngineError error={query.error} /> : null}
      {query.data ? (
        <DataTable
          columns={columns}
          data={query.data}
          getRowId={(row) => row.id}
          empty={<p className="text-sm text-fg-muted">{t("none")}</p>}
          testId="kikwiflow-definition-rows"
          rowTestId="kikwiflow-definition-row"
        />
      ) : null}
    </section>
  );
}
