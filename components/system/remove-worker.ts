import type { Worker } from "@/lib/dw/schemas-fleet";
import { postAction } from "@/components/actions/post-action";

export type RemovalOutcome =
  | { kind: "confirmed"; workerId: string; recoveredTasks: number | null }
  | { kind: "unconfirmed"; workerId: string }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

/**
 * Sends a worker's removal through the console's guarded handler, then reads the roster back: only a
 * roster (live and stale) that no longer names the worker confirms it.
 */
export async function removeWorker(
  namespace: string,
  workerId: string,
  readBack: () => Promise<Worker[]>,
): Promise<RemovalOutcome> {
  const sent = await postAction("/api/actions/workers", namespace, { op: "remove", workerId });
  if (sent.kind !== "accepted") return sent;
  const recovered =
    typeof sent.body.recovered_workflow_task_count === "number" ? sent.body.recovered_workflow_task_count : null;
  try {
    const roster = await readBack();
    return roster.some((worker) => worker.worker_id === workerId)
      ? { kind: "unconfirmed", workerId }
      : { kind: "confirmed", workerId, recoveredTasks: recovered };
  } catch {
    return { kind: "unconfirmed", workerId };
  }
}
