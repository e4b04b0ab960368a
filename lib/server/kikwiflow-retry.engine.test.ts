import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KikwiflowNotFoundError } from "@/lib/kikwiflow";
import type { Incident, KikwiflowClient } from "@/lib/kikwiflow";
import { withKikwiflowHost } from "@/lib/kikwiflow/engine-host-suite";
import { definitionLabelsOf } from "@/lib/server/kikwiflow";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow-retry";

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
