import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { incidentLineages, KikwiflowNotFoundError } from "@/lib/kikwiflow";
import type { Incident, KikwiflowClient } from "@/lib/kikwiflow";
import { withKikwiflowHost } from "@/lib/kikwiflow/engine-host-suite";
import { failedJobWasFatal } from "@/lib/kikwiflow/incident-lineage";
import { followRetry } from "@/lib/kikwiflow/retry-follow";
import { definitionLabelsOf } from "@/lib/server/kikwiflow/engine";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow/retry";

/**
 * The console's retry confirmation against the REAL engine (KIKWIFLOW_HOST_JAR, built by
 * scripts/kikwiflow.sh; a missing jar fails the suite): what the route answers is what the engine
 * shows after its 204, and a second retry is the engine's own 409.
 */

let kiki: KikwiflowClient;
withKikwiflowHost((suite) => {
  ({ kiki } = suite);
});

async function openIncidentOf(instanceId: string, timeoutMs = 15_000): Promise<Incident> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const incidents = await kiki.getInstanceIncidents(instanceId).catch(() => []);
    const open = incidents.find((incident) => incident.status === "OPEN");
    if (open) return open;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no open incident on ${instanceId}`);
}

describe("retryIncidentConfirmed on the real engine", () => {
  it("confirms from the engine's re-read, and a second retry is the engine's 409", async () => {
    const started = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-exhausted-backoff",
      businessKey: `retry-${randomUUID()}`,
    });
    const incident = await openIncidentOf(started.id);

    const answer = await retryIncidentConfirmed(kiki, incident.id, { intervalMs: 20 });
    expect(answer.result).toBe("accepted");
    if (answer.result !== "accepted") return;
    expect(answer.instanceId).toBe(started.id);
    // Restored to maxRetries 3; or, if the engine was quicker than the re-read, already run again.
    expect(answer.verdict).toMatchObject({ phase: "confirmed", incidentStatus: "RESOLVED" });
    if (answer.verdict.phase === "confirmed" && answer.verdict.how === "pending") {
      expect(answer.verdict).toMatchObject({ taskStatus: "PENDING", retries: 3, executions: 3 });
    }
    expect((await kiki.getIncident(incident.id)).status).toBe("RESOLVED");

    expect(await retryIncidentConfirmed(kiki, incident.id)).toMatchObject({ result: "rejected", httpStatus: 409 });
    await expect(retryIncidentConfirmed(kiki, `missing-${randomUUID()}`)).rejects.toBeInstanceOf(
      KikwiflowNotFoundError,
    );
  });

  it("labels an instance's definition id with the definition's key and version", async () => {
    const started = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-await-review",
      businessKey: `label-${randomUUID()}`,
    });
    const labels = await definitionLabelsOf(kiki, [started.processDefinitionId, "no-such-definition"]);
    expect(labels).toEqual({ [started.processDefinitionId]: expect.objectContaining({ key: "kiki-await-review" }) });
  });
});

/** Open incidents of the instance, newest first (the engine's 500 on a racing read is read again). */
async function incidentsOf(instanceId: string): Promise<Incident[]> {
  return kiki.getInstanceIncidents(instanceId).catch(() => []);
}

/** Polls until `test` holds for the instance's incidents; the engine acquires due tasks every 300 ms. */
async function untilIncidents(instanceId: string, test: (incidents: Incident[]) => boolean): Promise<Incident[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const incidents = await incidentsOf(instanceId);
    if (test(incidents)) return incidents;
    if (Date.now() > deadline)
      throw new Error(`incidents of ${instanceId} never matched: ${JSON.stringify(incidents)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("after a confirmed retry, on the real engine", () => {
  it("sees the task fail again: a newer incident on the same task, which ends the confirmation", async () => {
    const started = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-fatal",
      businessKey: `again-${randomUUID()}`,
    });
    const first = await openIncidentOf(started.id);
    const answer = await retryIncidentConfirmed(kiki, first.id, { intervalMs: 20 });
    if (answer.result !== "accepted") throw new Error("the retry was rejected");
    expect(answer).toMatchObject({ taskId: first.executionId, incidentCreatedAt: first.createdAt });
    expect(answer.verdict.phase).toBe("confirmed");

    const incidents = await untilIncidents(started.id, (list) => followRetry(answer, list).kind === "failed_again");
    const followUp = followRetry(answer, incidents);
    if (followUp.kind !== "failed_again") throw new Error("unreachable");
    expect(followUp.incident).toMatchObject({
      status: "OPEN",
      executionId: first.executionId,
      message: "Ledger entry checksum mismatch",
    });
    expect(followUp.incident.id).not.toBe(first.id);
  });

  it("keeps a fatal incident fatal after more retries than the policy's executions; an exhausted one is not", async () => {
    const fatal = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-fatal",
      businessKey: `f-${randomUUID()}`,
    });
    // kiki-fatal allows 5 executions; six retries take its task to 7, past what the old rule could mark.
    for (let retried = 0; retried < 6; retried += 1) {
      const open = await openIncidentOf(fatal.id);
      const answer = await retryIncidentConfirmed(kiki, open.id, { intervalMs: 20 });
      expect(answer.result).toBe("accepted");
      await untilIncidents(fatal.id, (list) => list.some((i) => i.status === "OPEN" && i.id !== open.id));
    }
    const latest = await openIncidentOf(fatal.id);
    const snapshot = await kiki.getSnapshot(fatal.id);
    const task = snapshot.executableTasks.find((candidate) => candidate.id === latest.executionId);
    expect(task?.executions).toBe(7);
    const lineage = incidentLineages(await kiki.getEvents(fatal.id)).find((l) => l.incidentId === latest.id);
    expect(failedJobWasFatal(lineage, task?.retryPolicy?.maxRetries)).toBe(true);

    const exhausted = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-exhausted-backoff",
      businessKey: `x-${randomUUID()}`,
    });
    const firstExhausted = await openIncidentOf(exhausted.id);
    await retryIncidentConfirmed(kiki, firstExhausted.id, { intervalMs: 20 });
    await untilIncidents(exhausted.id, (list) => list.some((i) => i.status === "OPEN" && i.id !== firstExhausted.id));
    const events = await kiki.getEvents(exhausted.id);
    const lineages = incidentLineages(events);
    expect(lineages).toHaveLength(2);
    for (const lineage of lineages) expect(failedJobWasFatal(lineage, 3)).toBe(false);
  });
});
