import type { NextRequest } from "next/server";
import { parseUpdateAction, sendUpdate } from "@/lib/actions/update-command";
import { handleAction } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/updates`: send one update to a run (the Updates tab). Guarded like every run
 * command (same origin, read-only mode, operator role); the answer relays the server's status, so
 * 404 unknown_update, 409 run_not_active and 422 a failed handler reach the tab as answers it words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "operator",
    parse: parseUpdateAction,
    send: async (client, update) => {
      const answer = await sendUpdate(client, update);
      return { body: answer, status: answer.httpStatus };
    },
  });
}
