"use client";

import { memo, useEffect, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { AttemptFailure, AttemptGap, LedgerActivity } from "@/lib/views/attempts";
import { attemptGap, retryRules, retryVerdict } from "@/lib/views/attempts";
import { RetryForecast } from "@/components/actions/retry-forecast";
import { ledgerCount, ledgerSlice } from "@/lib/run-view/stream";
import type { RunTabData } from "@/components/run-detail/run-tab-registry";
import { Pager } from "@/components/ui/pager";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted } from "@/components/ui/section";

function FailureCell({ failure }: { failure: AttemptFailure | null }) {
  const t = useTranslations("run.activities");
  if (!failure) return <span className="text-fg-muted">–</span>;
  return (
    <div className="max-w-md space-y-0.5" data-testid="attempt-failure">
      <div className="flex flex-wrap items-center gap-1">
        <span className="font-mono text-xs">
          {failure.exceptionType ?? failure.exceptionClass ?? failure.eventType}
        </span>
        {failure.failureCategory ? (
          <span data-code="">
            <Pill tone="neutral">{failure.failureCategory}</Pill>
          </span>
        ) : null}
        {failure.nonRetryable ? <Pill tone="warning">{t("nonRetryable")}</Pill> : null}
        {failure.retried ? <Pill tone="info">{t("retried")}</Pill> : null}
        {failure.timeoutKind ? <Pill tone="danger">{failure.timeoutKind}</Pill> : null}
      </div>
      {failure.message ? <p className="text-xs break-words">{failure.message}</p> : null}
    </div>
  );
}

const TIMEOUT_KINDS = new Set(["start_to_close", "schedule_to_start", "schedule_to_close", "heartbeat"]);

/** Why an attempt produced no outcome of its own (a timeout, a lease that ran out) and how long until the next began. */
function GapLine({ gap }: { gap: NonNullable<AttemptGap> }) {
  const t = useTranslations("run.activities");
  const time = useTimeFormat();
  let reason: string;
  if (gap.kind === "timeout") {
    const kind = TIMEOUT_KINDS.has(gap.timeoutKind)
      ? t(`timeoutKind.${gap.timeoutKind as "start_to_close"}`)
      : gap.timeoutKind.replaceAll("_", " ");
    reason =
      gap.limitSeconds !== null
        ? t("gapTimeout", { kind, seconds: gap.limitSeconds })
        : t("gapTimeoutNoLimit", { kind });
  } else {
    reason = gap.leaseExpiresAt ? t("gapLease", { time: time.compact(gap.leaseExpiresAt) }) : t("gapLeaseUnknown");
  }
  return (
    <p className="text-xs text-fg-muted" data-testid="attempt-gap" data-gap={gap.kind}>
      {reason}
      {gap.nextAttempt !== null && gap.gapMs !== null
        ? `; ${t("gapNext", { attempt: gap.nextAttempt, duration: time.duration(gap.gapMs) })}`
        : null}
    </p>
  );
}

type Attempt = LedgerActivity["attempts"][number];
const col = dataColumns<Attempt>();

