import type { RetryPolicy } from "./schemas";

/**
 * What a Kikwiflow retry policy will do, computed the way the engine computes it
 * (kikwi-core/src/main/java/io/kikwiflow/execution/policy/DefaultRetryPolicyEvaluator.java@3b62f35),
 * so the console can show the schedule in the same shape as a Durable Workflow backoff list.
 * Browser-safe, no dependencies.
 *
 * The engine's rules: `maxRetries` is the total number of executions (the task starts with
 * `retries = maxRetries`, each failure takes one, and the failure that would leave 0 opens an
 * incident instead). The n-th failure (0-based `attemptIndex` = executions before it) schedules:
 * LINEAR → `intervals[min(n, last)]` (one minute when the list is empty); EXPONENTIAL_BACKOFF →
 * `initialInterval × multiplier^n` (multiplier default 2.0), truncated to whole milliseconds and capped
 * by `maxInterval`. A configured fatal exception or an unhandled ProcessErrorException skips all this.
 */

const ONE_MINUTE_MS = 60_000;
const DEFAULT_MULTIPLIER = 2.0;

/** `java.time.Duration.parse` syntax: `[-]PnDTnHnMn.nS`, case-insensitive, each part may be signed. */
const JAVA_DURATION =
  /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?)(\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** Milliseconds of an ISO-8601 duration as Java's Duration.parse reads it; null when it would throw. */
export function parseJavaDurationMs(text: string | null | undefined): number | null {
  if (typeof text !== "string") return null;
  const match = JAVA_DURATION.exec(text.trim());
  if (!match) return null;
  const [, sign, days, hours, minutes, secondsSign, seconds, fraction] = match;
  // Like Java: at least one section, and a "T" must be followed by one ("P", "PT", "P1DT" throw).
  const hasTime = hours !== undefined || minutes !== undefined || seconds !== undefined;
  if (!hasTime && (days === undefined || /T$/i.test(text.trim()))) return null;
  const int = (value: string | undefined) => (value ? Number(value) : 0);
  const secondsMs = int(seconds) * 1000 + Math.trunc(Number(`0.${fraction ?? "0"}`) * 1000);
  const total =
    int(days) * 86_400_000 +
    int(hours) * 3_600_000 +
    int(minutes) * 60_000 +
    (secondsSign === "-" ? -secondsMs : secondsMs);
  return sign === "-" ? -total : total;
}

/** The delay the engine schedules after the failure with this 0-based index; null if a duration is unreadable. */
export function retryDelayMs(policy: RetryPolicy, attemptIndex: number): number | null {
  if (policy.strategy === "LINEAR") {
    const intervals = policy.intervals ?? [];
    if (intervals.length === 0) return ONE_MINUTE_MS;
    return parseJavaDurationMs(intervals[Math.min(attemptIndex, intervals.length - 1)]);
  }
  if (policy.strategy === "EXPONENTIAL_BACKOFF") {
    const initial = parseJavaDurationMs(policy.initialInterval);
    if (initial === null) return null;
    const multiplier = policy.multiplier ?? DEFAULT_MULTIPLIER;
    const computed = Math.trunc(initial * Math.pow(multiplier, attemptIndex));
    const max = policy.maxInterval == null ? null : parseJavaDurationMs(policy.maxInterval);
    if (policy.maxInterval != null && max === null) return null;
    return max !== null && computed > max ? max : computed;
  }
  // Any other strategy: the engine schedules the retry for "now".
  return 0;
}

export interface RetryForecast {
  /** Executions before an incident opens (the policy's maxRetries). */
  readonly maxAttempts: number;
  /** Delay after each failure that is retried, in seconds, oldest first (the DW backoff-list shape). */
  readonly backoffSeconds: number[];
  /** False when a duration in the policy is unreadable (the engine would fail on it too). */
  readonly readable: boolean;
}

/** The whole schedule of a policy, from the first execution to the incident. */
export function retryForecast(policy: RetryPolicy): RetryForecast {
  const backoffSeconds: number[] = [];
  let readable = true;
  // Failures 0..maxRetries-2 are retried; failure maxRetries-1 opens the incident.
  for (let attemptIndex = 0; attemptIndex < policy.maxRetries - 1; attemptIndex++) {
    const delay = retryDelayMs(policy, attemptIndex);
    if (delay === null) {
      readable = false;
      break;
    }
    backoffSeconds.push(delay / 1000);
  }
  return { maxAttempts: Math.max(policy.maxRetries, 1), backoffSeconds, readable };
}
