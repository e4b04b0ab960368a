import type { NextRequest } from "next/server";
import { namespaceActionSchema, runNamespaceAction } from "@/lib/actions/namespace-actions";
import { handleAction, parsedBody } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/namespaces`: create, edit or delete a namespace (admin, as the real routes are:
 * routes/api.php `$admin` on POST/PUT/DELETE /namespaces). The answer says whether the namespace
 * list read back afterwards shows the change (lib/actions/namespace-actions.ts).
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "admin",
    parse: (raw) => parsedBody(namespaceActionSchema.safeParse(raw)),
    send: async (client, action) => {
      const answer = await runNamespaceAction(client, action);
      return { body: answer, status: answer.httpStatus };
    },
  });
}
