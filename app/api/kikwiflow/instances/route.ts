import type { NextRequest } from "next/server";
import { mapBounded } from "@/lib/confirm/bulk";
import { isKikwiflowError } from "@/lib/kikwiflow";
import type { KikwiflowClient, ProcessInstancePage } from "@/lib/kikwiflow";
import { ATTENTION_CONCURRENCY, walkActiveInstances } from "@/lib/kikwiflow/attention";
import { incidentCounts, openIncidentPage } from "@/lib/kikwiflow/instance-list";
import type { IncidentCounts } from "@/lib/kikwiflow/instance-list";
import { getConfig } from "@/lib/server/process/config";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import {
  definitionLabelsOf,
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
  parseInstanceSearch,
} from "@/lib/server/kikwiflow/engine";
import type { InstanceSearchParams } from "@/lib/server/kikwiflow/engine";

/**
 * `GET /api/kikwiflow/instances?page=0&size=20&status=ACTIVE&q=…&incidents=open`: the engine's
 * instance search (`POST /process-instances/search`), newest first, as the engine's page plus
 * `definitions` (key, name and version of each definition id on the page) and `incidents` (open and
 * total incidents per row). `q` is an instance id or a business key. The engine's search has no
 * incident filter, so `incidents=open` walks the ACTIVE instances (bounded like the attention scan,
 * stated in `walk`) and pages those with an OPEN incident.
 */
type Page = ProcessInstancePage & {
  incidents: Record<string, IncidentCounts>;
  walk?: { scanned: number; total: number; capped: boolean };
};

async function searchPage(client: KikwiflowClient, search: InstanceSearchParams, signal: AbortSignal): Promise<Page> {
  const page = await client.searchProcessInstances(
    {
      page: search.page,
      size: search.size,
      statuses: search.statuses.length > 0 ? search.statuses : undefined,
      businessKey: search.q ?? undefined,
      orderBy: "startedAt",
      ascending: false,
    },
    { signal },
  );
  // The search matches business keys; an id is read directly and leads the first page when it exists.
  const found = search.q && search.page === 0 ? await instanceOrNull(client, search.q, signal) : null;
  const byId = found && (search.statuses.length === 0 || search.statuses.includes(found.status)) ? found : null;
  const content = byId && !page.content.some((row) => row.id === byId.id) ? [byId, ...page.content] : page.content;
  const totalElements = page.totalElements + (content.length - page.content.length);
  const counts = await mapBounded(content, ATTENTION_CONCURRENCY, async (row) =>
    incidentCounts(await client.getInstanceIncidents(row.id, { signal }).catch(() => [])),
  );
  const incidents = Object.fromEntries(content.map((row, i) => [row.id, counts[i] ?? { open: 0, total: 0 }]));
  return {
    ...page,
    content,
    totalElements,
    totalPages: Math.max(page.totalPages, content.length > 0 ? 1 : 0),
    incidents,
  };
}

async function instanceOrNull(client: KikwiflowClient, id: string, signal: AbortSignal) {
  try {
    return await client.getProcessInstance(id, { signal });
  } catch (error) {
    if (isKikwiflowError(error) && (error.reason === "not_found" || error.reason === "invalid_argument")) return null;
    throw error;
  }
}

async function openIncidents(
  client: KikwiflowClient,
  search: InstanceSearchParams,
  signal: AbortSignal,
): Promise<Page> {
  const { snapshots, scanned, total, capped } = await walkActiveInstances(client, { signal });
  return { ...openIncidentPage(snapshots, search), walk: { scanned, total, capped } };
}

async function read(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const search = parseInstanceSearch(request.nextUrl.searchParams);
  if ("problem" in search) {
    return kikwiflowJson({ reason: "invalid_request", message: search.problem, httpStatus: 400 }, 400);
  }
  try {
    const signal = request.signal;
    const page = search.openIncidents
      ? await openIncidents(client, search, signal)
      : await searchPage(client, search, signal);
    const ids = page.content.map((row) => row.processDefinitionId);
    return kikwiflowJson({ ...page, definitions: await definitionLabelsOf(client, ids, signal) });
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}

/** In one of the person's read places (lib/server/proxy/person-limits.ts). */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => read(request));
}
