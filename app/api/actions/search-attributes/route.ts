import type { NextRequest } from "next/server";
import { registryChangeSchema } from "@/lib/actions/search-attributes";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";

/**
 * `POST /api/actions/search-attributes`: creates or deletes a custom search attribute of the
 * sending tab's namespace. The real server lets an operator token do either (routes/api.php@11d35b7);
 * the console asks for an admin, since a registry change reaches every run of the namespace
 * (decision 0056). The answer is the server's, or its refusal in its own words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "admin");
  if (refused) return refusal(refused);

  let raw: unknown;
  try {
    raw = JSON.parse(await request.text());
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = registryChangeSchema.safeParse(raw);
  if (!parsed.success)
    return jsonAnswer(
      { reason: "invalid_request", message: parsed.error.issues[0]?.message ?? "invalid body", httpStatus: 400 },
      400,
    );

  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  const client = getDwClient(namespace);
  try {
    const change = parsed.data;
    const result =
      change.op === "create"
        ? await client.createSearchAttribute(change.name, change.type)
        : await client.deleteSearchAttribute(change.name);
    return jsonAnswer(result, result.kind === "accepted" ? 200 : result.httpStatus);
  } catch (error) {
    return failure(error, config);
  }
}
