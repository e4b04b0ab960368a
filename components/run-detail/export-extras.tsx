"use client";

import type { ReactNode } from "react";
import { useFormatter, useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { RunViewExtras } from "@/lib/views/run-view-wire";
import { runViewErrorInfo, runViewExtrasQuery } from "@/lib/queries/run-view";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { Muted } from "@/components/ui/section";

/**
 * Sections only the run's export has (all tasks, commands, the server's projected waits, links),
 * read on the console server when a tab that shows them opens (`GET /api/run-view/extras`): the
 * bulk never reaches the browser, and the tab says where the fields came from and what it cost.
 */
export function ExportExtras({
  namespace,
  workflowId,
  runId,
  open,
  fields,
  children,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
  open: boolean;
  /** The fields this tab takes from the export, as the operator should read them. */
  fields: string;
  children: (extras: RunViewExtras) => ReactNode;
}) {
  const t = useTranslations("run.extras");
  const format = useFormatter();
  const extras = useQuery(runViewExtrasQuery(namespace, workflowId, runId, open));
  if (extras.error)
    return <DwErrorState error={runViewErrorInfo(extras.error)} onRetry={() => void extras.refetch()} />;
  if (!extras.data) return <Muted>{t("loading", { fields })}</Muted>;
  const megabytes = format.number(extras.data.exportBytes / 1_000_000, { maximumFractionDigits: 1 });
  return (
    <div className="space-y-2" data-testid="export-extras">
      <p className="text-xs text-fg-muted" data-testid="export-extras-source">
        {t("source", { fields, megabytes })}
      </p>
      {children(extras.data)}
    </div>
  );
}
