import type { NextRequest } from "next/server";
import { namespaceActionSchema, runNamespaceAction } from "@/lib/actions/namespace-actions";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";

/**
 * `POST /api/actions/namespaces`: create, edit or delete a namespace (admin, as the real routes are:
 * routes/api.php `$admin` on POST/PUT/DELETE /namespaces). The answer says whether the namespace
 * list read back afterwards shows the change (lib/actions/namespace-actions.ts).
 */
export async function POST(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "admin");
  if (refused) return refusal(refused);

  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = namespaceActionSchema.safeParse(raw);
  if (!parsed.success)
    return jsonAnswer(
      { reason: "invalid_request", message: parsed.error.issues[0]?.message ?? "invalid body", httpStatus: 400 },
      400,
    );

  // The namespace the sending tab shows, never a cookie another tab may have changed since.
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const answer = await runNamespaceAction(getDwClient(namespace), parsed.data);
    return jsonAnswer(answer, answer.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
