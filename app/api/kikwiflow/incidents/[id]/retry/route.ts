import type { NextRequest } from "next/server";
import { refusal } from "@/app/api/actions/_shared/respond";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";
import {
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
} from "@/lib/server/kikwiflow/engine";
import { retryIncidentConfirmed } from "@/lib/server/kikwiflow/retry";

/**
 * `POST /api/kikwiflow/incidents/{id}/retry`: the engine's retry-incident behind the guard every
 * action passes (same origin, read-only mode, role ≥ operator), answered only once a re-read shows
 * the effect (lib/server/kikwiflow/retry.ts). 409: the incident was not OPEN any more.
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "operator");
  if (refused) return refusal(refused);
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    const answer = await retryIncidentConfirmed(client, id);
    if (answer.result === "rejected") {
      const message = `The incident is not open, so the engine did not retry it (${answer.message}).`;
      return kikwiflowJson({ ...answer, reason: "conflict", message }, 409);
    }
    return kikwiflowJson(answer);
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host, "incident");
  }
}
