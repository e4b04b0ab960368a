import "server-only";
import { isKikwiflowError } from "@/lib/kikwiflow";
import type { KikwiflowClient, ProcessInstance } from "@/lib/kikwiflow";
import { displayValue, judgeVariableEdit, sameValue } from "@/lib/kikwiflow/variable-edit";
import type { VariableEdit, VariableEditAnswer, VariableEditVerdict } from "@/lib/kikwiflow/variable-edit";

/**
 * Set one variable with durable confirmation: read the instance (a 404 is thrown: nothing to edit),
 * refuse when the variable is gone or no longer holds the value the operator confirmed as "old",
 * send the engine's PUT, then decide from a read of the instance, never from the PUT's answer.
 */

export interface VariableEditOptions {
  /** Bound on re-reads that the in-memory store answers with a racing 500. */
  timeoutMs?: number;
  intervalMs?: number;
}

/** A read racing the in-memory repository's commit can be Spring's 500; the next read is fine. */
const transient = (error: unknown) => isKikwiflowError(error) && error.reason === "server_error";

async function readBack(
  client: KikwiflowClient,
  instanceId: string,
  options: Required<VariableEditOptions>,
): Promise<ProcessInstance | null> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return await client.getProcessInstance(instanceId);
    } catch (error) {
      if (isKikwiflowError(error) && error.reason === "not_found") return null;
      if (!transient(error) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}

export async function setVariableConfirmed(
  client: KikwiflowClient,
  instanceId: string,
  edit: VariableEdit,
  options: VariableEditOptions = {},
): Promise<VariableEditAnswer> {
  const bounds = { timeoutMs: options.timeoutMs ?? 5_000, intervalMs: options.intervalMs ?? 100 };
  const { name } = edit;
  const before = await client.getProcessInstance(instanceId);
  const current = before.variables?.[name];
  if (!current) {
    const message = `The instance has no variable "${name}" any more.`;
    return { result: "rejected", instanceId, name, httpStatus: 409, message };
  }
  if (!sameValue(current.value, edit.expected)) {
    const message = `"${name}" changed since you opened it: the engine now holds ${displayValue(current.value)}.`;
    return { result: "rejected", instanceId, name, httpStatus: 409, current: current.value ?? null, message };
  }
  const started = Date.now();
  // The stored flag travels back unchanged: the console edits the value, not how the engine keeps it.
  const variable = { name, isTransient: current.isTransient === true, value: edit.value };
  try {
    await client.setProcessInstanceVariables(instanceId, { [name]: variable });
  } catch (error) {
    if (!isKikwiflowError(error) || error.reason !== "bad_request") throw error;
    // The engine refused the value (e.g. Jackson's nesting limit): say so, and what it holds now.
    const now = await readBack(client, instanceId, bounds);
    const kept = now ? judgeVariableEdit(edit.expected, now.variables, name).phase === "confirmed" : false;
    const engineMessage = error.message;
    return { result: "refused", instanceId, name, httpStatus: error.httpStatus ?? 400, engineMessage, kept };
  }
  const after = await readBack(client, instanceId, bounds);
  const verdict: VariableEditVerdict = after ? judgeVariableEdit(edit.value, after.variables, name) : { phase: "gone" };
  return {
    result: "accepted",
    instanceId,
    name,
    before: current.value ?? null,
    value: edit.value,
    verdict,
    elapsedMs: Date.now() - started,
  };
}
