import { describe, expect, it } from "vitest";
import { KikwiflowNotFoundError, KikwiflowServerError, KikwiflowUnavailableError } from "@/lib/kikwiflow";
import type { ExecutableTask, Incident, KikwiflowClient, ProcessInstanceSnapshot, RetryPolicy } from "@/lib/kikwiflow";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow/retry";
import { kikwiflowFailure, parseInstanceSearch } from "@/lib/server/kikwiflow/engine";

const policy: RetryPolicy = { strategy: "LINEAR", maxRetries: 5, intervals: ["PT0.3S"] };
const failedTask: ExecutableTask = { id: "t1", status: "ERROR", executions: 1, retries: 0, retryPolicy: policy };
const openIncident: Incident = {
  id: "i1",
  type: "FAILED_JOB",
  status: "OPEN",
  processInstanceId: "p1",
  executionId: "t1",
};

const snapshotWith = (task: ExecutableTask | null): ProcessInstanceSnapshot => ({
  instance: { id: "p1", status: "ACTIVE", processDefinitionId: "kiki-fatal:1" },
  executableTasks: task ? [task] : [],
  externalTasks: [],
  incidents: [],
});

/**
 * A client that answers reads from scripts: `reads` are what the engine shows after the PUT, one
 * per re-read (the last repeats); each entry may be an error to throw.
 */
function scripted(options: {
  retry?: "accepted" | "rejected";
  reads: { incident: Incident | Error; snapshot: ProcessInstanceSnapshot | Error }[];
}) {
  let sent = false;
  let read = 0;
  const pick = <T>(value: T | Error): T => {
    if (value instanceof Error) throw value;
    return value;
  };
  // Each re-read reads the incident first, then the snapshot of the same step.
  const step = () => options.reads[Math.min(Math.max(read - 1, 0), options.reads.length - 1)]!;
  const client = {
    async getIncident() {
      if (!sent) return openIncident;
      read++;
      return pick(step().incident);
    },
    async getSnapshot() {
      return sent ? pick(step().snapshot) : snapshotWith(failedTask);
    },
    async retryIncident() {
      sent = true;
      return options.retry === "rejected"
        ? { kind: "rejected", httpStatus: 409, code: "CONFLICT", message: "Only OPEN incidents can be retried." }
        : { kind: "accepted", httpStatus: 204 };
    },
  } as unknown as KikwiflowClient;
  return { client, reads: () => read };
}

const resolved: Incident = { ...openIncident, status: "RESOLVED" };
const restored: ExecutableTask = { ...failedTask, status: "PENDING", retries: 5, error: null };

describe("retryIncidentConfirmed", () => {
  it("answers confirmed once a re-read shows RESOLVED and the task PENDING with the policy's retries", async () => {
    const { client, reads } = scripted({
      reads: [
        { incident: openIncident, snapshot: snapshotWith(failedTask) },
        { incident: new KikwiflowServerError("racing read"), snapshot: snapshotWith(failedTask) },
        { incident: resolved, snapshot: snapshotWith(restored) },
      ],
    });
    const answer = await retryIncidentConfirmed(client, "i1", { intervalMs: 1 });
    expect(answer).toMatchObject({
      result: "accepted",
      instanceId: "p1",
      verdict: { phase: "confirmed", how: "pending", incidentStatus: "RESOLVED", taskStatus: "PENDING", retries: 5 },
    });
    expect(reads()).toBe(3);
  });

  it("says the instance finished when the re-read is a 404", async () => {
    const { client } = scripted({
      reads: [{ incident: resolved, snapshot: new KikwiflowNotFoundError("gone", { httpStatus: 404 }) }],
    });
    const answer = await retryIncidentConfirmed(client, "i1", { intervalMs: 1 });
    expect(answer).toMatchObject({ verdict: { phase: "moved_on", instanceFinished: true } });
  });

  it("relays the engine's 409 as a rejection without re-reading", async () => {
    const { client, reads } = scripted({
      retry: "rejected",
      reads: [{ incident: resolved, snapshot: snapshotWith(null) }],
    });
    expect(await retryIncidentConfirmed(client, "i1")).toEqual({
      result: "rejected",
      incidentId: "i1",
      httpStatus: 409,
      message: "Only OPEN incidents can be retried.",
    });
    expect(reads()).toBe(0);
  });

  it("times out with the last thing it read when the effect never shows", async () => {
    const { client } = scripted({ reads: [{ incident: openIncident, snapshot: snapshotWith(failedTask) }] });
    const answer = await retryIncidentConfirmed(client, "i1", { intervalMs: 5, timeoutMs: 30 });
    expect(answer).toMatchObject({
      verdict: { phase: "timed_out", last: { phase: "awaiting", incidentStatus: "OPEN", taskStatus: "ERROR" } },
    });
  });
});

describe("kikwiflowFailure", () => {
  it("says an unreachable engine is a 502 naming its host, and a 404 'finished or unknown'", async () => {
    const down = kikwiflowFailure(
      new KikwiflowUnavailableError("connect ECONNREFUSED", { unavailableCause: "network" }),
      "kiki:8095",
    );
    expect(down.status).toBe(502);
    expect(((await down.json()) as { message: string }).message).toContain("at kiki:8095 did not answer");
    const missing = kikwiflowFailure(new KikwiflowNotFoundError("Not found", { httpStatus: 404 }), "kiki:8095");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toContain("finished or is unknown");
  });
});

describe("parseInstanceSearch", () => {
  it("reads page, size and statuses, and refuses a size over the engine's 100", () => {
    expect(parseInstanceSearch(new URLSearchParams("page=2&size=50&status=ACTIVE"))).toEqual({
      page: 2,
      size: 50,
      statuses: ["ACTIVE"],
      q: null,
      openIncidents: false,
    });
    expect(parseInstanceSearch(new URLSearchParams(""))).toEqual({
      page: 0,
      size: 20,
      statuses: [],
      q: null,
      openIncidents: false,
    });
    expect(parseInstanceSearch(new URLSearchParams("q=%20order-1%20&incidents=open"))).toMatchObject({
      q: "order-1",
      openIncidents: true,
    });
    expect(parseInstanceSearch(new URLSearchParams("incidents=closed"))).toEqual({
      problem: 'incidents must be "open"',
    });
    expect(parseInstanceSearch(new URLSearchParams("size=101"))).toEqual({ problem: "size must be between 1 and 100" });
    expect(parseInstanceSearch(new URLSearchParams("status=RUNNING"))).toEqual({ problem: 'unknown status "RUNNING"' });
  });
});
