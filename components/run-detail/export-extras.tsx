"use client";

import type { ReactNode } from "react";
import { useFormatter, useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { RunViewExtras } from "@/lib/run-view/wire";
import { runViewErrorInfo, runViewExtrasQuery } from "@/lib/run-view/stream";
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

// The extras are export rows relayed as read (lib/run-view/wire.ts): the export's own shapes.
export const exportTasks = (extras: RunViewExtras) => extras.tasks as unknown as NonNullable<HistoryExport["tasks"]>;
export const exportCommands = (extras: RunViewExtras) =>
  extras.commands as unknown as NonNullable<HistoryExport["commands"]>;
export const exportWaits = (extras: RunViewExtras) => extras.waits as unknown as NonNullable<HistoryExport["waits"]>;
export const exportLinks = (extras: RunViewExtras) => (extras.links ?? undefined) as HistoryExport["links"] | undefined;

/** A table cell's text: an export value as it reads, "–" for none. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === "") return "–";
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : JSON.stringify(value);
}

export const NOWRAP = { className: "whitespace-nowrap" };

/** A sub-heading inside a tab's panel. */
export function Heading({ children }: { children: string }) {
  return <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{children}</h3>;
}
