import { describe, expect, it } from "vitest";
import { incidentLineages } from "./events";
import { failedJobWasFatal } from "./incident-lineage";
import { historyEventListSchema } from "./schemas";

const retryScheduled = (id: string, task: string, retriesLeft: number) => ({
  id,
  eventType: "RETRY_SCHEDULED",
  payload: { executableTaskId: task, executionsSoFar: 1, retriesLeft },
});
const incidentCreated = (id: string, incidentId: string, task: string) => ({
  id,
  eventType: "INCIDENT_CREATED",
  payload: { incidentId, type: "FAILED_JOB", executionId: task },
});

/**
 * The outbox of a kiki-exhausted-backoff task (maxRetries 3) retried once, beside a kiki-fatal task
 * (maxRetries 5) retried three times, in the event shapes the engine writes (RetryScheduled,
 * IncidentCreated @3b62f35).
 */
const events = historyEventListSchema.parse([
  retryScheduled("e1", "sync", 2),
  retryScheduled("e2", "sync", 1),
  incidentCreated("e3", "sync-1", "sync"),
  { id: "e4", eventType: "INCIDENT_RESOLVED", payload: { incidentId: "sync-1", executionId: "sync" } },
  retryScheduled("e5", "sync", 2),
  incidentCreated("e6", "post-1", "post"),
  incidentCreated("e7", "post-2", "post"),
  retryScheduled("e8", "sync", 1),
  incidentCreated("e9", "sync-2", "sync"),
  incidentCreated("e10", "post-3", "post"),
]);

describe("incidentLineages", () => {
  it("counts each task's RETRY_SCHEDULED since its previous incident", () => {
    expect(incidentLineages(events)).toEqual([
      { incidentId: "sync-1", taskId: "sync", retriesScheduled: 2, lastRetriesLeft: 1 },
      { incidentId: "post-1", taskId: "post", retriesScheduled: 0, lastRetriesLeft: null },
      { incidentId: "post-2", taskId: "post", retriesScheduled: 0, lastRetriesLeft: null },
      { incidentId: "sync-2", taskId: "sync", retriesScheduled: 2, lastRetriesLeft: 1 },
      { incidentId: "post-3", taskId: "post", retriesScheduled: 0, lastRetriesLeft: null },
    ]);
  });
});

describe("failedJobWasFatal", () => {
  const lineage = (retriesScheduled: number, lastRetriesLeft: number | null) => ({
    incidentId: "i",
    taskId: "t",
    retriesScheduled,
    lastRetriesLeft,
  });

  it("is fatal when the incident opened with no retry scheduled and the policy allowed more, however often retried", () => {
    expect(failedJobWasFatal(lineage(0, null), 5)).toBe(true);
  });

  it("is exhausted when the last retry scheduled left one retry, or the policy allowed one execution", () => {
    expect(failedJobWasFatal(lineage(2, 1), 3)).toBe(false);
    expect(failedJobWasFatal(lineage(0, null), 1)).toBe(false);
  });

  it("is fatal when the incident cut retries short after some were scheduled", () => {
    expect(failedJobWasFatal(lineage(1, 3), 5)).toBe(true);
  });

  it("says nothing without a lineage, or with no retry scheduled and no policy", () => {
    expect(failedJobWasFatal(null, 5)).toBeNull();
    expect(failedJobWasFatal(lineage(0, null), null)).toBeNull();
  });
});
