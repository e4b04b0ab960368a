import type { NextRequest } from "next/server";
import { parseScheduleActionRequest, sendScheduleCommand } from "@/lib/actions/schedule-commands";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";

/**
 * `POST /api/actions/schedules`: one schedule command (pause, resume, trigger, backfill, delete):
 * guard (same origin, read-only mode, an operator) → the descriptor parses and sends
 * (lib/actions/schedule-commands.ts) → the server's outcome, or its refusal with the reason.
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
  const parsed = parseScheduleActionRequest(raw);
  if (!parsed.ok) return jsonAnswer({ reason: "invalid_request", message: parsed.message, httpStatus: 400 }, 400);

  // The namespace the sending tab shows, never a cookie another tab may have changed since.
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const answer = await sendScheduleCommand(getDwClient(namespace), parsed.request);
    return jsonAnswer(answer, answer.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
