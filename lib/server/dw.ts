import { headers } from "next/headers";
import { createDwClient } from "@/lib/dw";
import type { DwClient } from "@/lib/dw";
import { getConfig } from "@/lib/server/config";
import type { ConsoleConfig } from "@/lib/server/config";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { HeaderSource, Person } from "@/lib/server/auth/principal";
import { getLogger, loggedFetch } from "@/lib/server/log";
import { assertServerOnly } from "@/lib/server/server-only";

assertServerOnly("lib/server/dw");

/**
 * The token for whoever the request is from. Without console auth it is the console's token; with
 * it, the signed-in person's role picks one (config `personTokens`), and a request with no verified
 * person gets the least-privileged one.
 */
export function tokenFor(config: ConsoleConfig, person: Person | null): string | null {
  if (config.auth.mode === "none") return config.token;
  return config.personTokens[person?.role ?? "viewer"].token;
}

export function tokenForRequest(config: ConsoleConfig, requestHeaders: HeaderSource): string | null {
  return tokenFor(config, forwardedPerson(requestHeaders));
}

async function currentPerson(): Promise<Person | null> {
  try {
    return forwardedPerson(await headers());
  } catch {
    // Outside a request (no headers to read): no person, so the least-privileged token.
    return null;
  }
}

/**
 * A typed client for server components and route handlers, holding the console's token. Pass the
 * request's namespace (see getShellContext / the namespace cookie); it defaults to DW_NAMESPACE.
 * The token is chosen per call from the request's person, and every call is logged with a request id.
 */
export function getDwClient(namespace?: string): DwClient {
  const config = getConfig();
  const logged = loggedFetch(getLogger());
  const authorized: typeof fetch = async (input, init) => {
    const token = tokenFor(config, config.auth.mode === "none" ? null : await currentPerson());
    const requestHeaders = new Headers(init?.headers);
    if (token) requestHeaders.set("Authorization", `Bearer ${token}`);
    return logged(input, { ...init, headers: requestHeaders });
  };
  return createDwClient({
    baseUrl: config.serverUrl,
    namespace: namespace ?? config.namespace,
    timeoutMs: config.timeoutMs,
    fetch: authorized,
  });
}
