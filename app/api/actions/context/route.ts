import { actionContext } from "@/lib/server/action-guard";
import { getConfig } from "@/lib/server/config";

/** Read-only mode and the console's known role, so action widgets can explain a disabled button. */
export function GET(): Response {
  return Response.json(actionContext(getConfig()), { headers: { "cache-control": "no-store" } });
}
