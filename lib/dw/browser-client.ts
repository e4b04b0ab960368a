import { PREVALIDATED_DECODERS } from "@/lib/dw/prevalidated";
import { createDwClientWith } from "@/lib/dw/transport";
import type { DwClient } from "@/lib/dw/transport";
import { withBasePath } from "@/lib/http/base-path";

/**
 * The typed client for browser code, pointed at the same-origin read proxy (`/api/dw/<path>` maps to
 * `<server>/api/<path>`). It carries no token: the proxy adds it server-side. The proxy also validates
 * every body with the zod schemas, so this client only maps errors and trusts the shape: zod, the
 * schemas and the Avro codec all stay out of client bundles.
 */
/**
 * The proxy enforces the export's configured read limit (DW_EXPORT_TIMEOUT_MS, at most 600 s), so the
 * browser waits past that maximum: the proxy's 504 arrives first.
 */
const EXPORT_BEYOND_PROXY_MS = 610_000;

function proxyClient(namespace?: string): DwClient {
  return createDwClientWith(PREVALIDATED_DECODERS, {
    baseUrl: withBasePath("/api/dw"),
    apiPrefix: "",
    exportTimeoutMs: EXPORT_BEYOND_PROXY_MS,
    namespace,
  });
}

/**
 * For the server-wide reads only (health, cluster info, the namespace list): it sends no
 * `X-Namespace`, and the proxy refuses it on every namespaced path (docs/decisions/0017).
 */
export const browserDwClient = proxyClient();

const byNamespace = new Map<string, DwClient>();

/**
 * The client for one namespace: every call carries `X-Namespace` explicitly, taken from the page's
 * URL, so a tab reads and acts on the namespace it shows whatever another tab switched to.
 */
export function browserDwClientFor(namespace: string): DwClient {
  let client = byNamespace.get(namespace);
  if (!client) {
    client = proxyClient(namespace);
    byNamespace.set(namespace, client);
  }
  return client;
}
