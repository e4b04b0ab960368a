import type { TaskQueueBuildIds } from "@/lib/dw/schemas-build-ids";
import type { BuildIdAction, BuildIdRolloutRequest } from "@/lib/actions/build-id-rules";
import { rolloutHolds } from "@/lib/views/build-ids";
import { postAction } from "@/components/actions/post-action";

export type RolloutOutcome =
  | { kind: "confirmed"; action: BuildIdAction; buildId: string | null }
  | { kind: "unconfirmed" }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

/**
 * Sends a rollout change through the console's guarded handler, then reads the queue's rollout
 * back: only a cohort that shows the change's effect confirms it (lib/views/build-ids.ts `rolloutHolds`).
 */
export async function sendRollout(
  namespace: string,
  change: BuildIdRolloutRequest,
  readBack: () => Promise<TaskQueueBuildIds>,
): Promise<RolloutOutcome> {
  const sent = await postAction("/api/actions/build-ids", namespace, change);
  if (sent.kind !== "accepted") return sent;
  try {
    const snapshot = await readBack();
    return rolloutHolds(snapshot, change.action, change.buildId)
      ? { kind: "confirmed", action: change.action, buildId: change.buildId }
      : { kind: "unconfirmed" };
  } catch {
    return { kind: "unconfirmed" };
  }
}