function useAttemptColumns(activity: LedgerActivity) {
  const t = useTranslations("run.activities");
  const time = useTimeFormat();
  return useMemo(
    () =>
      col.columns([
        col.accessor("number", {
          header: () => t("attempt"),
          cell: (info) => `#${info.getValue()}`,
          meta: { className: "font-semibold" },
        }),
        col.accessor("status", {
          header: () => t("status"),
          cell: ({ row }) => (
            <>
              <StatusBadge status={row.original.status} />
              {row.original.superseded ? <span className="ml-1 text-xs text-fg-muted">{t("superseded")}</span> : null}
            </>
          ),
        }),
        col.accessor("worker", {
          header: () => t("worker"),
          // Long worker ids (host:pid:uuid) truncate whole, with the full id on hover, instead of breaking mid-word.
          cell: ({ row }) => (
            <>
              <span className="block truncate" title={row.original.worker ?? undefined} data-testid="attempt-worker">
                {row.original.worker ?? "–"}
              </span>
              {row.original.changes?.worker ? (
                <span className="block font-sans text-warn">{t("workerChanged")}</span>
              ) : null}
            </>
          ),
          meta: { className: "max-w-40 font-mono text-xs" },
        }),
        col.accessor("startedAt", {
          header: () => t("started"),
          cell: (info) => time.compact(info.getValue()),
          meta: { className: "min-w-32 text-xs" },
        }),
        col.accessor("closedAt", {
          header: () => t("closed"),
          cell: (info) => time.compact(info.getValue()),
          meta: { className: "min-w-32 text-xs" },
        }),
        col.accessor("durationMs", {
          header: () => t("duration"),
          cell: (info) => time.duration(info.getValue()),
          meta: { className: "whitespace-nowrap" },
        }),
        col.accessor("failure", {
          header: () => t("failureColumn"),
          cell: ({ row }) => {
            const gap = attemptGap(activity, row.original);
            return (
              <>
                {row.original.failure || !gap ? <FailureCell failure={row.original.failure} /> : null}
                {gap ? <GapLine gap={gap} /> : null}
              </>
            );
          },
        }),
        col.accessor("retry", {
          header: () => t("backoff"),
          cell: ({ row }) =>
            row.original.retry ? (
              <span data-testid="attempt-backoff">
                {t("backoffThen", {
                  seconds: row.original.retry.backoffSeconds ?? 0,
                  attempt: row.original.retry.nextAttempt,
                  time: time.dateTime(row.original.retry.nextAttemptDueAt),
                })}
              </span>
            ) : (
              <span data-testid="attempt-backoff">–</span>
            ),
          meta: { className: "min-w-48 text-xs" },
        }),
      ]),
    [t, time, activity],
  );
}

/**
 * One activity execution with its attempt ledger: each attempt's number, status, worker, times, its
 * own failure (retried attempts included, from ActivityRetryScheduled), and the backoff that
 * followed it with the next attempt's due time. Memoised: chunks keep their rows, so a card already
 * drawn is not drawn again while later pages stream in.
 */
const ActivityCard = memo(function ActivityCard({ activity }: { activity: LedgerActivity }) {
  const t = useTranslations("run.activities");
  const time = useTimeFormat();
  const columns = useAttemptColumns(activity);
  const verdict = retryVerdict(activity);
  const rules = retryRules(activity);
  return (
    <article
      className="rounded-md border border-line"
      data-testid="ledger-activity"
      data-activity-type={activity.type ?? ""}
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-panel-muted/60 px-3 py-2 text-sm">
        <span className="font-semibold">{activity.type ?? activity.class ?? "–"}</span>
        <StatusBadge status={activity.status} />
        <span className="text-xs text-fg-muted">
          {activity.maxAttempts !== null
            ? t("attemptsOf", { used: activity.attemptsUsed, max: activity.maxAttempts })
            : activity.unlimitedAttempts
              ? t("attemptsUnlimited", { used: activity.attemptsUsed })
              : t("attempts", { used: activity.attemptsUsed })}
        </span>
        {rules.backoffSeconds.length > 0 ? (
          <span className="text-xs text-fg-muted" data-testid="ledger-backoff">
            {t("backoffPolicy", { list: rules.backoffSeconds.join(", ") })}
          </span>
        ) : null}
        {rules.nonRetryableErrorTypes.length > 0 ? (
          <span className="text-xs text-fg-muted">
            {t("retriesStopOn", { list: rules.nonRetryableErrorTypes.join(", ") })}
          </span>
        ) : null}
        {verdict?.kind === "exhausted" ? (
          <Pill tone="danger" testId="retry-verdict">
            {t("retriesExhausted", { used: verdict.used, max: verdict.max })}
          </Pill>
        ) : null}
        {verdict?.kind === "non_retryable" ? (
          <Pill tone="warning" testId="retry-verdict">
            {verdict.type ? t("notRetried", { type: verdict.type }) : t("notRetriedUnnamed")}
          </Pill>
        ) : null}
        {activity.nextAttempt !== null ? (
          <Pill tone="info">
            {t("nextDue", { attempt: activity.nextAttempt, time: time.dateTime(activity.nextAttemptDueAt) })}
          </Pill>
        ) : null}
        {activity.executionIdKnown ? (
          <span className="ml-auto font-mono text-[11px] text-fg-muted" title={t("executionId")}>
            {activity.executionId}
          </span>
        ) : (
          <span className="ml-auto text-[11px] text-fg-muted" data-testid="execution-id-unknown">
            {t("executionIdUnknown")}
          </span>
        )}
      </header>
      <DataTable
        columns={columns}
        data={activity.attempts}
        getRowId={(attempt) => attempt.id}
        testId="attempt-ledger"
        rowTestId="attempt-row"
        rowData={(attempt) => ({ "data-attempt": attempt.number })}
      />
      {activity.terminalFailure ? (
        <footer className="border-t border-line px-3 py-2 text-xs">
          <span className="font-semibold text-bad">{t("terminalFailure")}</span>{" "}
          <FailureCell failure={activity.terminalFailure} />
        </footer>
      ) : null}
    </article>
  );
});

