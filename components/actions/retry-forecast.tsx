"use client";

import { useLocale, useNow, useTimeZone, useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { LedgerActivity } from "@/lib/views/attempts";
import { attemptLedger } from "@/lib/views/attempts";
import type { Translate } from "@/lib/views/forecast";
import { FORECAST_TICK_MS, forecastTickMs, formatRetryForecast, retryForecast } from "@/lib/views/forecast";
import { runHistoryHeadQuery } from "@/lib/queries/run";

/** The forecast's `views.forecast.*` ids, rendered from the console catalog. */
function useForecastTranslate(): Translate {
  const t = useTranslations();
  return (id, values) => t(id, values);
}

/**
 * "What happens next" for every open activity of a run, one sentence each (ui-anchors §2 item 6).
 * Pass the run's attempt ledger (`attemptLedger(history, export.activities)`); renders nothing when
 * no activity is open.
 */
export function RetryForecast({
  activities,
  className,
}: {
  activities: readonly LedgerActivity[];
  className?: string;
}) {
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  // A coarse clock finds a retry within a minute of due; the sentence's own clock then ticks every second.
  const coarse = useNow({ updateInterval: FORECAST_TICK_MS.calm }).getTime();
  const tick = forecastTickMs(activities.map((activity) => retryForecast(activity, coarse, locale, timeZone)));
  const now = useNow({ updateInterval: tick }).getTime();
  const translate = useForecastTranslate();
  const sentences = activities
    .map((activity) => retryForecast(activity, now, locale, timeZone))
    .filter((forecast) => forecast !== null)
    .map((forecast) => ({
      id: forecast.executionId,
      text: formatRetryForecast(forecast, translate),
      last: forecast.lastAttempt,
    }));
  if (!sentences.length) return null;
  return (
    <ul className={className ?? "space-y-0.5 text-sm"} data-testid="retry-forecast">
      {sentences.map((sentence) => (
        <li key={sentence.id} className={sentence.last ? "text-warn" : undefined}>
          {sentence.text}
        </li>
      ))}
    </ul>
  );
}

/** The forecast for a run the caller has not loaded: reads its first history page itself. */
export function RunRetryForecast({
  namespace,
  workflowId,
  runId,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
}) {
  const t = useTranslations("actions");
  const history = useQuery(runHistoryHeadQuery(namespace, workflowId, runId));
  if (history.isError) return <p className="text-xs text-fg-muted">{t("forecastUnavailable")}</p>;
  if (!history.data) return null;
  return <RetryForecast activities={attemptLedger(history.data.events)} className="text-xs text-fg-muted" />;
}
