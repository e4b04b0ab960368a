/**
 * Whether a FAILED_JOB incident was fatal, from what the engine recorded rather than from counters a
 * manual retry changes. The engine opens FAILED_JOB in two cases (DefaultRetryPolicyEvaluator.evaluate
 * @3b62f35): the root cause is a configured fatal exception (at once), or `retries - 1 <= 0` (exhausted).
 * Every failure that is retried writes RETRY_SCHEDULED with `retriesLeft`, and a manual retry restores
 * `retries` (KikwiflowEngine.retryIncident@3b62f35); so an exhausted incident always follows a
 * RETRY_SCHEDULED of its task with `retriesLeft` 1 since the task's previous incident, or none at all
 * when the policy allows one execution. `executions` never resets, which is why the old
 * executions-below-maxRetries rule lost the marker after a few retries. Pure and zod-free (the
 * lineages are read from the outbox by `incidentLineages` in events.ts, on the server).
 */

/** What the outbox says led to one incident. */
export interface IncidentLineage {
  readonly incidentId: string;
  readonly taskId: string | null;
  /** RETRY_SCHEDULED of the task since its previous incident (or its start). */
  readonly retriesScheduled: number;
  /** `retriesLeft` of the last of those; null when there was none. */
  readonly lastRetriesLeft: number | null;
}

/**
 * true: fatal; false: retries ran out; null: the outbox cannot tell (no lineage, or no retry was
 * scheduled and the task's policy is unknown).
 */
export function failedJobWasFatal(
  lineage: IncidentLineage | null | undefined,
  maxRetries: number | null | undefined,
): boolean | null {
  if (!lineage) return null;
  if (lineage.retriesScheduled > 0) return lineage.lastRetriesLeft !== 1;
  if (maxRetries === null || maxRetries === undefined) return null;
  return maxRetries > 1;
}
