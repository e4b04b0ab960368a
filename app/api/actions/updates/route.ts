import type { NextRequest } from "next/server";
import { parseUpdateAction, sendUpdate } from "@/lib/actions/update-command";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";

/**
 * `POST /api/actions/updates`: send one update to a run (the Updates tab). Guarded like every run
 * command (same origin, read-only mode, operator role); the answer relays the server's status, so
 * 404 unknown_update, 409 run_not_active and 422 a failed handler reach the tab as answers it words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "operator");
  if (refused) return refusal(refused);

  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = parseUpdateAction(raw);
  if (!parsed.ok) return jsonAnswer({ reason: "invalid_request", message: parsed.message, httpStatus: 400 }, 400);

  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const answer = await sendUpdate(getDwClient(namespace), parsed.request);
    return jsonAnswer(answer, answer.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
