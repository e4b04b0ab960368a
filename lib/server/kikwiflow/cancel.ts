import "server-only";
import { isKikwiflowError } from "@/lib/kikwiflow";
import type { KikwiflowClient } from "@/lib/kikwiflow";
import { cancellable, judgeCancel } from "@/lib/kikwiflow/cancel-confirm";
import type { CancelAnswer, CancelObservation, CancelVerdict } from "@/lib/kikwiflow/cancel-confirm";

export type { CancelAnswer };

/**
 * Cancel instance with durable confirmation: read the instance (a 404 here is thrown: nothing to
 * cancel), refuse one that is not ACTIVE, send the engine's delete, then re-read until the engine
 * answers 404 (lib/kikwiflow/cancel-confirm.ts) or the bound runs out.
 */

export interface CancelOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

async function observe(client: KikwiflowClient, instanceId: string): Promise<CancelObservation> {
  try {
    const instance = await client.getProcessInstance(instanceId);
    return { kind: "present", status: instance.status };
  } catch (error) {
    if (isKikwiflowError(error) && error.reason === "not_found") return { kind: "gone" };
    throw error;
  }
}

/** A read racing the in-memory repository's commit can be Spring's 500; the next read is fine. */
const transient = (error: unknown) => isKikwiflowError(error) && error.reason === "server_error";

export async function cancelInstanceConfirmed(
  client: KikwiflowClient,
  instanceId: string,
  options: CancelOptions = {},
): Promise<CancelAnswer> {
  const timeoutMs = options.timeoutMs ?? 8_000;
  const intervalMs = options.intervalMs ?? 100;
  const before = await client.getProcessInstance(instanceId);
  if (!cancellable(before.status)) {
    const message = `The instance is ${before.status}, not ACTIVE, so there is nothing to cancel.`;
    return { result: "rejected", instanceId, httpStatus: 409, status: before.status, message };
  }
  const started = Date.now();
  await client.deleteProcessInstance(instanceId);
  let last: CancelVerdict | null = null;
  for (;;) {
    try {
      last = judgeCancel(await observe(client, instanceId));
      if (last.phase === "confirmed")
        return { result: "accepted", instanceId, verdict: last, elapsedMs: Date.now() - started };
    } catch (error) {
      if (!transient(error)) throw error;
    }
    if (Date.now() - started >= timeoutMs) {
      const verdict = { phase: "timed_out" as const, status: last?.phase === "awaiting" ? last.status : null };
      return { result: "accepted", instanceId, verdict, elapsedMs: Date.now() - started };
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
