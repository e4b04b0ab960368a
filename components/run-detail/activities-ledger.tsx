"use client";

import { useTranslations } from "next-intl";
import type { AttemptFailure, LedgerActivity } from "@/lib/views/attempts";
import { RetryForecast } from "@/components/actions/retry-forecast";
import { ShowMore, useShownRows } from "@/components/ui/show-more";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Muted, TD, TH } from "@/components/run-detail/section";

function FailureCell({ failure }: { failure: AttemptFailure | null }) {
  const t = useTranslations("run.activities");
  if (!failure) return <span className="text-fg-muted">–</span>;
  return (
    <div className="max-w-md space-y-0.5" data-testid="attempt-failure">
      <div className="flex flex-wrap items-center gap-1">
        <span className="font-mono text-xs">
          {failure.exceptionType ?? failure.exceptionClass ?? failure.eventType}
        </span>
        {failure.failureCategory ? <Pill tone="neutral">{failure.failureCategory}</Pill> : null}
        {failure.nonRetryable ? <Pill tone="warning">{t("nonRetryable")}</Pill> : null}
        {failure.retried ? <Pill tone="info">{t("retried")}</Pill> : null}
        {failure.timeoutKind ? <Pill tone="danger">{failure.timeoutKind}</Pill> : null}
      </div>
      {failure.message ? <p className="text-xs break-words">{failure.message}</p> : null}
    </div>
  );
}

/**
 * Every activity execution with its attempt ledger: each attempt's number, status, worker, times,
 * its own failure (retried attempts included, from ActivityRetryScheduled), and the backoff that
 * followed it with the next attempt's due time.
 */
export function ActivitiesLedger({ activities }: { activities: readonly LedgerActivity[] }) {
  const t = useTranslations("run.activities");
  const time = useTimeFormat();
  const { shown, more, hidden } = useShownRows(activities);
  if (activities.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div className="space-y-4" data-testid="activities">
      {shown.map((activity) => (
        <article
          key={activity.executionId}
          className="rounded-md border border-line"
          data-testid="activity"
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
            {activity.retryPolicy && activity.retryPolicy.backoffSeconds.length > 0 ? (
              <span className="text-xs text-fg-muted">
                {t("backoffPolicy", { list: activity.retryPolicy.backoffSeconds.join(", ") })}
              </span>
            ) : null}
            {activity.retryPolicy && activity.retryPolicy.nonRetryableErrorTypes.length > 0 ? (
              <span className="text-xs text-fg-muted">
                {t("nonRetryableTypes", { list: activity.retryPolicy.nonRetryableErrorTypes.join(", ") })}
              </span>
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
          <div className="overflow-x-auto">
            <table className="w-full text-sm" data-testid="attempt-ledger">
              <thead className="border-b border-line">
                <tr>
                  <th className={TH}>{t("attempt")}</th>
                  <th className={TH}>{t("status")}</th>
                  <th className={TH}>{t("worker")}</th>
                  <th className={TH}>{t("started")}</th>
                  <th className={TH}>{t("closed")}</th>
                  <th className={TH}>{t("duration")}</th>
                  <th className={TH}>{t("failure")}</th>
                  <th className={TH}>{t("backoff")}</th>
                </tr>
              </thead>
              <tbody>
                {activity.attempts.map((attempt) => (
                  <tr
                    key={attempt.id}
                    className="border-b border-line last:border-0"
                    data-testid="attempt-row"
                    data-attempt={attempt.number}
                  >
                    <td className={`${TD} font-semibold`}>#{attempt.number}</td>
                    <td className={TD}>
                      <StatusBadge status={attempt.status} />
                      {attempt.superseded ? (
                        <span className="ml-1 text-xs text-fg-muted">{t("superseded")}</span>
                      ) : null}
                    </td>
                    <td className={`${TD} max-w-40 font-mono text-xs break-all`}>
                      {attempt.worker ?? "–"}
                      {attempt.changes?.worker ? <span className="ml-1 text-warn">{t("workerChanged")}</span> : null}
                    </td>
                    <td className={`${TD} min-w-32 text-xs`}>{time.compact(attempt.startedAt)}</td>
                    <td className={`${TD} min-w-32 text-xs`}>{time.compact(attempt.closedAt)}</td>
                    <td className={`${TD} whitespace-nowrap`}>{time.duration(attempt.durationMs)}</td>
                    <td className={TD}>
                      <FailureCell failure={attempt.failure} />
                    </td>
                    <td className={`${TD} min-w-48 text-xs`} data-testid="attempt-backoff">
                      {attempt.retry ? (
                        <span>
                          {t("backoffThen", {
                            seconds: attempt.retry.backoffSeconds ?? 0,
                            attempt: attempt.retry.nextAttempt,
                            time: time.dateTime(attempt.retry.nextAttemptDueAt),
                          })}
                        </span>
                      ) : (
                        "–"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {activity.terminalFailure ? (
            <footer className="border-t border-line px-3 py-2 text-xs">
              <span className="font-semibold text-bad">{t("terminalFailure")}</span>{" "}
              <FailureCell failure={activity.terminalFailure} />
            </footer>
          ) : null}
        </article>
      ))}
      <ShowMore hidden={hidden} onMore={more} testId="activities-show-more" />
    </div>
  );
}

/* The ledger is derived with the rest of the bundle's views, off the main thread (lib/queries/run-bundle.ts). */

export function ActivitiesPanel({ ledger }: { ledger: LedgerActivity[] }) {
  return <ActivitiesLedger activities={ledger} />;
}

export function BundleRetryForecast({ ledger, className }: { ledger: LedgerActivity[]; className?: string }) {
  return <RetryForecast activities={ledger} className={className} />;
}
