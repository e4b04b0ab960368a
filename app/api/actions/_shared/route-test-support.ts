import { NextRequest } from "next/server";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/** Shared by the action route tests: the real embedded server and requests as the console's browser sends them. */

export const CONSOLE = "http://console.test:3000";
export const SAME_ORIGIN: Readonly<Record<string, string>> = { origin: CONSOLE, "sec-fetch-site": "same-origin" };
/** What a test sends straight to the embedded server to set up or read back (control plane v2, admin). */
export const DW_ADMIN_HEADERS = {
  authorization: "Bearer adm-token",
  "content-type": "application/json",
  "x-durable-workflow-control-plane-version": "2",
} as const;

/**
 * Starts the embedded server (SQLite in a temp dir, HTTP on 127.0.0.1, token auth) and points the
 * console's configuration at it with the admin token; `tokens` adds the roles a test needs.
 */
export async function startActionServer(tokens: Record<string, string> = {}): Promise<EmbeddedServer> {
  const server = await startEmbeddedServer({
    clock: systemClock,
    auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token", ...tokens }),
  });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  process.env.DW_NAMESPACE = "default";
  return server;
}

/** A POST to a console route as the browser sends it (console host, JSON, namespace default), then `headers`. */
export function consoleRequest(path: string, body: unknown, headers: Record<string, string>): NextRequest {
  return new NextRequest(`${CONSOLE}${path}`, {
    method: "POST",
    headers: {
      host: "console.test:3000",
      "x-breakwater-host": "console.test:3000",
      "content-type": "application/json",
      "x-namespace": "default",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
