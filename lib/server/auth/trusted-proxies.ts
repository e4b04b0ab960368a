import { BlockList, isIP } from "node:net";

/**
 * `BREAKWATER_TRUSTED_PROXIES`: addresses and CIDR ranges (IPv4 and IPv6) whose requests may carry
 * identity headers. IPv4-mapped IPv6 peers (`::ffff:10.0.0.5`, how a dual-stack socket reports an
 * IPv4 client) are compared as the IPv4 address they are.
 */
export interface TrustedProxies {
  includes(address: string | null): boolean;
}

/**
 * The client's address: the socket's peer, or, when that peer is a trusted proxy, the last
 * `X-Forwarded-For` hop that is not itself a trusted proxy (behind a TLS terminator every request
 * has the terminator's address, which would make one bucket of everyone).
 */
export function clientAddressOf(trusted: TrustedProxies, forwardedFor: string | null, peer: string): string {
  if (!trusted.includes(peer)) return peer;
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((hop) => hopAddress(hop.trim()))
    .filter((hop) => hop !== "");
  for (const hop of [...hops].reverse()) {
    if (!trusted.includes(hop)) return isIP(hop) ? hop : peer;
  }
  return peer;
}

/** A hop without the port some proxies add: `203.0.113.5:41234`, `[2001:db8::1]:443`, `[2001:db8::1]`. */
function hopAddress(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4?.[1] ?? hop;
}

export function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed;
}

export function parseTrustedProxies(spec: string): { proxies: TrustedProxies; count: number } | { problem: string } {
  const list = new BlockList();
  let count = 0;
  for (const raw of spec.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const [address = "", prefixText, extra] = entry.split("/");
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return { problem: `"${entry}" is not an IP address or CIDR range` };
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefixText === undefined) {
      list.addAddress(address, type);
    } else {
      const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
      if (prefix < 0 || prefix > (family === 4 ? 32 : 128))
        return { problem: `"${entry}" has an invalid prefix length` };
      list.addSubnet(address, prefix, type);
    }
    count += 1;
  }
  return {
    count,
    proxies: {
      includes(address) {
        if (address === null) return false;
        const normalized = normalizeAddress(address);
        const family = isIP(normalized);
        if (family === 0) return false;
        return list.check(normalized, family === 4 ? "ipv4" : "ipv6");
      },
    },
  };
}
