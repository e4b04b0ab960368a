import type { TaskQueueBuildIds } from "@/lib/dw/schemas-build-ids";
import type { BuildIdAction, BuildIdRolloutRequest } from "@/lib/actions/build-id-rules";
import { rolloutHolds } from "@/lib/views/build-ids";
import { withBasePath } from "@/lib/http/base-path";

export type RolloutOutcome =
  | { kind: "confirmed"; action: BuildIdAction; buildId: string | null }
  | { kind: "unconfirmed" }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sends a rollout change through the console's guarded handler, then reads the queue's rollout
 * back: only a cohort that shows the change's effect confirms it (lib/views/build-ids.ts `rolloutHolds`).
 */
export async function sendRollout(
  namespace: string,
  change: BuildIdRolloutRequest,
  readBack: () => Promise<TaskQueueBuildIds>,
): Promise<RolloutOutcome> {
  let json: unknown;
  try {
    const response = await fetch(withBasePath("/api/actions/build-ids"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(change),
    });
    json = await response.json().catch(() => null);
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  if (!isRecord(json)) return { kind: "failed", message: "malformed answer" };
  if (json.kind === "rejected")
    return { kind: "rejected", reason: String(json.reason), message: String(json.message ?? "") };
  if (json.kind !== "accepted") return { kind: "failed", message: String(json.message ?? json.reason ?? "") };
  try {
    const snapshot = await readBack();
    return rolloutHolds(snapshot, change.action, change.buildId)
      ? { kind: "confirmed", action: change.action, buildId: change.buildId }
      : { kind: "unconfirmed" };
  } catch {
    return { kind: "unconfirmed" };
  }
}
