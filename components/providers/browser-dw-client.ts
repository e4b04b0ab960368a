import { createDwClient } from "@/lib/dw/client";

/**
 * The typed client for browser code, pointed at the same-origin read proxy (`/api/dw/<path>` maps to
 * `<server>/api/<path>`). It carries no token and no namespace: the proxy adds both server-side.
 * Imported from lib/dw/client directly so the Avro codec stays out of client bundles.
 */
export const browserDwClient = createDwClient({ baseUrl: "/api/dw", apiPrefix: "" });
