import type { NextRequest } from "next/server";
import { refusal } from "@/app/api/actions/_shared/respond";
import { cancelReasonProblem } from "@/lib/kikwiflow/cancel-confirm";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";
import {
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
} from "@/lib/server/kikwiflow/engine";
import { cancelInstanceConfirmed } from "@/lib/server/kikwiflow/cancel";
import { getLogger } from "@/lib/server/process/log";

/**
 * `POST /api/kikwiflow/instances/{id}/cancel` `{reason}`: the engine's delete-instance behind the
 * guard every action passes (same origin, read-only mode, role ≥ operator), with a reason as
 * Terminate requires; answered once a re-read shows the instance gone (lib/server/kikwiflow/cancel.ts).
 * The engine takes no reason, so the console's log keeps it. 409: the instance was not ACTIVE.
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "operator");
  if (refused) return refusal(refused);
  const body = (await request.json().catch(() => null)) as { reason?: unknown } | null;
  const reason = typeof body?.reason === "string" ? body.reason.trim() : "";
  const problem = cancelReasonProblem(reason);
  if (problem) {
    const message = problem === "required" ? "A reason is required to cancel an instance." : "The reason is too long.";
    return kikwiflowJson({ reason: "invalid_argument", message, httpStatus: null }, 400);
  }
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    const answer = await cancelInstanceConfirmed(client, id);
    if (answer.result === "rejected") return kikwiflowJson({ ...answer, reason: "conflict" }, 409);
    getLogger().info({ kikwiflowInstance: id, reason, verdict: answer.verdict.phase }, "kikwiflow instance cancelled");
    return kikwiflowJson(answer);
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host, "instance");
  }
}
