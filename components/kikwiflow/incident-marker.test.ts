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

describe("incidentMarker", () => {
  it("marks an unhandled business error whatever its task did", () => {
    expect(incidentMarker(incident("UNHANDLED_BUSINESS_ERROR"), null)).toBe("business");
  });

  it("marks a FAILED_JOB opened before its executions ran out as fatal, an exhausted one not", () => {
    expect(incidentMarker(incident("FAILED_JOB"), task(1, 5))).toBe("fatal");
    expect(incidentMarker(incident("FAILED_JOB"), task(3, 3))).toBeNull();
  });

  it("claims nothing without the task's policy or for an incident type it does not know", () => {
    expect(incidentMarker(incident("FAILED_JOB"), null)).toBeNull();
    expect(incidentMarker(incident("SOMETHING_NEW"), task(1, 5))).toBeNull();
  });
});
