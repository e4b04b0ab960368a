import "server-only";
import { createKikwiflowClient, isKikwiflowError, MAX_SEARCH_PAGE_SIZE } from "@/lib/kikwiflow";
import type { KikwiflowClient, ProcessInstanceStatus } from "@/lib/kikwiflow";
import { PROCESS_INSTANCE_STATUSES } from "@/lib/kikwiflow";
import { getConfig } from "@/lib/server/process/config";
import type { ConsoleConfig, KikwiflowSettings } from "@/lib/server/process/config";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";

/**
 * The console's server side of a Kikwiflow engine (KIKWIFLOW_URL). The engine has no authentication,
 * so only this process talks to it; the app/api/kikwiflow routes answer the browser with JSON and map
 * every engine failure to a status and a sentence an operator can act on.
 */

const NO_STORE = { "cache-control": "no-store" };

let cached: { settings: KikwiflowSettings; client: KikwiflowClient } | undefined;

/** The client for the configured engine, or null when KIKWIFLOW_URL is unset. */
export function getKikwiflowClient(config: ConsoleConfig = getConfig()): KikwiflowClient | null {
  const settings = config.kikwiflow;
  if (!settings) return null;
  if (cached?.settings !== settings) {
    const client = createKikwiflowClient({
      baseUrl: settings.url,
      tenantId: settings.tenant ?? undefined,
      timeoutMs: config.timeoutMs,
    });
    cached = { settings, client };
  }
  return cached.client;
}

export function kikwiflowJson(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: NO_STORE });
}

/** 404 for every Kikwiflow route while no engine is configured: the section does not exist. */
export function kikwiflowNotConfigured(): Response {
  return kikwiflowJson(
    { reason: "not_configured", message: "No Kikwiflow engine is configured (KIKWIFLOW_URL).", httpStatus: 404 },
    404,
  );
}

/** What `what` names in a 404 ("instance", "incident"): finished instances are deleted by the engine. */
export type MissingThing = "instance" | "incident" | "definition";

const MISSING: Readonly<Record<MissingThing, string>> = {
  instance: "The Kikwiflow instance finished or is unknown (the engine deletes finished instances).",
  incident: "The Kikwiflow incident is unknown (its instance may have finished).",
  definition: "The engine has no process definition with this id.",
};

/**
 * An engine failure as an answer: unreachable → 502 with the reason, 404 → 404 "finished or unknown",
 * 409 → 409, 400/501 pass through, anything else 502 (the engine, not the console, failed).
 */
export function kikwiflowFailure(error: unknown, host: string, missing: MissingThing = "instance"): Response {
  if (!isKikwiflowError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return kikwiflowJson({ reason: "internal_error", message, httpStatus: null }, 500);
  }
  const body = (status: number, message: string) =>
    kikwiflowJson({ reason: error.reason, code: error.code, message, httpStatus: error.httpStatus }, status);
  switch (error.reason) {
    case "not_found":
      return body(404, MISSING[missing]);
    case "conflict":
      return body(409, error.message);
    case "bad_request":
    case "invalid_argument":
      return body(400, error.message);
    case "not_implemented":
      return body(501, `The Kikwiflow engine does not support this query: ${error.message}`);
    case "server_unavailable":
      return body(502, `The Kikwiflow engine at ${host} did not answer: ${error.message}`);
    case "route_not_found":
      return body(502, `The Kikwiflow engine at ${host} does not serve this route (management REST off?).`);
    default:
      return body(502, `The Kikwiflow engine at ${host} failed: ${error.message}`);
  }
}

/**
 * A read route's whole answer: the configured engine's client, one read with the request's signal
 * (the engine call stops when the browser leaves), its result as JSON or the failure as an answer;
 * in one of the person's read places (lib/server/proxy/person-limits.ts).
 */
export async function kikwiflowRead(
  request: Request,
  read: (client: KikwiflowClient, signal: AbortSignal) => Promise<unknown>,
  missing: MissingThing = "instance",
): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  const engine = config.kikwiflow;
  if (!client || !engine) return kikwiflowNotConfigured();
  return withPersonLimit(request, "reads", async () => {
    try {
      return kikwiflowJson(await read(client, request.signal));
    } catch (error) {
      return kikwiflowFailure(error, engine.host, missing);
    }
  });
}

/** What the screens show for a definition id: its key, name and version. */
export interface DefinitionLabel {
  key: string;
  name: string | null;
  version: number | null;
}

/** A definition id names one immutable deployment, so what it resolves to is kept (bounded). */
const definitionLabels = new Map<string, DefinitionLabel>();
const MAX_DEFINITION_LABELS = 500;

/**
 * Key, name and version of each definition id (instances carry only the id, a UUID). An id the
 * engine cannot resolve is left out: the screen shows the id itself.
 */
export async function definitionLabelsOf(
  client: KikwiflowClient,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Record<string, DefinitionLabel>> {
  const unique = [...new Set(ids)];
  await Promise.all(
    unique
      .filter((id) => !definitionLabels.has(id))
      .map(async (id) => {
        try {
          const definition = await client.getProcessDefinition(id, { signal });
          if (definitionLabels.size >= MAX_DEFINITION_LABELS) definitionLabels.clear();
          definitionLabels.set(id, {
            key: definition.key,
            name: definition.name ?? null,
            version: definition.version ?? null,
          });
        } catch {
          // A label is a convenience: the id stays readable without it.
        }
      }),
  );
  return Object.fromEntries(
    unique.flatMap((id) => (definitionLabels.has(id) ? [[id, definitionLabels.get(id)!]] : [])),
  );
}

export interface InstanceSearchParams {
  page: number;
  size: number;
  statuses: ProcessInstanceStatus[];
  /** An instance id or a business key, matched exactly; null when not searching. */
  q: string | null;
  /** Only instances with an OPEN incident (`incidents=open`). */
  openIncidents: boolean;
}

const MAX_SEARCH_TEXT = 200;

export const DEFAULT_PAGE_SIZE = 20;

/** `?page=0&size=20&status=ACTIVE&status=…&q=…&incidents=open` as the list's search; a bad value is a sentence. */
export function parseInstanceSearch(params: URLSearchParams): InstanceSearchParams | { problem: string } {
  const page = Number(params.get("page") ?? "0");
  const size = Number(params.get("size") ?? String(DEFAULT_PAGE_SIZE));
  if (!Number.isSafeInteger(page) || page < 0) return { problem: "page must be a whole number ≥ 0" };
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_SEARCH_PAGE_SIZE) {
    return { problem: `size must be between 1 and ${MAX_SEARCH_PAGE_SIZE}` };
  }
  const statuses = params.getAll("status").filter((s) => s !== "");
  const unknown = statuses.find((s) => !(PROCESS_INSTANCE_STATUSES as readonly string[]).includes(s));
  if (unknown !== undefined) return { problem: `unknown status "${unknown}"` };
  const q = params.get("q")?.trim() || null;
  if (q !== null && q.length > MAX_SEARCH_TEXT) return { problem: `q must be at most ${MAX_SEARCH_TEXT} characters` };
  const incidents = params.get("incidents");
  if (incidents !== null && incidents !== "open") return { problem: 'incidents must be "open"' };
  return { page, size, statuses, q, openIncidents: incidents === "open" };
}
