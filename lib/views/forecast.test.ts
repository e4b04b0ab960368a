import { describe, expect, it } from "vitest";
import { attemptLedger } from "./attempts";
import { FORECAST_TICK_MS, forecastTickMs, formatRetryForecast, retryForecast } from "./forecast";
import { englishText } from "./message-catalog";
import type { ViewMessageId } from "./message";
import retryPending from "./fixtures/retry-pending.json";
import retryThenSuccess from "./fixtures/retry-then-success.json";
import exhausted from "./fixtures/exhausted-retries.json";

const due = Date.parse("2026-11-30T14:04:02Z");
const pending = attemptLedger(retryPending.history_events, retryPending.activities)[0]!;

describe("retryForecast", () => {
  it("gives the parts of a scheduled retry", () => {
    const forecast = retryForecast(pending, due - 180_000, "en-GB", "UTC");
    expect(forecast).toMatchObject({
      activity: "ChargeCard",
      state: "retry_scheduled",
      attempt: 3,
      max: 5,
      unlimited: false,
      dueAt: "2026-11-30T14:04:02.000000Z",
      dueAtMs: due,
      inMs: 180_000,
      lastAttempt: false,
      nonRetryableTypes: ["PaymentDeclined", "CardExpired"],
      // Within the next minutes the seconds count: "14:04" said nothing a countdown did not.
      time: "14:04:02",
      relative: "in 3 minutes",
      typesText: "PaymentDeclined and CardExpired",
    });
    expect(forecast?.lastFailure).toMatchObject({
      exceptionType: "GatewayTimeout",
      message: "Payment gateway returned 503",
    });
  });

  it("formats one sentence in English by default", () => {
    expect(formatRetryForecast(retryForecast(pending, due - 180_000, "en-GB", "UTC")!, englishText)).toBe(
      "ChargeCard attempt 3 of 5 is due 14:04:02 (in 3 minutes); PaymentDeclined and CardExpired are non-retryable, so a recurrence fails the workflow",
    );
  });

  it("says when a retry is overdue, in the operator's time zone", () => {
    expect(formatRetryForecast(retryForecast(pending, due + 120_000, "en-GB", "Europe/Berlin")!, englishText)).toBe(
      "ChargeCard attempt 3 of 5 was due 15:04:02 (2 minutes ago); PaymentDeclined and CardExpired are non-retryable, so a recurrence fails the workflow",
    );
  });

  it("adds the date when the retry is not due today", () => {
    const forecast = retryForecast(pending, due - 2 * 86_400_000, "en-GB", "UTC");
    expect(forecast?.time).toBe("30 Nov 2026, 14:04");
    expect(forecast?.relative).toBe("in 2 days");
  });

  it("names a single non-retryable type in the singular and strips PHP namespaces", () => {
    const running = attemptLedger(retryThenSuccess.history_events.filter((event) => event.sequence <= 6));
    const forecast = retryForecast(running[0]!, Date.parse("2026-11-30T14:00:07Z"), "en-US", "UTC")!;
    expect(forecast).toMatchObject({
      state: "running",
      attempt: 2,
      max: 3,
      dueAt: null,
      inMs: null,
      nonRetryableTypes: ["PaymentDeclined"],
    });
    expect(formatRetryForecast(forecast, englishText)).toBe(
      "ChargeCard attempt 2 of 3 is running; PaymentDeclined is non-retryable, so a recurrence fails the workflow",
    );
  });

  it("warns that the last attempt's failure fails the workflow", () => {
    const beforeLast = attemptLedger(
      exhausted.history_events.filter((event) => event.type !== "ActivityFailed" && event.type !== "WorkflowFailed"),
    );
    const forecast = retryForecast(beforeLast[0]!, Date.parse("2026-11-30T14:00:06Z"), "en-GB", "UTC")!;
    expect(forecast).toMatchObject({ state: "running", attempt: 3, max: 3, lastAttempt: true });
    expect(formatRetryForecast(forecast, englishText)).toBe(
      "ReserveInventory attempt 3 of 3 is running; this is the last attempt, so another failure fails the workflow",
    );
  });

  it("covers an attempt waiting for its first worker and unlimited attempts", () => {
    const scheduled = attemptLedger(retryPending.history_events.filter((event) => event.sequence <= 3));
    const forecast = retryForecast(scheduled[0]!, Date.parse("2026-11-30T14:00:01Z"), "en-GB", "UTC")!;
    expect(forecast).toMatchObject({ state: "waiting", attempt: 1 });
    expect(formatRetryForecast(forecast, englishText)).toMatch(/^ChargeCard attempt 1 of 5 is waiting for a worker; /);
    const unlimited = { ...pending, maxAttempts: null, unlimitedAttempts: true, retryPolicy: null };
    expect(formatRetryForecast(retryForecast(unlimited, due - 30_000, "en-GB", "UTC")!, englishText)).toBe(
      "ChargeCard attempt 3 is due 14:04:02 (in 30 seconds)",
    );
  });

  it("has nothing to say about closed activities", () => {
    expect(retryForecast(attemptLedger(exhausted.history_events)[0]!, Date.now(), "en", "UTC")).toBeNull();
  });

  it("lets the console localise through its message function", () => {
    const forecast = retryForecast(pending, due - 180_000, "de-DE", "Europe/Berlin")!;
    expect(forecast).toMatchObject({
      time: "15:04:02",
      relative: "in 3 Minuten",
      typesText: "PaymentDeclined und CardExpired",
    });
    const seen: string[] = [];
    const german = (id: ViewMessageId, values: Readonly<Record<string, string | number>>) => {
      seen.push(id);
      if (id === "views.forecast.due")
        return `${values.activity}: Versuch ${values.attempt} von ${values.max} fällig um ${values.time} (${values.relative})`;
      if (id === "views.forecast.nonRetryableMany") return `${values.types} sind nicht wiederholbar`;
      return " · ";
    };
    expect(formatRetryForecast(forecast, german)).toBe(
      "ChargeCard: Versuch 3 von 5 fällig um 15:04:02 (in 3 Minuten) · PaymentDeclined und CardExpired sind nicht wiederholbar",
    );
    expect(seen).toEqual(["views.forecast.due", "views.forecast.nonRetryableMany", "views.forecast.separator"]);
  });
});

describe("forecast clock", () => {
  it("shows only hours and minutes for a retry further away than ten minutes", () => {
    expect(retryForecast(pending, due - 11 * 60_000, "en-GB", "UTC")?.time).toBe("14:04");
  });

  it("ticks every second while a retry is due within a minute (or just overdue), else every five", () => {
    const at = (ms: number) => retryForecast(pending, due - ms, "en-GB", "UTC");
    expect(forecastTickMs([at(180_000)])).toBe(FORECAST_TICK_MS.calm);
    expect(forecastTickMs([at(180_000), at(59_000)])).toBe(FORECAST_TICK_MS.countdown);
    expect(forecastTickMs([at(-30_000)])).toBe(FORECAST_TICK_MS.countdown);
    expect(forecastTickMs([at(-120_000)])).toBe(FORECAST_TICK_MS.calm);
    expect(FORECAST_TICK_MS).toEqual({ countdown: 1_000, calm: 5_000 });
  });
});
