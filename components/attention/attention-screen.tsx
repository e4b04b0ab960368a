"use client";

import { useEffect, useMemo, useState } from "react";
import dynamic from "next/dynamic";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import type { FailureGroup, RunRef } from "@/lib/views/failure-groups";
import { failureGroups } from "@/lib/views/failure-groups";
import { livenessLabel } from "@/lib/views/liveness";
import { operatorMetricsQuery } from "@/lib/queries/metrics";
import { attentionTally } from "@/lib/views/attention-tally";
import { useAttentionCount } from "@/components/attention/use-attention-count";
import { RunRetryForecast } from "@/components/actions/retry-forecast";
import { useBulkRefusal } from "@/components/actions/use-bulk-refusal";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref } from "@/lib/routes/route-for";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { EmptyState } from "@/components/ui/empty-state";
import { runKey, SCAN_LIMIT, useAttentionScan } from "@/components/attention/use-attention-scan";
import { Button } from "@/components/ui/button";
import { ServerText } from "@/components/ui/server-text";
import { FailuresDocsLink } from "@/components/dw/failures-docs-link";
import { WALK_LIMITS } from "@/lib/confirm/bulk-limits";
import { ScheduleHealthStats } from "@/components/schedules/schedule-health-stats";

// The bulk panel (and the bulk runner it drives) loads when an operator opens it, not with the page.
const BulkRepair = dynamic(() => import("@/components/attention/bulk-repair").then((m) => m.BulkRepair), {
  loading: () => null,
});

const REPAIRABLE_CAUSES = new Set(["repair_needed", "replay_blocked"]);
const SAMPLE_SIZE = 3;

/** The stuck-run triage inbox (ui-anchors §2 item 1): open runs needing an operator, grouped. */
export function AttentionScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("attention");
  const time = useTimeFormat();
  const now = useTicker(10_000);
  const scan = useAttentionScan(namespace);
  const repairRefusal = useBulkRefusal();
  const counted = useAttentionCount(namespace).count;
  const queryClient = useQueryClient();
  const [bulkFor, setBulkFor] = useState<{ key: string; title: string; members: RunRef[] } | null>(null);

  const data = scan.data;
  const groups = useMemo(
    // Every member is kept (the bulk plan needs them all); the card shows the first few.
    () => (data ? failureGroups(data.runs, { now: data.scannedAt, sampleSize: Number.MAX_SAFE_INTEGER }) : []),
    [data],
  );
  const tally = attentionTally(groups, counted);
  // The server's count is read again as each scan ends, so the two describe the same moment.
  useEffect(() => {
    if (data) void queryClient.invalidateQueries({ queryKey: operatorMetricsQuery(namespace).queryKey });
  }, [data, namespace, queryClient]);

  if (scan.isError && !data)
    return <DwErrorState error={toErrorInfo(scan.error)} onRetry={() => void scan.refetch()} />;

  const canRepair = repairRefusal === null;

  return (
    <div className="space-y-4">
      <div
        role="status"
        aria-live="polite"
        data-testid="scan-status"
        className="rounded-lg border border-line bg-panel px-4 py-3 text-sm"
      >
        {scan.isFetching && !data ? (
          <p>{t("scanning", { listed: scan.progress.listed, read: scan.progress.read })}</p>
        ) : data ? (
          <p>
            {t("scanned", { count: data.runs.length, groups: groups.length, at: time.dateTime(data.scannedAt) })}{" "}
            {scan.isFetching ? (
              <span className="text-fg-muted">
                {t("rescanning", { read: scan.progress.read, listed: scan.progress.listed })}
              </span>
            ) : null}
          </p>
        ) : null}
        {data ? (
          <p data-testid="scan-limits" className="mt-1 text-xs text-fg-muted">
            {t("limits", {
              read: data.read,
              listed: data.listed,
              concurrency: WALK_LIMITS.scanConcurrency,
              limit: WALK_LIMITS.scanLimit,
              pageSize: WALK_LIMITS.scanPageSize,
              seconds: WALK_LIMITS.rescanSeconds,
            })}
          </p>
        ) : null}
        {data && tally.counted !== null ? (
          <p data-testid="attention-server-count" data-count={tally.counted} data-found={tally.found} className="mt-1">
            {t("serverCount", { count: tally.counted })}
            {tally.counted > 0 ? ` ${t("serverCountFound", { found: tally.found })}` : ""}
          </p>
        ) : null}
        {data ? (
          <p data-testid="scan-partial" className="mt-1 text-xs text-fg-muted">
            {t("partial")}
            {data.capped ? ` ${t("capped", { limit: SCAN_LIMIT })}` : ""}
            {data.unreadable ? ` ${t("unreadable", { count: data.unreadable })}` : ""}
          </p>
        ) : null}
        <div className="mt-2 flex flex-wrap items-center gap-3">
          <Button size="xs" onClick={() => void scan.refetch()} disabled={scan.isFetching}>
            {t("rescan")}
          </Button>
          <FailuresDocsLink />
        </div>
      </div>

      <section aria-label={t("schedulesTitle")} className="rounded-lg border border-line bg-panel px-4 py-3">
        <h2 className="mb-2 text-sm font-semibold text-fg-muted">{t("schedulesTitle")}</h2>
        <ScheduleHealthStats namespace={namespace} />
      </section>

      {data && groups.length === 0 && tally.unlisted > 0 ? (
        <EmptyState title={t("unlistedTitle", { count: tally.unlisted })}>
          <p>{t("unlistedBody")}</p>
        </EmptyState>
      ) : data && groups.length === 0 ? (
        <EmptyState title={t("emptyTitle")}>
          <p>{t("emptyBody", { count: data.runs.length })}</p>
        </EmptyState>
      ) : null}

      {bulkFor ? (
        // Outside the group list: the group may vanish from the next scan once its runs are repaired,
        // and the outcome must stay on screen.
        <section aria-label={bulkFor.title} className="rounded-lg border border-accent/50 bg-panel p-4">
          <h3 className="text-sm font-semibold">{bulkFor.title}</h3>
          <BulkRepair
            key={bulkFor.key}
            namespace={namespace}
            members={bulkFor.members}
            canAct={canRepair}
            disabledReason={repairRefusal}
            onClose={() => setBulkFor(null)}
          />
        </section>
      ) : null}

      <ul className="space-y-3" aria-label={t("groupsLabel")}>
        {groups.map((group) => (
          <GroupCard
            key={group.key}
            namespace={namespace}
            group={group}
            now={now}
            debugState={(ref) => data?.debugByRun.get(runKey(ref.workflowId, ref.runId))?.execution ?? null}
            bulkOpen={bulkFor?.key === group.key}
            onBulk={() =>
              setBulkFor({
                key: group.key,
                title: `${t(`cause.${group.cause}`)} · ${group.workflowType ?? t("unknownType")}${group.activityType ? ` › ${group.activityType}` : ""}`,
                members: group.samples,
              })
            }
          />
        ))}
      </ul>
    </div>
  );
}

