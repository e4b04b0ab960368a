"use client";

import { useMemo, useState } from "react";
import dynamic from "next/dynamic";
import Link from "@/components/ui/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { ClosedFailureGroup, TriageWindow } from "@/lib/views/closed-failures";
import type { ClosedVerdict } from "@/lib/views/closed-failures";
import { CLOSED_VERDICTS, TRIAGE_WINDOWS, closedFailureGroups, parseTriageWindow } from "@/lib/views/closed-failures";
import { SavedViewsBar } from "@/components/saved-views/saved-views-bar";
import { Field, inputClass } from "@/components/ui/field";
import type { FailuresScanProgress } from "@/lib/queries/failures";
import { failuresScanQuery } from "@/lib/queries/failures";
import { WALK_LIMITS } from "@/lib/confirm/bulk-limits";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { useBulkRefusal } from "@/components/actions/use-bulk-refusal";
import { ExportLinks } from "@/components/dw/export-links";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { EmptyState } from "@/components/ui/empty-state";
import { Button } from "@/components/ui/button";
import { ServerText } from "@/components/ui/server-text";
import { FailuresDocsLink } from "@/components/dw/failures-docs-link";

// The start-again panel (and the bulk runner it drives) loads when an operator opens it, not with the page.
const BulkStartAgain = dynamic(() => import("@/components/failures/bulk-start-again").then((m) => m.BulkStartAgain), {
  loading: () => null,
});

const DRILL_ROWS = 50;

/**
 * Fleet failure triage (issue 15 item 1): the runs that closed badly in a window, grouped by cause,
 * with a drill-down to the runs and "start again" for a whole group.
 */
