import { createDwClient } from "@/lib/dw";
import type { DwClient } from "@/lib/dw";
import { getConfig } from "@/lib/server/config";
import { assertServerOnly } from "@/lib/server/server-only";

assertServerOnly("lib/server/dw");

/**
 * A typed client for server components and route handlers, holding the console's token. Pass the
 * request's namespace (see getShellContext / the namespace cookie); it defaults to DW_NAMESPACE.
 */
export function getDwClient(namespace?: string): DwClient {
  const config = getConfig();
  return createDwClient({
    baseUrl: config.serverUrl,
    token: config.token ?? undefined,
    namespace: namespace ?? config.namespace,
    timeoutMs: config.timeoutMs,
  });
}
