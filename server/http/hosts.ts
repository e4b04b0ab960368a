import { isIP } from "node:net";

/**
 * The embedded server's Host allow-list (docs/decisions/0043). A page on `rebind.attacker.test`
 * whose name the attacker re-points at 127.0.0.1 reaches this server from the operator's browser
 * with `Host: rebind.attacker.test`, so every request — both planes, every route, health included —
 * is answered only for the names the server is really reached by: loopback names and addresses
 * (any port) plus DW_EMBEDDED_ALLOWED_HOSTS. The console has the same rule (lib/server/edge/hosts.ts,
 * BREAKWATER_ALLOWED_HOSTS); server/ and the console share no code, so this is the server's own.
 */

export const ALLOWED_HOSTS_VARIABLE = "DW_EMBEDDED_ALLOWED_HOSTS";

export interface HostEntry {
  hostname: string;
  /** null: any port. */
  port: string | null;
}

/** Names besides loopback this server answers to; loopback is always allowed. */
export interface HostPolicy {
  allowed: readonly HostEntry[];
}

export const LOOPBACK_ONLY: HostPolicy = { allowed: [] };

const NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `name`, `name:port`, `[v6]` or `[v6]:port`, lower-cased; null when it is none of those. */
export function parseHost(value: string): HostEntry | null {
  const text = value.trim().toLowerCase();
  const [, hostname, port] = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text) ?? [];
  if (hostname === undefined) return null;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  const valid = hostname.startsWith("[")
    ? isIP(hostname.slice(1, -1)) === 6
    : isIP(hostname) === 4 || NAME.test(hostname);
  return valid ? { hostname, port: port ?? null } : null;
}

/** `localhost`, 127.0.0.0/8 and `[::1]`: names no outside DNS answer can point a browser at. */
function isLoopback(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  return isIP(hostname) === 4 && hostname.startsWith("127.");
}

/** DW_EMBEDDED_ALLOWED_HOSTS: comma-separated `host` (any port) or `host:port`; a bad entry stops the start. */
export function hostPolicyFromEnv(env: Record<string, string | undefined> = process.env): HostPolicy {
  const raw = env[ALLOWED_HOSTS_VARIABLE] ?? "";
  const allowed: HostEntry[] = [];
  for (const part of raw.split(",")) {
    if (part.trim() === "") continue;
    const entry = parseHost(part);
    if (!entry) throw new Error(`${ALLOWED_HOSTS_VARIABLE}: "${part.trim()}" is not host or host:port`);
    allowed.push(entry);
  }
  return { allowed };
}

/**
 * Whether a request with these `Host` values is answered. Exactly one value is needed: a request
 * without Host (HTTP/1.0) names no host, and two name two (Node keeps only the first in
 * `headers.host`, so the caller passes every raw value).
 */
export function hostAllowed(policy: HostPolicy, hostValues: readonly string[]): boolean {
  if (hostValues.length !== 1) return false;
  const entry = parseHost(hostValues[0] ?? "");
  if (!entry) return false;
  if (isLoopback(entry.hostname)) return true;
  return policy.allowed.some(
    (rule) => rule.hostname === entry.hostname && (rule.port === null || rule.port === entry.port),
  );
}

/** The `Host` values of a raw Node request, in the order sent. */
export function rawHostValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]?.toLowerCase() === "host") values.push(rawHeaders[i + 1] ?? "");
  return values;
}

/** The refusal's body, the same for both planes (each adds its own envelope). */
export function hostRefusal(hostValues: readonly string[]): { reason: "host_not_allowed"; message: string } {
  const shown = hostValues.length === 0 ? "(none)" : hostValues.join(", ").slice(0, 200);
  return {
    reason: "host_not_allowed",
    message:
      hostValues.length === 0
        ? "The request names no Host; this server answers only requests addressed to one of its names."
        : `This server does not answer to the host "${shown}". If that is a name this server is reached by, add it to ${ALLOWED_HOSTS_VARIABLE} (comma-separated host or host:port); loopback names are always answered.`,
  };
}
