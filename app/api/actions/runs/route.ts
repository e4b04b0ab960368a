import type { NextRequest } from "next/server";
import { parseRunActionRequest, sendRunCommand } from "@/lib/actions/commands";
import { handleAction } from "@/app/api/actions/_shared/handle";
import { closedRunCache } from "@/lib/server/proxy/closed-run-cache";

/**
 * `POST /api/actions/runs`: one run command (repair, cancel, terminate, archive, signal, start
 * again): guard → the action's descriptor (lib/actions/commands.ts) parses and sends → answer. The
 * answer relays the server's status: 200/202 accepted, 409/404/422 rejected with the reason, so the
 * screen can say what happened in words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "operator",
    parse: parseRunActionRequest,
    send: async (client, command, namespace) => {
      const answer = await sendRunCommand(client, command);
      // Whatever the answer, what describe says of this workflow's closed runs may have changed (archive).
      closedRunCache().forgetWorkflow(namespace, command.workflowId);
      return { body: answer, status: answer.httpStatus };
    },
  });
}
