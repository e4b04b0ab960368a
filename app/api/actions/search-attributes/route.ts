import type { NextRequest } from "next/server";
import { registryChangeSchema } from "@/lib/actions/search-attributes";
import { handleAction, parsedBody } from "@/app/api/actions/_shared/handle";

/**
 * `POST /api/actions/search-attributes`: creates or deletes a custom search attribute of the
 * sending tab's namespace. The real server lets an operator token do either (routes/api.php@11d35b7);
 * the console asks for an admin, since a registry change reaches every run of the namespace
 * (decision 0056). The answer is the server's, or its refusal in its own words.
 */
export async function POST(request: NextRequest): Promise<Response> {
  return handleAction(request, {
    role: "admin",
    parse: (raw) => parsedBody(registryChangeSchema.safeParse(raw)),
    send: async (client, change) => {
      const result =
        change.op === "create"
          ? await client.createSearchAttribute(change.name, change.type)
          : await client.deleteSearchAttribute(change.name);
      return { body: result, status: result.kind === "accepted" ? 200 : result.httpStatus };
    },
  });
}
