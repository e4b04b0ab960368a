import { describe, expect, it } from "vitest";
import { parseJavaDurationMs, retryDelayMs, retryForecast } from "./retry-policy";
import type { RetryPolicy } from "./schemas";

/** The engine's own arithmetic (DefaultRetryPolicyEvaluator@3b62f35); engine.test.ts compares it with a real engine. */

const linear = (maxRetries: number, intervals: string[] | null): RetryPolicy => ({
  strategy: "LINEAR",
  maxRetries,
  intervals,
});
const exponential = (over: Partial<RetryPolicy> = {}): RetryPolicy => ({
  strategy: "EXPONENTIAL_BACKOFF",
  maxRetries: 5,
  initialInterval: "PT10S",
  multiplier: 2.0,
  maxInterval: "PT30S",
  ...over,
});

describe("parseJavaDurationMs", () => {
  it.each([
    ["PT0.3S", 300],
    ["PT1S", 1000],
    ["pt5m", 300_000],
    ["PT1H30M", 5_400_000],
    ["P1D", 86_400_000],
    ["P1DT2H", 93_600_000],
    ["PT1.5S", 1500],
    ["PT0,25S", 250],
    ["PT-0.5S", -500],
    ["-PT1M", -60_000],
    ["PT1.123456789S", 1123],
  ])("%s → %d ms", (text, ms) => expect(parseJavaDurationMs(text)).toBe(ms));

  it.each(["", "P", "PT", "P1DT", "1S", "PT1.5M", "PT1W", null, undefined])("rejects %s", (text) =>
    expect(parseJavaDurationMs(text)).toBeNull(),
  );
});

describe("retryDelayMs", () => {
  it("LINEAR takes the interval at the failure's index and reuses the last one", () => {
    const policy = linear(5, ["PT1M", "PT5M"]);
    expect([0, 1, 2, 3].map((i) => retryDelayMs(policy, i))).toEqual([60_000, 300_000, 300_000, 300_000]);
  });

  it("LINEAR without intervals waits one minute", () => {
    expect(retryDelayMs(linear(3, []), 0)).toBe(60_000);
    expect(retryDelayMs(linear(3, null), 2)).toBe(60_000);
  });

  it("EXPONENTIAL_BACKOFF multiplies per failure and caps at maxInterval", () => {
    expect([0, 1, 2, 3].map((i) => retryDelayMs(exponential(), i))).toEqual([10_000, 20_000, 30_000, 30_000]);
  });

  it("EXPONENTIAL_BACKOFF defaults the multiplier to 2.0 and may have no cap", () => {
    const policy = exponential({ multiplier: null, maxInterval: null, initialInterval: "PT0.2S" });
    expect([0, 1, 2, 5].map((i) => retryDelayMs(policy, i))).toEqual([200, 400, 800, 6400]);
  });

  it("truncates to whole milliseconds like the engine's (long) cast", () => {
    expect(retryDelayMs(exponential({ initialInterval: "PT0.001S", multiplier: 1.5, maxInterval: null }), 1)).toBe(1);
  });

  it("answers null for a duration the engine could not parse", () => {
    expect(retryDelayMs(linear(3, ["5 minutes"]), 0)).toBeNull();
    expect(retryDelayMs(exponential({ initialInterval: "soon" }), 0)).toBeNull();
  });
});

describe("retryForecast", () => {
  it("lists one backoff per retried failure: maxRetries counts executions", () => {
    expect(retryForecast(linear(4, ["PT0.3S", "PT0.6S"]))).toEqual({
      maxAttempts: 4,
      backoffSeconds: [0.3, 0.6, 0.6],
      readable: true,
    });
    expect(retryForecast(exponential({ maxRetries: 3, initialInterval: "PT0.2S", maxInterval: "PT1S" }))).toEqual({
      maxAttempts: 3,
      backoffSeconds: [0.2, 0.4],
      readable: true,
    });
  });

  it("a policy of 1 (or 0) opens the incident on the first failure", () => {
    expect(retryForecast(linear(1, ["PT1S"]))).toMatchObject({ maxAttempts: 1, backoffSeconds: [] });
    expect(retryForecast(linear(0, ["PT1S"]))).toMatchObject({ maxAttempts: 1, backoffSeconds: [] });
  });

  it("says when a duration is unreadable", () => {
    expect(retryForecast(linear(3, ["PT1S", "later"]))).toEqual({
      maxAttempts: 3,
      backoffSeconds: [1],
      readable: false,
    });
  });
});
