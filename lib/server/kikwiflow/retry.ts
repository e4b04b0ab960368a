import "server-only";
import { isKikwiflowError } from "@/lib/kikwiflow";
import type { KikwiflowClient, ProcessInstanceSnapshot } from "@/lib/kikwiflow";
import { baselineOf, judgeRetry } from "@/lib/kikwiflow/retry-confirm";
import type { RetryAnswer, RetryObservation, RetryVerdict } from "@/lib/kikwiflow/retry-confirm";

export type { RetryAnswer };

/**
 * Retry-incident with durable confirmation: read the incident and its task, PUT the retry, then
 * re-read until {@link judgeRetry} sees its effect or the bound runs out. The engine picks a restored
 * task up within one acquisition tick, so the first re-read follows the 204 at once.
 */

export interface RetryOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

const taskOf = (snapshot: ProcessInstanceSnapshot, taskId: string | null | undefined) =>
  snapshot.executableTasks.find((task) => task.id === taskId) ?? null;

/** One re-read; a 404 on the instance means it finished. Other failures are thrown to the loop. */
async function observe(
  client: KikwiflowClient,
  incidentId: string,
  instanceId: string | null,
  taskId: string | null,
): Promise<RetryObservation> {
  const incident = await client.getIncident(incidentId).catch((error: unknown) => {
    if (isKikwiflowError(error) && error.reason === "not_found") return null;
    throw error;
  });
  if (instanceId === null) return { kind: "read", incident, task: null };
  try {
    const snapshot = await client.getSnapshot(instanceId);
    return { kind: "read", incident, task: taskOf(snapshot, taskId) };
  } catch (error) {
    if (isKikwiflowError(error) && error.reason === "not_found") return { kind: "instance_gone" };
    throw error;
  }
}

/** A read racing the in-memory repository's commit can be Spring's 500; the next read is fine. */
function transient(error: unknown): boolean {
  return isKikwiflowError(error) && error.reason === "server_error";
}

export async function retryIncidentConfirmed(
  client: KikwiflowClient,
  incidentId: string,
  options: RetryOptions = {},
): Promise<RetryAnswer> {
  const timeoutMs = options.timeoutMs ?? 8_000;
  const intervalMs = options.intervalMs ?? 100;
  // Not found here throws: there is no incident to retry.
  const incident = await client.getIncident(incidentId);
  const instanceId = incident.processInstanceId ?? null;
  const before = instanceId
    ? await client.getSnapshot(instanceId).catch((error: unknown) => {
        if (isKikwiflowError(error) && error.reason === "not_found") return null;
        throw error;
      })
    : null;
  const baseline = baselineOf(before ? taskOf(before, incident.executionId) : null);

  const started = Date.now();
  const sent = await client.retryIncident(incidentId);
  if (sent.kind === "rejected") {
    return { result: "rejected", incidentId, httpStatus: 409, message: sent.message };
  }
  const retried = {
    incidentId,
    instanceId,
    taskId: incident.executionId ?? null,
    incidentCreatedAt: incident.createdAt ?? null,
  };
  let last: RetryVerdict | null = null;
  for (;;) {
    try {
      last = judgeRetry(baseline, await observe(client, incidentId, instanceId, baseline.taskId));
      if (last.phase !== "awaiting") {
        return { result: "accepted", ...retried, verdict: last, elapsedMs: Date.now() - started };
      }
    } catch (error) {
      if (!transient(error)) throw error;
    }
    if (Date.now() - started >= timeoutMs) {
      const verdict = { phase: "timed_out" as const, last };
      return { result: "accepted", ...retried, verdict, elapsedMs: Date.now() - started };
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
