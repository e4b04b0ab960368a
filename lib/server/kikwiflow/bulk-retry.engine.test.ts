import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KikwiflowNotFoundError } from "@/lib/kikwiflow";
import type { Incident, KikwiflowClient } from "@/lib/kikwiflow";
import { bulkFollow, bulkRetryOutcome, bulkRetryPlan, retryItems, retrySendResult } from "@/lib/kikwiflow/bulk-retry";
import type { AcceptedRetry, RetryFollow } from "@/lib/kikwiflow/bulk-retry";
import { withKikwiflowHost } from "@/lib/kikwiflow/engine-host-suite";
import { cancelInstanceConfirmed } from "@/lib/server/kikwiflow/cancel";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow/retry";

/**
 * Bulk retry of an attention group and Cancel instance against the REAL engine (KIKWIFLOW_HOST_JAR;
 * a missing jar fails the suite): the plan, the sends and the per-instance follow-up the browser's
 * bulk runner drives (components/kikwiflow/bulk-retry.tsx), fed with the engine's own answers; and
 * the engine's delete-instance confirmed by its 404.
 */

let kiki: KikwiflowClient;
withKikwiflowHost((suite) => {
  ({ kiki } = suite);
});

/** Polls the instance's incidents (a racing read's 500 is read again) until one is OPEN and not `except`. */
async function openIncidentOf(instanceId: string, except?: string): Promise<Incident> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const incidents = await kiki.getInstanceIncidents(instanceId).catch(() => []);
    const open = incidents.find((incident) => incident.status === "OPEN" && incident.id !== except);
    if (open) return open;
    if (Date.now() > deadline) throw new Error(`no open incident on ${instanceId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startFatal(): Promise<{ id: string; incident: Incident }> {
  const started = await kiki.startProcessInstance({
    processDefinitionKey: "kiki-fatal",
    businessKey: `bulk-${randomUUID()}`,
  });
  return { id: started.id, incident: await openIncidentOf(started.id) };
}

/** The runner's follow of one instance: its incidents, and its tasks or "gone" (404). */
async function follow(answer: AcceptedRetry, instanceId: string): Promise<RetryFollow> {
  const incidents = await kiki.getInstanceIncidents(instanceId);
  const tasks = await kiki.getSnapshot(instanceId).then(
    (snapshot) => snapshot.executableTasks,
    (error: unknown) => {
      if (error instanceof KikwiflowNotFoundError) return "gone" as const;
      throw error;
    },
  );
  return bulkFollow(answer, incidents, tasks);
}

describe("bulk retry of a fatal group on the real engine", () => {
  it("plans only still-open incidents, confirms each retry, then sees each instance fail again", async () => {
    const members = [await startFatal(), await startFatal(), await startFatal()];
    // Someone retried the third one already: the dry run must skip it, not send a retry that 409s.
    const early = await retryIncidentConfirmed(kiki, members[2]!.incident.id, { intervalMs: 20 });
    expect(early.result).toBe("accepted");
    const targets = members.map((m) => ({ processInstanceId: m.id, incidentId: m.incident.id }));

    const plan = bulkRetryPlan(targets, await Promise.all(members.map((m) => kiki.getInstanceIncidents(m.id))));
    expect(plan.counts).toEqual({ retry: 2, skip_not_open: 1, skip_unreadable: 0 });

    const items = retryItems(plan);
    const answers = await Promise.all(
      items.map((item) => retryIncidentConfirmed(kiki, item.incidentId, { intervalMs: 20 })),
    );
    const accepted = answers.map((answer) => {
      if (answer.result !== "accepted") throw new Error(`retry of ${answer.incidentId} rejected`);
      return answer;
    });
    const sends = accepted.map((answer) => retrySendResult({ ok: true, answer }));
    expect(sends).toEqual([
      { kind: "accepted", outcome: "confirmed" },
      { kind: "accepted", outcome: "confirmed" },
    ]);

    // Tracking, as the runner does it: re-read until settled (kiki-fatal's task fails again at once).
    const deadline = Date.now() + 20_000;
    let outcome = bulkRetryOutcome(plan, sends, []);
    while (!outcome.settled && Date.now() < deadline) {
      const follows = await Promise.all(items.map((item, i) => follow(accepted[i]!, item.processInstanceId)));
      outcome = bulkRetryOutcome(plan, sends, follows);
      if (!outcome.settled) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(outcome.settled).toBe(true);
    expect(outcome.rows.map((row) => [row.processInstanceId, row.state])).toEqual(
      items.map((item) => [item.processInstanceId, "failed_again"]),
    );
    outcome.rows.forEach((row, i) => {
      expect(row.incident).toMatchObject({ status: "OPEN", executionId: members[i]!.incident.executionId });
      expect(row.incident?.id).not.toBe(members[i]!.incident.id);
    });

    // A retry of an incident someone else retried meanwhile is the engine's 409: "already retried".
    const again = await retryIncidentConfirmed(kiki, items[0]!.incidentId);
    expect(again.result).toBe("rejected");
    expect(retrySendResult({ ok: false, status: 409, reason: "conflict" })).toEqual({
      kind: "rejected",
      reason: "already_retried",
    });
  });
});

describe("cancel instance on the real engine", () => {
  it("deletes a waiting instance, confirmed by the engine's 404; a second cancel finds nothing", async () => {
    const started = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-await-review",
      businessKey: `cancel-${randomUUID()}`,
    });
    expect((await kiki.getProcessInstance(started.id)).status).toBe("ACTIVE");
    const answer = await cancelInstanceConfirmed(kiki, started.id, { intervalMs: 20 });
    expect(answer).toMatchObject({ result: "accepted", instanceId: started.id, verdict: { phase: "confirmed" } });
    await expect(kiki.getProcessInstance(started.id)).rejects.toBeInstanceOf(KikwiflowNotFoundError);
    await expect(cancelInstanceConfirmed(kiki, started.id)).rejects.toBeInstanceOf(KikwiflowNotFoundError);
  });

  it("cancels an instance with an open incident; the engine keeps the incident", async () => {
    const failing = await startFatal();
    const answer = await cancelInstanceConfirmed(kiki, failing.id, { intervalMs: 20 });
    expect(answer).toMatchObject({ result: "accepted", verdict: { phase: "confirmed" } });
    await expect(kiki.getSnapshot(failing.id)).rejects.toBeInstanceOf(KikwiflowNotFoundError);
    expect((await kiki.getIncident(failing.incident.id)).id).toBe(failing.incident.id);
  });
});
