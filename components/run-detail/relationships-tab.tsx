"use client";

import type { ReactNode } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { RunListItem } from "@/lib/dw/schemas-workflows";
import { runViewExtrasQuery } from "@/lib/run-view/stream";
import { runHref, workflowHref } from "@/lib/routes/route-for";
import type { RunLinkGroupKind, RunLinkItem } from "@/lib/views/run-links";
import { runLinkGroups } from "@/lib/views/run-links";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Muted } from "@/components/ui/section";
import { StatusBadge } from "@/components/ui/status-badge";
import { ExportExtras, exportLinks } from "@/components/run-detail/export-extras";
import type { RunTabData, RunTabProps } from "@/components/run-detail/run-tab-registry";

/** Continue-as-new chain (every run of the workflow) and the links: continued from/as, parent and children. */
export function RunRelationships({
  namespace,
  workflowId,
  runId,
  runs,
  links,
  linksPending,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
  runs: readonly RunListItem[];
  /** From the export (read lazily); undefined while it is read, and the link lists say so. */
  links: HistoryExport["links"] | undefined;
  /** Shown instead of the link lists until they are read. */
  linksPending?: ReactNode;
}) {
  const t = useTranslations("run.relationships");
  const time = useTimeFormat();
  return (
    <div className="space-y-4" data-testid="relationships">
      <div>
        <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{t("runs")}</h3>
        {runs.length === 0 ? (
          <Muted>{t("noRuns")}</Muted>
        ) : (
          <ol className="space-y-1 text-sm">
            {[...runs]
              .sort((a, b) => a.run_number - b.run_number)
              .map((run) => (
                <li key={run.run_id} className="flex flex-wrap items-center gap-2">
                  <span className="w-10 font-mono text-fg-muted">#{run.run_number}</span>
                  {run.run_id === runId ? (
                    <span className="font-mono font-semibold">{run.run_id}</span>
                  ) : (
                    <Link
                      href={runHref(namespace, workflowId, run.run_id)}
                      className="font-mono text-accent hover:underline"
                    >
                      {run.run_id}
                    </Link>
                  )}
                  <StatusBadge status={run.status} />
                  <span className="text-xs text-fg-muted">{time.dateTime(run.started_at)}</span>
                  {run.run_id === runId ? <span className="text-xs text-fg-muted">{t("viewing")}</span> : null}
                </li>
              ))}
          </ol>
        )}
      </div>
      {linksPending ??
        runLinkGroups(links ?? {}).map(({ kind, items }) => (
          <LinkGroup key={kind} kind={kind} items={items} namespace={namespace} />
        ))}
    </div>
  );
}

/** One group of linked runs (continued from, parent, continued as, children), each a link to its run. */
function LinkGroup({ kind, items, namespace }: { kind: RunLinkGroupKind; items: RunLinkItem[]; namespace: string }) {
  const t = useTranslations("run.relationships");
  return (
    <div data-testid={`link-${kind}`}>
      <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{t(`groups.${kind}`)}</h3>
      {items.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <ul className="space-y-1 text-sm">
          {items.map((link) => (
            <li key={link.key} className="flex flex-wrap items-center gap-2">
              {link.workflowId ? (
                <Link
                  href={
                    link.runId
                      ? runHref(namespace, link.workflowId, link.runId)
                      : workflowHref(namespace, link.workflowId)
                  }
                  className="font-mono text-accent hover:underline"
                >
                  {link.runId && (kind === "continuedFrom" || kind === "continuedAs") ? link.runId : link.workflowId}
                </Link>
              ) : (
                "–"
              )}
              {link.workflowType ? <span>{link.workflowType}</span> : null}
              {link.status ? <StatusBadge status={link.status} /> : null}
              {/* A link kind the console has no words for stays the server's code. */}
              {link.unknownType ? (
                <span className="text-xs text-fg-muted" data-code="">
                  {link.unknownType}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The continue-as-new chain at once (runs list); parent and child links from the export. */
export function RelationshipsTab({ runs, ...run }: RunTabProps & Pick<RunTabData, "runs">) {
  const tf = useTranslations("run.extrasFields");
  const extras = useQuery(runViewExtrasQuery(run.namespace, run.workflowId, run.runId, run.open));
  return (
    <RunRelationships
      namespace={run.namespace}
      workflowId={run.workflowId}
      runId={run.runId}
      runs={runs}
      links={extras.data ? exportLinks(extras.data) : undefined}
      linksPending={
        extras.data ? undefined : (
          <ExportExtras {...run} fields={tf("links")}>
            {() => null}
          </ExportExtras>
        )
      }
    />
  );
}