function GroupCard({
  namespace,
  group,
  now,
  debugState,
  bulkOpen,
  onBulk,
}: {
  namespace: string;
  group: FailureGroup;
  now: number;
  debugState: (ref: RunRef) => { liveness_state?: string | null; liveness_reason?: string | null } | null;
  bulkOpen: boolean;
  onBulk: () => void;
}) {
  const t = useTranslations("attention");
  const tv = useTranslations();
  const time = useTimeFormat();
  const oldestAge = group.oldestSince ? now - new Date(group.oldestSince).getTime() : group.oldestAgeMs;
  const repairable = REPAIRABLE_CAUSES.has(group.cause);
  return (
    <li
      data-testid="attention-group"
      data-cause={group.cause}
      data-count={group.count}
      className="rounded-lg border border-line bg-panel p-4"
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h3 className="text-base font-semibold text-fg">
            <span className={group.cause === "repair_needed" ? "text-bad" : "text-warn"}>
              {t(`cause.${group.cause}`)}
            </span>
            <span className="ml-2 font-mono text-sm text-fg-muted">{group.workflowType ?? t("unknownType")}</span>
            {group.activityType ? (
              <span className="ml-2 font-mono text-sm text-fg-muted">› {group.activityType}</span>
            ) : null}
          </h3>
          <p className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm text-fg-muted">
            <span>
              <strong className="text-fg tabular-nums" data-testid="group-count">
                {group.count}
              </strong>{" "}
              {t("runs", { count: group.count })}
            </span>
            <span>{t("oldest", { age: time.duration(oldestAge) })}</span>
            <span>{t("newest", { at: time.dateTime(group.newestAt) })}</span>
            {group.failureCategory ? <span>{t("category", { category: group.failureCategory })}</span> : null}
            {group.nonRetryable === true ? (
              <span className="rounded bg-bad/10 px-1.5 text-bad">{t("nonRetryable")}</span>
            ) : null}
          </p>
        </div>
        {repairable ? (
          <Button data-testid="bulk-open" onClick={onBulk} disabled={bulkOpen}>
            {t("repairAll", { count: group.count })}
          </Button>
        ) : (
          <span className="max-w-xs text-xs text-fg-muted">{t(`noBulk.${group.cause}`)}</span>
        )}
      </div>
      <ul className="mt-3 space-y-2" aria-label={t("samplesLabel")}>
        {group.samples.slice(0, SAMPLE_SIZE).map((ref) => {
          const state = debugState(ref);
          const liveness = livenessLabel(state).label;
          return (
            <li key={ref.runId} className="rounded-md bg-panel-muted px-3 py-2 text-sm">
              <Link
                href={runHref(namespace, ref.workflowId, ref.runId)}
                className="font-mono text-accent hover:underline"
                data-testid="sample-run"
              >
                {ref.workflowId}
              </Link>
              <span className="ml-2 text-xs text-fg-muted">{tv(liveness.id, liveness.values)}</span>
              {state?.liveness_reason ? (
                <p className="mt-0.5 text-xs break-words text-fg-muted">
                  <ServerText text={state.liveness_reason} />
                </p>
              ) : null}
              <RunRetryForecast namespace={namespace} workflowId={ref.workflowId} runId={ref.runId} />
            </li>
          );
        })}
      </ul>
      {group.count > SAMPLE_SIZE ? (
        <p className="mt-2 text-xs text-fg-muted">{t("more", { count: group.count - SAMPLE_SIZE })}</p>
      ) : null}
    </li>
  );
}
