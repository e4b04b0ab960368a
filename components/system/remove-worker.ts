import type { Worker } from "@/lib/dw/schemas-fleet";
import { withBasePath } from "@/lib/http/base-path";

export type RemovalOutcome =
  | { kind: "confirmed"; workerId: string; recoveredTasks: number | null }
  | { kind: "unconfirmed"; workerId: string }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sends a worker's removal through the console's guarded handler, then reads the roster back: only a
 * roster (live and stale) that no longer names the worker confirms it.
 */
export async function removeWorker(
  namespace: string,
  workerId: string,
  readBack: () => Promise<Worker[]>,
): Promise<RemovalOutcome> {
  let json: unknown;
  try {
    const response = await fetch(withBasePath("/api/actions/workers"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify({ op: "remove", workerId }),
    });
    json = await response.json().catch(() => null);
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  if (!isRecord(json)) return { kind: "failed", message: "malformed answer" };
  if (json.kind === "rejected")
    return { kind: "rejected", reason: String(json.reason), message: String(json.message ?? "") };
  if (json.kind !== "accepted") return { kind: "failed", message: String(json.message ?? json.reason ?? "") };
  const body = isRecord(json.body) ? json.body : {};
  const recovered = typeof body.recovered_workflow_task_count === "number" ? body.recovered_workflow_task_count : null;
  try {
    const roster = await readBack();
    return roster.some((worker) => worker.worker_id === workerId)
      ? { kind: "unconfirmed", workerId }
      : { kind: "confirmed", workerId, recoveredTasks: recovered };
  } catch {
    return { kind: "unconfirmed", workerId };
  }
}
