import type { NextRequest } from "next/server";
import { buildIdRolloutSchema } from "@/lib/actions/build-ids";
import { handleAction, parsedBody } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/build-ids`: promotes, drains or resumes a build id on a task queue of the
 * sending tab's namespace. The real server lets an operator token do it (routes/api.php, the
 * `task-queues` group under `$operator`); the console asks for an admin, since a rollout decides
 * which workers every new run of the queue reaches (decision 0061). The answer is the server's, or its
 * refusal in its own words (promote's 409 with the lifecycle's first blockage).
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "admin",
    parse: (raw) => parsedBody(buildIdRolloutSchema.safeParse(raw)),
    send: async (client, change) => {
      const result = await client.rolloutBuildId(change.action, change.taskQueue, change.buildId);
      return { body: result, status: result.kind === "accepted" ? 200 : result.httpStatus };
    },
  });
}
