import type { NextRequest } from "next/server";
import { isSystemPass, runSystemPass, systemPassBodySchema } from "@/lib/actions/system-passes";
import { handleAction, parsedBody } from "@/app/api/actions/_shared/handle";
import { jsonAnswer } from "@/app/api/actions/_shared/respond";

/**
 * `POST /api/actions/system/repair-pass` and `/activity-timeout-pass`: the admin maintenance passes
 * (lib/actions/system-passes.ts). The report is relayed with the server's 200 or 207 (some items failed).
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ pass: string }> }): Promise<Response> {
  const { pass } = await params;
  if (!isSystemPass(pass))
    return jsonAnswer({ reason: "not_found", message: `No maintenance pass named ${pass}.`, httpStatus: 404 }, 404);
  return handleAction(request, {
    role: "admin",
    emptyBodyIsObject: true,
    parse: (raw) => parsedBody(systemPassBodySchema.safeParse(raw)),
    send: async (client, body) => {
      const result = await runSystemPass(client, pass, body);
      const answer = { httpStatus: result.httpStatus, partial: result.partial, report: result.report };
      return { body: answer, status: result.httpStatus };
    },
  });
}
