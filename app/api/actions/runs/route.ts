import type { NextRequest } from "next/server";
import { parseRunActionRequest, sendRunCommand } from "@/lib/actions/commands";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";
import { closedRunCache } from "@/lib/server/proxy/closed-run-cache";

/**
 * `POST /api/actions/runs`: one run command (repair, cancel, terminate, archive, signal, start
 * again): guard → the action's descriptor (lib/actions/commands.ts) parses and sends → answer. The
 * answer relays the server's status: 200/202 accepted, 409/404/422 rejected with the reason, so the
 * screen can say what happened in words.
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
  const parsed = parseRunActionRequest(raw);
  if (!parsed.ok) return jsonAnswer({ reason: "invalid_request", message: parsed.message, httpStatus: 400 }, 400);

  // The namespace the sending tab shows, never a cookie another tab may have changed since.
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const answer = await sendRunCommand(getDwClient(namespace), parsed.request);
    // Whatever the answer, what describe says of this workflow's closed runs may have changed (archive).
    closedRunCache().forgetWorkflow(namespace, parsed.request.workflowId);
    return jsonAnswer(answer, answer.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
