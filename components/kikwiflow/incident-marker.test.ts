import { describe, expect, it } from "vitest";
import type { ExecutableTask, Incident } from "@/lib/kikwiflow/schemas";
import { incidentMarker } from "@/components/kikwiflow/incident-marker";

const incident = (type: string): Incident => ({ id: "i", type, status: "OPEN" });
const task = (executions: number, maxRetries: number): ExecutableTask => ({
  id: "t",
  status: "ERROR",
  executions,
  retries: 0,
  retryPolicy: { strategy: "LINEAR", maxRetries, intervals: ["PT0.3S"] },
});
const noRetryScheduled = { incidentId: "i", taskId: "t", retriesScheduled: 0, lastRetriesLeft: null };
const ranOut = { incidentId: "i", taskId: "t", retriesScheduled: 2, lastRetriesLeft: 1 };

describe("incidentMarker", () => {
  it("marks an unhandled business error whatever its task did", () => {
    expect(incidentMarker(incident("UNHANDLED_BUSINESS_ERROR"), null, null)).toBe("business");
  });

  it("marks a fatal FAILED_JOB from the outbox, still after executions passed maxRetries through retries", () => {
    expect(incidentMarker(incident("FAILED_JOB"), task(1, 5), noRetryScheduled)).toBe("fatal");
    // kiki-fatal retried seven times: 8 executions of at most 5, and still fatal.
    expect(incidentMarker(incident("FAILED_JOB"), task(8, 5), noRetryScheduled)).toBe("fatal");
    expect(incidentMarker(incident("FAILED_JOB"), task(3, 3), ranOut)).toBeNull();
  });

  it("claims nothing without the outbox's lineage or for an incident type it does not know", () => {
    expect(incidentMarker(incident("FAILED_JOB"), task(1, 5), null)).toBeNull();
    expect(incidentMarker(incident("SOMETHING_NEW"), task(1, 5), noRetryScheduled)).toBeNull();
  });
});
