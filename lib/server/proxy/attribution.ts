import "server-only";
import type { Person } from "@/lib/server/auth/principal";

/**
 * How the console names the signed-in person to the Durable Workflow server (decision 0058): the
 * forwarded attribution headers the real server records in a command's context when it trusts them
 * (DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS; header names from durable-workflow/server
 * config/server.php@11d35b7, read by app/Support/WorkflowCommandContextFactory.php). Sent on writes
 * only; with nobody signed in (console auth off) nothing is claimed and the server names itself.
 */

export const CALLER_TYPE_HEADER = "X-Workflow-Caller-Type";
export const CALLER_LABEL_HEADER = "X-Workflow-Caller-Label";
export const AUTH_STATUS_HEADER = "X-Workflow-Auth-Status";
export const AUTH_METHOD_HEADER = "X-Workflow-Auth-Method";

/** The caller type the console sends for a signed-in person. */
export const PERSON_CALLER_TYPE = "user";

/**
 * A header value carries bytes: the name goes as its UTF-8 bytes (which PHP reads back as the
 * UTF-8 string), control characters removed so no name can end or add a header.
 */
export function headerSafe(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return Buffer.from(clean, "utf8").toString("latin1");
}

/** The attribution headers for a command sent on behalf of `person` (none for nobody). */
export function attributionHeaders(
  person: Person | null,
  authMode: "none" | "proxy" | "password",
): Record<string, string> {
  if (!person || authMode === "none") return {};
  const label = headerSafe(person.user);
  if (label === "") return {};
  return {
    [CALLER_TYPE_HEADER]: PERSON_CALLER_TYPE,
    [CALLER_LABEL_HEADER]: label,
    [AUTH_STATUS_HEADER]: "authorized",
    [AUTH_METHOD_HEADER]: `breakwater_${authMode}`,
  };
}

/** Reads and writes: only a write (POST, PUT, PATCH, DELETE) can make a command. */
export function isWrite(method: string | undefined): boolean {
  const m = (method ?? "GET").toUpperCase();
  return m !== "GET" && m !== "HEAD" && m !== "OPTIONS";
}

/** The console path a request asked for, set by proxy.ts (replacing any client copy) for the audit. */
export const FORWARDED_PATH = "x-breakwater-path";
