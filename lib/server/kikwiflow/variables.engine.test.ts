import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createKikwiflowClient, KikwiflowNotFoundError } from "@/lib/kikwiflow";
import type { Incident, KikwiflowClient } from "@/lib/kikwiflow";
import { withKikwiflowHost } from "@/lib/kikwiflow/engine-host-suite";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow/retry";
import { setVariableConfirmed } from "@/lib/server/kikwiflow/variables";

/**
 * Editing a variable against the REAL engine (KIKWIFLOW_HOST_JAR; a missing jar fails the suite):
 * the answer comes from a read of the instance after the engine's PUT, a change made since the
 * operator looked is not overwritten, a value the engine refuses is said as such, and the edit does
 * what the seed guide promises: fix the data, retry, the task succeeds.
 */

let kiki: KikwiflowClient;
withKikwiflowHost((suite) => {
  ({ kiki } = suite);
});

async function until<T>(what: string, probe: () => Promise<T | null | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => null);
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const openIncidentOf = (instanceId: string): Promise<Incident> =>
  until(`an open incident on ${instanceId}`, async () =>
    (await kiki.getInstanceIncidents(instanceId)).find((incident) => incident.status === "OPEN"),
  );

async function startWaiting(variables: Record<string, unknown>) {
  return kiki.startProcessInstance({
    processDefinitionKey: "kiki-await-review",
    businessKey: `vars-${randomUUID()}`,
    variables: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, { name, value }])),
  });
}

describe("setVariableConfirmed on the real engine", () => {
  it("fix the data, then retry: failTimes set to 0 is read back, and the retried task succeeds", async () => {
    // maxRetries 4 and failTimes 10: the task exhausts its retries and opens a FAILED_JOB incident.
    const started = await kiki.startProcessInstance({
      processDefinitionKey: "kiki-flaky-linear",
      businessKey: `vars-fix-${randomUUID()}`,
      variables: { failTimes: { name: "failTimes", value: 10 } },
    });
    const incident = await openIncidentOf(started.id);

    const answer = await setVariableConfirmed(kiki, started.id, { name: "failTimes", value: 0, expected: 10 });
    expect(answer).toMatchObject({ result: "accepted", before: 10, value: 0, verdict: { phase: "confirmed" } });
    if (answer.result === "accepted") console.info(`edit → confirmed read-back in ${answer.elapsedMs} ms`);
    expect((await kiki.getProcessInstance(started.id)).variables?.failTimes).toMatchObject({
      value: 0,
      isTransient: false,
    });

    expect(await retryIncidentConfirmed(kiki, incident.id, { intervalMs: 20 })).toMatchObject({ result: "accepted" });
    // The handler read the fixed variable: the task passed and the instance waits at REVIEW.
    const moved = await until("the instance at REVIEW", async () => {
      const instance = await kiki.getProcessInstance(started.id);
      return instance.activeNodes?.REVIEW === 1 ? instance : null;
    });
    expect(moved.activeNodes?.CHARGE_PAYMENT ?? 0).toBe(0);
    expect((await kiki.getInstanceIncidents(started.id)).filter((i) => i.status === "OPEN")).toEqual([]);
  });

  it("keeps a hostile string exactly, and changes a value's type when asked", async () => {
    const started = await startWaiting({ note: "ok", amount: "10" });
    const hostile = '<img src=x onerror="alert(1)">\n\u202eevil\u0000 "quoted" & ünïcødé 🚨';
    const set = await setVariableConfirmed(kiki, started.id, { name: "note", value: hostile, expected: "ok" });
    expect(set).toMatchObject({ result: "accepted", verdict: { phase: "confirmed" } });
    expect((await kiki.getProcessInstance(started.id)).variables?.note?.value).toBe(hostile);

    const typed = await setVariableConfirmed(kiki, started.id, { name: "amount", value: 10, expected: "10" });
    expect(typed).toMatchObject({ result: "accepted", before: "10", value: 10, verdict: { phase: "confirmed" } });
    const nested = { items: [{ sku: "A-1", qty: 2 }], paid: false, memo: null };
    const json = await setVariableConfirmed(kiki, started.id, { name: "amount", value: nested, expected: 10 });
    expect(json).toMatchObject({ result: "accepted", verdict: { phase: "confirmed" } });
    expect((await kiki.getProcessInstance(started.id)).variables?.amount?.value).toEqual(nested);
  });

  it("does not overwrite a change made since the operator looked, nor a variable that is gone", async () => {
    const started = await startWaiting({ limit: 5 });
    await kiki.setProcessInstanceVariables(started.id, { limit: { name: "limit", isTransient: false, value: 7 } });

    const stale = await setVariableConfirmed(kiki, started.id, { name: "limit", value: 9, expected: 5 });
    expect(stale).toMatchObject({ result: "rejected", httpStatus: 409, current: 7 });
    expect((await kiki.getProcessInstance(started.id)).variables?.limit?.value).toBe(7);

    const gone = await setVariableConfirmed(kiki, started.id, { name: "nope", value: 1, expected: 0 });
    expect(gone).toMatchObject({ result: "rejected", httpStatus: 409 });
    expect((await kiki.getProcessInstance(started.id)).variables?.nope).toBeUndefined();
  });

  it("says when the engine refuses a value, and that the old one is still there", async () => {
    const started = await startWaiting({ payload: { ok: true } });
    // Jackson's StreamReadConstraints: the engine refuses a document nested deeper than 1,000 levels.
    const deep: unknown = JSON.parse("[".repeat(1_000) + "]".repeat(1_000));
    const answer = await setVariableConfirmed(kiki, started.id, {
      name: "payload",
      value: deep,
      expected: { ok: true },
    });
    expect(answer).toMatchObject({ result: "refused", httpStatus: 400, kept: true });
    expect((await kiki.getProcessInstance(started.id)).variables?.payload?.value).toEqual({ ok: true });
  });

  it("an unknown instance is the engine's 404 before any PUT (the PUT alone would answer 200)", async () => {
    await expect(
      setVariableConfirmed(kiki, `missing-${randomUUID()}`, { name: "a", value: 1, expected: 0 }),
    ).rejects.toBeInstanceOf(KikwiflowNotFoundError);
  });

  it("an engine that is not there is said as unreachable", async () => {
    const nowhere = createKikwiflowClient({ baseUrl: "http://127.0.0.1:9", timeoutMs: 2_000 });
    await expect(setVariableConfirmed(nowhere, "any", { name: "a", value: 1, expected: 0 })).rejects.toMatchObject({
      reason: "server_unavailable",
    });
  });
});
