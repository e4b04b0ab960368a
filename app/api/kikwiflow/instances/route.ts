import type { NextRequest } from "next/server";
import { getConfig } from "@/lib/server/config";
import { withPersonLimit } from "@/lib/server/person-limits";
import {
  definitionLabelsOf,
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
  parseInstanceSearch,
} from "@/lib/server/kikwiflow";

/**
 * `GET /api/kikwiflow/instances?page=0&size=20&status=ACTIVE`: the engine's instance search
 * (`POST /process-instances/search`), newest first, as the engine's page plus `definitions`: the
 * key, name and version of each definition id on the page.
 */
async function read(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const search = parseInstanceSearch(request.nextUrl.searchParams);
  if ("problem" in search) {
    return kikwiflowJson({ reason: "invalid_request", message: search.problem, httpStatus: 400 }, 400);
  }
  try {
    const page = await client.searchProcessInstances(
      {
        page: search.page,
        size: search.size,
        statuses: search.statuses.length > 0 ? search.statuses : undefined,
        orderBy: "startedAt",
        ascending: false,
      },
      { signal: request.signal },
    );
    const definitions = await definitionLabelsOf(
      client,
      page.content.map((row) => row.processDefinitionId),
      request.signal,
    );
    return kikwiflowJson({ ...page, definitions });
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}

/** In one of the person's read places (lib/server/person-limits.ts). */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => read(request));
}
