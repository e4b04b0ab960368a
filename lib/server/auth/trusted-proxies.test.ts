import { describe, expect, it } from "vitest";
import { clientAddressOf, parseTrustedProxies } from "./trusted-proxies";

function proxies(spec: string) {
  const parsed = parseTrustedProxies(spec);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return parsed.proxies;
}

describe("trusted proxies", () => {
  it("matches single addresses and CIDR ranges of both families", () => {
    const list = proxies("10.0.0.5, 192.168.0.0/16, fd00::/8, ::1");
    expect(list.includes("10.0.0.5")).toBe(true);
    expect(list.includes("10.0.0.6")).toBe(false);
    expect(list.includes("192.168.44.2")).toBe(true);
    expect(list.includes("192.169.0.1")).toBe(false);
    expect(list.includes("fd12::1")).toBe(true);
    expect(list.includes("::1")).toBe(true);
    expect(list.includes("2001:db8::1")).toBe(false);
  });

  it("compares an IPv4-mapped IPv6 peer as its IPv4 address", () => {
    expect(proxies("127.0.0.1").includes("::ffff:127.0.0.1")).toBe(true);
  });

  it("trusts no unknown or malformed peer", () => {
    const list = proxies("10.0.0.0/8");
    expect(list.includes(null)).toBe(false);
    expect(list.includes("")).toBe(false);
    expect(list.includes("10.0.0.1, 1.2.3.4")).toBe(false);
  });

  it("rejects entries that are not addresses or ranges", () => {
    expect(parseTrustedProxies("proxy.internal")).toHaveProperty("problem");
    expect(parseTrustedProxies("10.0.0.0/33")).toHaveProperty("problem");
    expect(parseTrustedProxies("10.0.0.0/8/1")).toHaveProperty("problem");
    expect(parseTrustedProxies("")).toMatchObject({ count: 0 });
  });
});

describe("the client behind a trusted proxy", () => {
  it("reads X-Forwarded-For hops that carry a port (some proxies write them) as their address", () => {
    const list = proxies("127.0.0.1, 10.0.0.0/8");
    expect(clientAddressOf(list, "203.0.113.5:41234", "127.0.0.1")).toBe("203.0.113.5");
    expect(clientAddressOf(list, "[2001:db8::1]:443", "127.0.0.1")).toBe("2001:db8::1");
    expect(clientAddressOf(list, "[2001:db8::2]", "127.0.0.1")).toBe("2001:db8::2");
    expect(clientAddressOf(list, "2001:db8::3", "127.0.0.1")).toBe("2001:db8::3");
    // A trusted hop with a port is still skipped.
    expect(clientAddressOf(list, "198.51.100.7, 10.0.0.4:8080", "127.0.0.1")).toBe("198.51.100.7");
    expect(clientAddressOf(list, "not-an-ip:80", "127.0.0.1")).toBe("127.0.0.1");
  });
});