export function FailuresScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("failures");
  const time = useTimeFormat();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const windowName = parseTriageWindow(params.get("window"));
  const [progress, setProgress] = useState<FailuresScanProgress>({ listed: 0, read: 0, toRead: 0 });
  const scan = useQuery(failuresScanQuery(namespace, windowName, setProgress));
  const refusal = useBulkRefusal();
  const [open, setOpen] = useState<string | null>(null);
  const [bulkFor, setBulkFor] = useState<ClosedFailureGroup | null>(null);
  const data = scan.data;
  // `?cause=`: one verdict's groups only (the built-in "non-retryable failures today" view uses it).
  const cause = parseCause(params.get("cause"));
  const all = useMemo(() => (data ? closedFailureGroups(data.runs, data.window) : null), [data]);
  const triage = useMemo(
    () => (all && cause ? { ...all, groups: all.groups.filter((group) => group.verdict === cause) } : all),
    [all, cause],
  );

  const pick = (next: TriageWindow) => setParam("window", next);
  const setParam = (key: "window" | "cause", value: string) => {
    const query = new URLSearchParams(params.toString());
    if (value) query.set(key, value);
    else query.delete(key);
    setOpen(null);
    setBulkFor(null);
    router.replace(`${pathname}?${query.toString()}`);
  };

  if (scan.isError && !data)
    return <DwErrorState error={toErrorInfo(scan.error)} onRetry={() => void scan.refetch()} />;

  return (
    <div className="space-y-4">
      <SavedViewsBar screen="failures" />
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex flex-wrap items-center gap-2" role="group" aria-label={t("windowLabel")}>
          {(Object.keys(TRIAGE_WINDOWS) as TriageWindow[]).map((name) => (
            <Button
              key={name}
              size="xs"
              pressed={name === windowName}
              data-testid={`window-${name}`}
              onClick={() => pick(name)}
            >
              {t(`window.${name}`)}
            </Button>
          ))}
        </div>
        <Field label={t("causeLabel")}>
          <select
            className={inputClass}
            value={cause ?? ""}
            onChange={(event) => setParam("cause", event.target.value)}
            data-testid="failures-cause"
          >
            <option value="">{t("anyCause")}</option>
            {CLOSED_VERDICTS.map((verdict) => (
              <option key={verdict} value={verdict}>
                {t(`verdict.${verdict}`)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div
        role="status"
        aria-live="polite"
        data-testid="failures-status"
        className="rounded-lg border border-line bg-panel px-4 py-3 text-sm"
      >
        {scan.isFetching && !data ? (
          <p>{t("scanning", { listed: progress.listed, read: progress.read, toRead: progress.toRead })}</p>
        ) : data && all ? (
          <p>
            {t("scanned", {
              count: all.inWindow,
              groups: all.groups.length,
              window: t(`windowIn.${windowName}`),
              at: time.dateTime(data.scannedAt),
            })}
          </p>
        ) : null}
        {data ? (
          <p data-testid="failures-limits" className="mt-1 text-xs text-fg-muted">
            {t("limits", {
              listed: data.listed,
              requests: data.listRequests,
              limit: WALK_LIMITS.scanLimit,
              pageSize: WALK_LIMITS.scanPageSize,
              concurrency: WALK_LIMITS.scanConcurrency,
              seconds: WALK_LIMITS.rescanSeconds,
            })}
            {data.capped ? ` ${t("capped", { limit: WALK_LIMITS.scanLimit })}` : ""}
            {all?.unreadable ? ` ${t("unreadable", { count: all.unreadable })}` : ""}
          </p>
        ) : null}
        <p className="mt-1">
          <FailuresDocsLink />
        </p>
      </div>

      {triage && triage.groups.length === 0 ? (
        <EmptyState title={t("emptyTitle")}>
          <p>{t("emptyBody", { window: t(`windowIn.${windowName}`) })}</p>
        </EmptyState>
      ) : null}

      {bulkFor ? (
        <section aria-label={t("bulk.title")} className="rounded-lg border border-accent/50 bg-panel p-4">
          <h3 className="text-sm font-semibold break-words">{groupTitle(bulkFor, t)}</h3>
          <BulkStartAgain
            key={bulkFor.key}
            namespace={namespace}
            members={bulkFor.runs}
            canAct={refusal === null}
            disabledReason={refusal}
            onClose={() => setBulkFor(null)}
          />
        </section>
      ) : null}

      {triage && triage.groups.length ? (
        <div className="overflow-x-auto rounded-lg border border-line bg-panel">
          <table className="w-full text-sm" data-testid="failure-groups">
            <thead className="bg-panel-muted text-left text-xs text-fg-muted uppercase">
              <tr>
                <th className="px-3 py-2 font-semibold">{t("col.verdict")}</th>
                <th className="px-3 py-2 font-semibold">{t("col.exception")}</th>
                <th className="px-3 py-2 font-semibold">{t("col.category")}</th>
                <th className="px-3 py-2 font-semibold">{t("col.workflowType")}</th>
                <th className="px-3 py-2 text-right font-semibold">{t("col.runs")}</th>
                <th className="px-3 py-2 font-semibold">{t("col.seen")}</th>
                <th className="px-3 py-2 font-semibold">
                  <span className="sr-only">{t("col.actions")}</span>
                </th>
              </tr>
            </thead>
            {triage.groups.map((group) => (
              <GroupRows
                key={group.key}
                namespace={namespace}
                group={group}
                expanded={open === group.key}
                onToggle={() => setOpen(open === group.key ? null : group.key)}
                onBulk={() => setBulkFor(group)}
                bulkOpen={bulkFor?.key === group.key}
              />
            ))}
          </table>
        </div>
      ) : null}
    </div>
  );
}

function parseCause(value: string | null): ClosedVerdict | null {
  return (CLOSED_VERDICTS as readonly string[]).includes(value ?? "") ? (value as ClosedVerdict) : null;
}

type Translate = ReturnType<typeof useTranslations<"failures">>;

function groupTitle(group: ClosedFailureGroup, t: Translate): string {
  return `${t(`verdict.${group.verdict}`)} · ${group.exceptionType ?? t("noException")} · ${group.workflowType ?? t("unknownType")}`;
}

const VERDICT_TONE: Record<ClosedFailureGroup["verdict"], string> = {
  non_retryable: "bg-bad/10 text-bad",
  retries_exhausted: "bg-bad/10 text-bad",
  timeout: "bg-warn/10 text-warn",
  workflow_failed: "bg-bad/10 text-bad",
  terminated: "bg-panel-muted text-fg-muted",
  cancelled: "bg-panel-muted text-fg-muted",
};

function GroupRows({
  namespace,
  group,
  expanded,
  onToggle,
  onBulk,
  bulkOpen,
}: {
  namespace: string;
  group: ClosedFailureGroup;
  expanded: boolean;
  onToggle: () => void;
  onBulk: () => void;
  bulkOpen: boolean;
}) {
  const t = useTranslations("failures");
  const time = useTimeFormat();
  // The window the scan read, for the group's download (the export reads the same window afresh).
  const windowName = parseTriageWindow(useSearchParams().get("window"));
  const drillId = `drill-${group.key.replace(/[^a-zA-Z0-9]/g, "").slice(0, 40)}-${group.count}`;
  return (
    <tbody
      data-testid="failure-group"
      data-verdict={group.verdict}
      data-count={group.count}
      className="border-t border-line align-top"
    >
      <tr>
        <td className="px-3 py-2">
          <span
            className={`rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${VERDICT_TONE[group.verdict]}`}
          >
            {t(`verdict.${group.verdict}`)}
          </span>
        </td>
        <td className="max-w-md min-w-56 px-3 py-2">
          <div
            className="font-mono text-xs [overflow-wrap:anywhere]"
            data-testid="group-type"
            title={group.exceptionType ?? undefined}
          >
            {group.exceptionType ?? t("noException")}
          </div>
          {group.messages.length ? (
            <ul className="mt-0.5 space-y-0.5 text-xs text-fg-muted" aria-label={t("messagesLabel")}>
              {group.messages.map(({ message, count }) => (
                <li key={message} data-testid="group-message" data-count={count} className="flex gap-1.5">
                  <span className="line-clamp-2 min-w-0 break-words" title={message}>
                    <ServerText text={message} />
                  </span>
                  <span className="shrink-0 tabular-nums">{t("messageRuns", { count })}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </td>
        <td className="px-3 py-2 text-xs">
          <div className="flex flex-wrap items-center gap-1">
            <span data-code="">{group.failureCategory ?? "–"}</span>
            {group.nonRetryable ? (
              <span data-testid="non-retryable" className="rounded bg-bad/10 px-1.5 text-bad">
                {t("nonRetryable")}
              </span>
            ) : null}
          </div>
          {group.sourceKind ? <div className="text-fg-muted">{t(`source.${sourceKey(group.sourceKind)}`)}</div> : null}
        </td>
        <td className="px-3 py-2 font-mono text-xs whitespace-nowrap">{group.workflowType ?? t("unknownType")}</td>
        <td className="px-3 py-2 text-right font-semibold tabular-nums" data-testid="group-count">
          {group.count}
        </td>
        <td className="px-3 py-2 text-xs whitespace-nowrap text-fg-muted">
          <div title={group.lastSeen ?? undefined}>{t("last", { at: time.compact(group.lastSeen) })}</div>
          <div title={group.firstSeen ?? undefined}>{t("first", { at: time.compact(group.firstSeen) })}</div>
        </td>
        <td className="px-3 py-2">
          <div className="flex flex-col items-end gap-1">
            <Button size="xs" aria-expanded={expanded} aria-controls={drillId} data-testid="drill" onClick={onToggle}>
              {expanded ? t("hideRuns") : t("showRuns", { count: group.count })}
            </Button>
            <Button size="xs" data-testid="bulk-open" disabled={bulkOpen} onClick={onBulk}>
              {t("startAgain", { count: group.count })}
            </Button>
            <ExportLinks
              list="failures"
              namespace={namespace}
              filters={{ window: windowName, group: group.key }}
              testId="export-failures-group"
            />
          </div>
        </td>
      </tr>
      {expanded ? (
        <tr id={drillId}>
          <td colSpan={7} className="bg-panel-muted px-3 py-2">
            <ul className="grid gap-1 sm:grid-cols-2 lg:grid-cols-3" aria-label={t("runsLabel")}>
              {group.runs.slice(0, DRILL_ROWS).map((ref) => (
                <li key={ref.runId} className="min-w-0 truncate">
                  <Link
                    href={runHref(namespace, ref.workflowId, ref.runId)}
                    data-testid="drill-run"
                    className="font-mono text-xs text-accent hover:underline"
                    title={`${ref.workflowId} · ${ref.runId}`}
                  >
                    {ref.workflowId}
                  </Link>
                </li>
              ))}
            </ul>
            {group.runs.length > DRILL_ROWS ? (
              <p className="mt-1 text-xs text-fg-muted">{t("moreRuns", { count: group.runs.length - DRILL_ROWS })}</p>
            ) : null}
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}

const SOURCES = [
  "activity_execution",
  "workflow_run",
  "child_workflow_run",
  "workflow_command",
  "workflow_task",
] as const;

function sourceKey(kind: string): (typeof SOURCES)[number] | "other" {
  return (SOURCES as readonly string[]).includes(kind) ? (kind as (typeof SOURCES)[number]) : "other";
}
