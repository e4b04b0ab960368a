import "server-only";
import { headers } from "next/headers";
import { createDwClient } from "@/lib/dw";
import type { DwCommandClient } from "@/lib/dw";
import { getConfig } from "@/lib/server/process/config";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { HeaderSource, Person } from "@/lib/server/auth/principal";
import { getLogger, loggedFetch } from "@/lib/server/process/log";
import { credentialHeaders } from "@/lib/server/proxy/credentials";
import { attributionHeaders, isWrite } from "@/lib/server/proxy/attribution";
import { auditedFetch } from "@/lib/server/proxy/audit";

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
 * `fetch` with the credentials of whoever the request is from (DW_AUTH_DRIVER: bearer token,
 * `X-Signature`, or none). The transport sends bodies as strings; the signature covers those bytes.
 */
export function credentialedFetch(
  config: ConsoleConfig,
  person: () => Promise<Person | null>,
  base: typeof fetch,
): typeof fetch {
  return async (input, init) => {
    const who = config.auth.mode === "none" ? null : await person();
    const token = tokenFor(config, who);
    const requestHeaders = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    for (const [name, value] of Object.entries(await credentialHeaders(config, token, body)))
      requestHeaders.set(name, value);
    // A write names the person it is sent for (decision 0058); reads make no command.
    if (isWrite(init?.method))
      for (const [name, value] of Object.entries(attributionHeaders(who, config.auth.mode)))
        requestHeaders.set(name, value);
    return base(input, { ...init, headers: requestHeaders });
  };
}

/**
 * A typed client for server components and route handlers, holding the console's token. Pass the
 * request's namespace (see getShellContext / the namespace cookie); it defaults to DW_NAMESPACE.
 * The token is chosen per call from the request's person, and every call is logged with a request id.
 */
export function getDwClient(namespace?: string): DwCommandClient {
  const config = getConfig();
  // Inside loggedFetch, so each audit record carries the X-Request-Id the server logs and records.
  const authorized = credentialedFetch(
    config,
    currentPerson,
    loggedFetch(
      getLogger(),
      auditedFetch(currentPerson, (input, init) => fetch(input, init)),
    ),
  );
  return createDwClient({
    baseUrl: config.serverUrl,
    namespace: namespace ?? config.namespace,
    timeoutMs: config.timeoutMs,
    exportTimeoutMs: config.exportTimeoutMs,
    fetch: authorized,
  });
}
