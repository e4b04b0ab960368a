import type { NextRequest } from "next/server";
import { scanAttention } from "@/lib/kikwiflow/attention";
import { getConfig } from "@/lib/server/process/config";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import {
  definitionLabelsOf,
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
} from "@/lib/server/kikwiflow/engine";

/**
 * `GET /api/kikwiflow/attention`: OPEN incidents grouped by definition × type × task × root cause, with
 * the key and version of each definition (`definitions`). The engine has
 * no cross-instance incident list, so this walks ACTIVE instances (capped, see ATTENTION_INSTANCE_LIMIT)
 * and answers the scan with its bound (`scanned`, `total`, `capped`, `movedOn`).
 */
async function read(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  try {
    const scan = await scanAttention(client, { signal: request.signal });
    const ids = scan.groups.flatMap((group) => (group.processDefinitionId ? [group.processDefinitionId] : []));
    return kikwiflowJson({ ...scan, definitions: await definitionLabelsOf(client, ids, request.signal) });
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}

/** In one of the person's read places (lib/server/proxy/person-limits.ts). */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => read(request));
}
