import "server-only";
import { isIP } from "node:net";
import { stampedPeer } from "@/lib/server/auth/peer";
import type { HeaderSource } from "@/lib/server/auth/principal";
import type { AuthProblem } from "@/lib/server/auth/settings";
import { clientAddressOf, parseTrustedProxies } from "@/lib/server/auth/trusted-proxies";
import type { TrustedProxies } from "@/lib/server/auth/trusted-proxies";

/**
 * The Host allow-list (docs/decisions/0012). A page on `rebind.attacker.test` whose name resolves to
 * 127.0.0.1 reaches the console with `Host: rebind.attacker.test` and an Origin to match, so a
 * same-origin check alone cannot tell it from the console's own screens. proxy.ts therefore answers
 * only the names the console is known by: loopback names and addresses (any port), plus
 * BREAKWATER_ALLOWED_HOSTS. `X-Forwarded-Host` counts only from BREAKWATER_TRUSTED_PROXIES.
 * The validated host is forwarded in VALIDATED_HOST; the CSRF check compares Origin with it.
 */

export const VALIDATED_HOST = "x-breakwater-host";

interface HostEntry {
  hostname: string;
  /** null: any port. */
  port: string | null;
}

export interface HostPolicy {
  allowed: readonly HostEntry[];
  trustedProxies: TrustedProxies;
}

const LOOPBACK: readonly HostEntry[] = ["localhost", "127.0.0.1", "[::1]"].map((hostname) => ({
  hostname,
  port: null,
}));
const NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `name`, `name:port`, `[v6]` or `[v6]:port`, lower-cased; null when it is none of those. */
export function parseHost(value: string): HostEntry | null {
  const text = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const [, hostname, port] = match ?? [];
  if (hostname === undefined) return null;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  const valid = hostname.startsWith("[")
    ? isIP(hostname.slice(1, -1)) === 6
    : isIP(hostname) === 4 || NAME.test(hostname);
  return valid ? { hostname, port: port ?? null } : null;
}

export function parseHostPolicy(
  env: Record<string, string | undefined>,
): { policy: HostPolicy } | { problems: AuthProblem[] } {
  const problems: AuthProblem[] = [];
  const allowed = [...LOOPBACK];
  for (const raw of (env.BREAKWATER_ALLOWED_HOSTS ?? "").split(",")) {
    if (raw.trim() === "") continue;
    const entry = parseHost(raw);
    if (entry) {
      allowed.push(entry);
    } else {
      problems.push({
        variable: "BREAKWATER_ALLOWED_HOSTS",
        message: `"${raw.trim()}" is not host or host:port`,
        value: env.BREAKWATER_ALLOWED_HOSTS,
      });
      break;
    }
  }
  const proxies = parseTrustedProxies(env.BREAKWATER_TRUSTED_PROXIES ?? "");
  if ("problem" in proxies) {
    problems.push({
      variable: "BREAKWATER_TRUSTED_PROXIES",
      message: proxies.problem,
      value: env.BREAKWATER_TRUSTED_PROXIES,
    });
  }
  if (problems.length > 0 || "problem" in proxies) return { problems };
  return { policy: { allowed, trustedProxies: proxies.proxies } };
}

export type HostCheck = { ok: true; host: string } | { ok: false; host: string };

function allows(policy: HostPolicy, entry: HostEntry): boolean {
  return policy.allowed.some(
    (rule) => rule.hostname === entry.hostname && (rule.port === null || rule.port === entry.port),
  );
}

/**
 * The host this request was addressed to, and whether the console answers to it. `X-Forwarded-Host`
 * is believed only from a trusted proxy (its last value: the one that proxy set); otherwise `Host`.
 */
export function checkHost(policy: HostPolicy, headers: HeaderSource, peer: string | null): HostCheck {
  const forwarded = policy.trustedProxies.includes(peer) ? headers.get("x-forwarded-host") : null;
  const claimed = (forwarded ? forwarded.split(",").at(-1) : headers.get("host"))?.trim() ?? "";
  const entry = parseHost(claimed);
  if (!entry || !allows(policy, entry)) return { ok: false, host: claimed };
  return { ok: true, host: entry.port === null ? entry.hostname : `${entry.hostname}:${entry.port}` };
}

/**
 * The client's address for throttling: the socket's peer, or, when that peer is a trusted proxy, the
 * last `X-Forwarded-For` hop that is not itself a trusted proxy (behind a TLS terminator every
 * request has the terminator's address, which would make one bucket of everyone). `peer` is
 * stampedPeer's answer (null, "unknown", for a request the stamp did not see).
 */
export function clientAddress(policy: HostPolicy, headers: HeaderSource, peer: string | null): string {
  if (!peer) return "unknown";
  return clientAddressOf(policy.trustedProxies, headers.get("x-forwarded-for"), peer);
}

/**
 * Whether the browser reached the console over https, for the session cookie's `Secure` and the
 * CSP's `upgrade-insecure-requests`. The peer stamp deleted `X-Forwarded-Proto` unless the peer is
 * a trusted proxy, so a value here is that proxy's (its last one: the nearest hop's); with none,
 * Next derived the URL's scheme from the socket. On a request the stamp did not see nothing here is verified (Next
 * itself believes `X-Forwarded-Proto` from anyone), so the answer is no.
 */
export function requestIsHttps(request: { headers: HeaderSource; nextUrl: { protocol: string } }): boolean {
  if (stampedPeer(request.headers) === null) return false;
  const forwarded = request.headers.get("x-forwarded-proto");
  if (forwarded !== null) return forwarded.split(",").at(-1)?.trim().toLowerCase() === "https";
  return request.nextUrl.protocol === "https:";
}
