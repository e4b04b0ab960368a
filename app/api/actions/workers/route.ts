import type { NextRequest } from "next/server";
import { workerRemovalSchema } from "@/lib/actions/workers";
import { handleAction, parsedBody } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/workers`: removes a dead worker from the sending tab's namespace's roster. The
 * real server lets only an admin token do it (`DELETE /api/workers/{id}`, routes/api.php@11d35b7),
 * so the console asks for an admin too. The answer is the server's, or its refusal in its own words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "admin",
    parse: (raw) => parsedBody(workerRemovalSchema.safeParse(raw)),
    send: async (client, removal) => {
      const result = await client.removeWorker(removal.workerId);
      return { body: result, status: result.kind === "accepted" ? 200 : result.httpStatus };
    },
  });
}
