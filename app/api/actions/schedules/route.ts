import type { NextRequest } from "next/server";
import { parseScheduleActionRequest, sendScheduleCommand } from "@/lib/actions/schedule-commands";
import { handleAction } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/schedules`: one schedule command (pause, resume, trigger, backfill, delete):
 * guard (same origin, read-only mode, an operator) → the descriptor parses and sends
 * (lib/actions/schedule-commands.ts) → the server's outcome, or its refusal with the reason.
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "operator",
    parse: parseScheduleActionRequest,
    send: async (client, command) => {
      const answer = await sendScheduleCommand(client, command);
      return { body: answer, status: answer.httpStatus };
    },
  });
}
