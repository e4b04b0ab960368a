import { PREVALIDATED_DECODERS } from "@/lib/dw/prevalidated";
import { createDwClientWith } from "@/lib/dw/transport";

/**
 * The typed client for browser code, pointed at the same-origin read proxy (`/api/dw/<path>` maps to
 * `<server>/api/<path>`). It carries no token and no namespace: the proxy adds both server-side.
 * The proxy also validates every body with the zod schemas, so this client only maps errors and
 * trusts the shape: zod, the schemas and the Avro codec all stay out of client bundles.
 */
/**
 * The proxy enforces the export's configured read limit (DW_EXPORT_TIMEOUT_MS, at most 600 s), so the
 * browser waits past that maximum: the proxy's 504 arrives first.
 */
const EXPORT_BEYOND_PROXY_MS = 610_000;

export const browserDwClient = createDwClientWith(PREVALIDATED_DECODERS, {
  baseUrl: "/api/dw",
  apiPrefix: "",
  exportTimeoutMs: EXPORT_BEYOND_PROXY_MS,
});