/** Activities the Activities tab draws at once: a 12,000-activity run is read page by page. */
export const LEDGER_PAGE_SIZE = 50;

/** Cards mounted per main-thread task: each card is a table, and mounting dozens at once held the page. */
const CARDS_PER_TASK = 5;

/**
 * How many of `total` rows to draw: `step` at first, `step` more per task until all are, so a page
 * of cards never mounts in one long task. Starts again when `resetKey` changes (another page).
 */
function useProgressiveCount(total: number, resetKey: unknown, step: number = CARDS_PER_TASK): number {
  const [shown, setShown] = useState(step);
  const [key, setKey] = useState(resetKey);
  if (key !== resetKey) {
    setKey(resetKey);
    setShown(step);
  }
  useEffect(() => {
    if (shown >= total) return;
    const timer = setTimeout(() => setShown((current) => current + step), 0);
    return () => clearTimeout(timer);
  }, [shown, total, step]);
  return Math.min(shown, total);
}

/** A list of activities, all drawn (callers pass one page). */
export function ActivitiesLedger({ activities }: { activities: readonly LedgerActivity[] }) {
  const t = useTranslations("run.activities");
  if (activities.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div className="space-y-4" data-testid="activities">
      {activities.map((activity) => (
        <ActivityCard key={activity.executionId} activity={activity} />
      ))}
    </div>
  );
}

/**
 * The Activities tab over the streamed views: the first page draws as soon as its activities are
 * read, and the pager moves through the rest; only one page of cards is ever in the DOM.
 */
export function ActivitiesTab({ data }: Pick<RunTabData, "data">) {
  const t = useTranslations("run.activities");
  const [page, setPage] = useState(0);
  const total = ledgerCount(data);
  const pages = Math.max(1, Math.ceil(total / LEDGER_PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const first = current * LEDGER_PAGE_SIZE;
  const drawn = useProgressiveCount(Math.min(LEDGER_PAGE_SIZE, Math.max(0, total - first)), current);
  const rows = ledgerSlice(data, first, first + drawn);
  const pageRows = Math.min(LEDGER_PAGE_SIZE, Math.max(0, total - first));
  const pager =
    pages > 1 ? (
      <Pager
        label={t("pager")}
        previousLabel={t("previous")}
        nextLabel={t("next")}
        onPrevious={current > 0 ? () => setPage(current - 1) : undefined}
        onNext={current < pages - 1 ? () => setPage(current + 1) : undefined}
      />
    ) : null;
  return (
    <div
      className="space-y-3"
      data-testid="activities-ledger"
      data-total={total}
      data-complete={data.complete ? "true" : "false"}
    >
      {total > 0 ? (
        <div className="flex flex-wrap items-center gap-2 text-xs text-fg-muted">
          <span data-testid="activities-range">
            {t(data.complete ? "range" : "rangeReading", { from: first + 1, to: first + pageRows, total })}
          </span>
          <div className="ml-auto">{pager}</div>
        </div>
      ) : null}
      {total === 0 && !data.complete ? <Muted>{t("noneYet")}</Muted> : <ActivitiesLedger activities={rows} />}
      {pager}
    </div>
  );
}

/** "What happens next" for the run's open activities (the snapshot's open ledger: closed ones have no next). */
export function BundleRetryForecast({ ledger, className }: { ledger: readonly LedgerActivity[]; className?: string }) {
  return <RetryForecast activities={ledger} className={className} />;
}
