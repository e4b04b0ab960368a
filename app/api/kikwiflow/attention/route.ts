import type { NextRequest } from "next/server";
import { scanAttention } from "@/lib/kikwiflow/attention";
import { getConfig } from "@/lib/server/config";
import { withPersonLimit } from "@/lib/server/person-limits";
import { getKikwiflowClient, kikwiflowFailure, kikwiflowJson, kikwiflowNotConfigured } from "@/lib/server/kikwiflow";

/**
 * `GET /api/kikwiflow/attention`: OPEN incidents grouped by type × task × root cause. The engine has
 * no cross-instance incident list, so this walks ACTIVE instances (capped, see ATTENTION_INSTANCE_LIMIT)
 * and answers the scan with its bound (`scanned`, `total`, `capped`, `movedOn`).
 */
async function read(request: NextRequest): Promise<Response> {
  const config = getConfig();
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  try {
    return kikwiflowJson(await scanAttention(client, { signal: request.signal }));
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host);
  }
}

/** In one of the person's read places (lib/server/person-limits.ts). */
export async function GET(request: NextRequest): Promise<Response> {
  return withPersonLimit(request, "reads", () => read(request));
}
