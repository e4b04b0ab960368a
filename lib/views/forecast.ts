import type { AttemptFailure, LedgerActivity } from "./attempts";
import { HOUR_CYCLE } from "@/lib/format/time";
import { epochMs } from "./events";
import type { MessageValues, ViewMessageId } from "./message";
import { activityLabel } from "./timeline";

/**
 * "What happens next" for an open activity: which attempt comes next, when, and what a further
 * failure would do. Parts are structured; {@link formatRetryForecast} turns them into one sentence
 * through the console's message function.
 */

export type ForecastState = "retry_scheduled" | "running" | "waiting";

export interface RetryForecast {
  activity: string;
  executionId: string;
  state: ForecastState;
  /** The attempt that is due, running, or waiting for a worker. */
  attempt: number;
  /** null when attempts are unlimited or the policy is unknown. */
  max: number | null;
  unlimited: boolean;
  /** Set for a scheduled retry. */
  dueAt: string | null;
  dueAtMs: number | null;
  /** `dueAtMs - now`; negative once the retry is overdue. */
  inMs: number | null;
  /** With this attempt the budget is spent: another failure fails the activity for good. */
  lastAttempt: boolean;
  /** The retry policy's `non_retryable_error_types`, as names an operator recognises. */
  nonRetryableTypes: string[];
  /** The failure that caused the pending retry, if any. */
  lastFailure: AttemptFailure | null;
  /** `dueAt` formatted for the locale and time zone (with the date when it is not today). */
  time: string | null;
  /** `inMs` as locale relative time ("in 3 minutes", "2 minutes ago"). */
  relative: string | null;
  /** `nonRetryableTypes` joined for the locale ("A and B"). */
  typesText: string | null;
}

/** PHP class names arrive namespaced (`App\Errors\PaymentDeclined`); operators know the short name. */
function shortType(type: string): string {
  return type.slice(type.lastIndexOf("\\") + 1);
}

function relativeTime(ms: number, locale: string): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  const abs = Math.abs(ms);
  if (abs < 60_000) return format.format(Math.round(ms / 1_000), "second");
  if (abs < 3_600_000) return format.format(Math.round(ms / 60_000), "minute");
  if (abs < 86_400_000) return format.format(Math.round(ms / 3_600_000), "hour");
  return format.format(Math.round(ms / 86_400_000), "day");
}

/** Within this of now a retry's clock time shows its seconds: "14:04" said less than the countdown beside it. */
const SECONDS_WITHIN_MS = 10 * 60_000;

function clockTime(at: number, now: number, locale: string, timeZone: string): string {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone, dateStyle: "short" });
  const sameDay = day.format(at) === day.format(now);
  const timeStyle = Math.abs(at - now) < SECONDS_WITHIN_MS ? "medium" : "short";
  return new Intl.DateTimeFormat(
    locale,
    sameDay
      ? { timeZone, timeStyle, hourCycle: HOUR_CYCLE }
      : { timeZone, dateStyle: "medium", timeStyle, hourCycle: HOUR_CYCLE },
  ).format(at);
}

/** How often a forecast re-reads the clock: every second during a countdown's last minute, else every five. */
export const FORECAST_TICK_MS = { countdown: 1_000, calm: 5_000 } as const;

/**
 * The tick the forecasts need now: a retry due (or overdue) within a minute counts down by the
 * second; at five-second ticks "in 6 seconds" jumped to "in 1 second".
 */
export function forecastTickMs(forecasts: readonly (RetryForecast | null)[]): number {
  const close = forecasts.some((f) => f?.inMs !== null && f?.inMs !== undefined && Math.abs(f.inMs) < 60_000);
  return close ? FORECAST_TICK_MS.countdown : FORECAST_TICK_MS.calm;
}

/** null when the activity is closed: nothing is going to happen to it. */
export function retryForecast(
  activity: LedgerActivity,
  now: number,
  locale: string,
  timeZone: string,
): RetryForecast | null {
  if (activity.status !== "pending" && activity.status !== "running") return null;
  const running =
    activity.status === "running" ? activity.attempts.findLast((attempt) => attempt.status === "running") : undefined;
  const state: ForecastState = running ? "running" : activity.nextAttemptDueAt ? "retry_scheduled" : "waiting";
  const attempt = running?.number ?? activity.nextAttempt ?? activity.attemptsUsed + 1;
  const validDue = state === "retry_scheduled" ? epochMs(activity.nextAttemptDueAt) : null;
  const nonRetryableTypes = (activity.retryPolicy?.nonRetryableErrorTypes ?? []).map(shortType);
  const lastClosed = activity.attempts.findLast((candidate) => candidate.failure !== null);
  return {
    activity: activityLabel(activity.type, activity.class) || activity.executionId,
    executionId: activity.executionId,
    state,
    attempt,
    max: activity.maxAttempts,
    unlimited: activity.unlimitedAttempts,
    dueAt: state === "retry_scheduled" ? activity.nextAttemptDueAt : null,
    dueAtMs: validDue,
    inMs: validDue === null ? null : validDue - now,
    lastAttempt: activity.maxAttempts !== null && attempt >= activity.maxAttempts,
    nonRetryableTypes,
    lastFailure: state === "retry_scheduled" ? (lastClosed?.failure ?? null) : null,
    time: validDue === null ? null : clockTime(validDue, now, locale, timeZone),
    relative: validDue === null ? null : relativeTime(validDue - now, locale),
    typesText: nonRetryableTypes.length
      ? new Intl.ListFormat(locale, { type: "conjunction" }).format(nonRetryableTypes)
      : null,
  };
}

export type Translate = (id: ViewMessageId, values: MessageValues) => string;

function mainClause(forecast: RetryForecast): ViewMessageId {
  const bounded = forecast.max !== null;
  if (forecast.state === "running") return bounded ? "views.forecast.running" : "views.forecast.runningUnlimited";
  if (forecast.state === "retry_scheduled" && forecast.inMs !== null) {
    if (forecast.inMs < 0) return bounded ? "views.forecast.overdue" : "views.forecast.overdueUnlimited";
    return bounded ? "views.forecast.due" : "views.forecast.dueUnlimited";
  }
  return bounded ? "views.forecast.waiting" : "views.forecast.waitingUnlimited";
}

/**
 * One sentence, e.g. "ChargeCard attempt 3 of 5 is due 14:32 (in 3 minutes); PaymentDeclined is
 * non-retryable, so a recurrence fails the workflow". `translate` is the console's message function
 * (next-intl `t` with the `views.` ids), or message-catalog.ts `englishText`.
 */
export function formatRetryForecast(forecast: RetryForecast, translate: Translate): string {
  const values: MessageValues = {
    activity: forecast.activity,
    attempt: forecast.attempt,
    max: forecast.max ?? "",
    time: forecast.time ?? "",
    relative: forecast.relative ?? "",
  };
  const clauses = [translate(mainClause(forecast), values)];
  if (forecast.lastAttempt) {
    clauses.push(translate("views.forecast.lastAttempt", {}));
  } else if (forecast.typesText) {
    const id =
      forecast.nonRetryableTypes.length === 1 ? "views.forecast.nonRetryableOne" : "views.forecast.nonRetryableMany";
    clauses.push(translate(id, { types: forecast.typesText }));
  }
  return clauses.join(translate("views.forecast.separator", {}));
}
