import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/process/config";
import { PEER_HEADER } from "../auth/peer";
import { stampedHeaders } from "../auth/peer-test-support";
import { checkHost, clientAddress, parseHost, parseHostPolicy, requestIsHttps } from "./hosts";
import type { HostPolicy } from "./hosts";

function policy(env: Record<string, string> = {}): HostPolicy {
  const parsed = parseHostPolicy(env);
  if ("problems" in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.policy;
}

const h = (headers: Record<string, string>) => new Headers(headers);

describe("the Host allow-list", () => {
  it("answers loopback names and addresses on any port by default", () => {
    for (const host of ["localhost:3000", "127.0.0.1:5501", "[::1]:3000", "LOCALHOST", "127.0.0.1"]) {
      expect(checkHost(policy(), h({ host }), "127.0.0.1"), host).toMatchObject({ ok: true });
    }
  });

  it("refuses a DNS-rebinding name that resolves to 127.0.0.1, and anything that is not a host", () => {
    for (const host of [
      "rebind.attacker.test:5501",
      "127.0.0.2:3000",
      "localhost.:3000",
      "evil.test@localhost",
      "localhost:3000, evil.test",
      "",
      "[::1",
      "localhost:99999",
    ]) {
      expect(checkHost(policy(), h({ host }), "127.0.0.1"), host).toMatchObject({ ok: false });
    }
  });

  it("adds BREAKWATER_ALLOWED_HOSTS: a bare name on any port, name:port on that port only", () => {
    const allowed = policy({ BREAKWATER_ALLOWED_HOSTS: "ops.example.com, console.internal:8443" });
    expect(checkHost(allowed, h({ host: "ops.example.com" }), null)).toEqual({ ok: true, host: "ops.example.com" });
    expect(checkHost(allowed, h({ host: "OPS.example.com:443" }), null)).toEqual({
      ok: true,
      host: "ops.example.com:443",
    });
    expect(checkHost(allowed, h({ host: "console.internal:8443" }), null)).toMatchObject({ ok: true });
    expect(checkHost(allowed, h({ host: "console.internal:3000" }), null)).toMatchObject({ ok: false });
    expect(checkHost(allowed, h({ host: "example.com" }), null)).toMatchObject({ ok: false });
  });

  it("believes X-Forwarded-Host only from a trusted proxy, and then its last value", () => {
    const behindProxy = policy({ BREAKWATER_ALLOWED_HOSTS: "ops.example.com", BREAKWATER_TRUSTED_PROXIES: "10.0.0.5" });
    const viaProxy = h({ host: "10.0.0.9:3000", "x-forwarded-host": "ops.example.com" });
    expect(checkHost(behindProxy, viaProxy, "10.0.0.5")).toEqual({ ok: true, host: "ops.example.com" });
    // The same headers from anyone else: Host decides, and 10.0.0.9 is not an allowed name.
    expect(checkHost(behindProxy, viaProxy, "10.0.0.77")).toMatchObject({ ok: false, host: "10.0.0.9:3000" });
    // From a non-proxy, a forwarded host cannot lift a refused Host either way.
    expect(
      checkHost(behindProxy, h({ host: "localhost:3000", "x-forwarded-host": "rebind.attacker.test" }), "127.0.0.1"),
    ).toEqual({ ok: true, host: "localhost:3000" });
    expect(
      checkHost(behindProxy, h({ host: "x", "x-forwarded-host": "evil.test, ops.example.com" }), "10.0.0.5"),
    ).toMatchObject({ ok: true, host: "ops.example.com" });
  });

  it("parses host forms strictly", () => {
    expect(parseHost("[::1]:8080")).toEqual({ hostname: "[::1]", port: "8080" });
    expect(parseHost("a_b.test")).toBeNull();
    expect(parseHost("[not-v6]")).toBeNull();
  });

  it("is part of the configuration and names a bad entry", () => {
    expect(parseConfig({}).hosts.allowed.map((entry) => entry.hostname)).toEqual(["localhost", "127.0.0.1", "[::1]"]);
    expect(() => parseConfig({ BREAKWATER_ALLOWED_HOSTS: "ok.test,https://ops.example.com" })).toThrow(ConfigError);
    expect(() => parseConfig({ BREAKWATER_ALLOWED_HOSTS: "ok.test,https://ops.example.com" })).toThrow(
      /BREAKWATER_ALLOWED_HOSTS: "https:\/\/ops.example.com" is not host or host:port/,
    );
    expect(() => parseConfig({ BREAKWATER_TRUSTED_PROXIES: "proxy.internal" })).toThrow(/BREAKWATER_TRUSTED_PROXIES/);
  });
});

describe("the client address for login throttling", () => {
  const trusted = policy({ BREAKWATER_TRUSTED_PROXIES: "127.0.0.1,10.0.0.0/8" });

  it("is the peer, unless the peer is a trusted proxy: then the last untrusted X-Forwarded-For hop", () => {
    expect(clientAddress(trusted, h({ "x-forwarded-for": "203.0.113.9" }), "192.0.2.1")).toBe("192.0.2.1");
    expect(clientAddress(trusted, h({ "x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.0.0.4" }), "127.0.0.1")).toBe(
      "203.0.113.9",
    );
    expect(clientAddress(trusted, h({}), "127.0.0.1")).toBe("127.0.0.1");
    expect(clientAddress(trusted, h({ "x-forwarded-for": "not-an-ip" }), "127.0.0.1")).toBe("127.0.0.1");
    expect(clientAddress(trusted, h({}), null)).toBe("unknown");
  });
});

describe("whether the browser came over https", () => {
  const over = (protocol: string, proto?: string, stamped: Headers = new Headers()) => {
    const headers = new Headers(stamped);
    if (proto !== undefined) headers.set("x-forwarded-proto", proto);
    return { nextUrl: { protocol }, headers };
  };

  it("says no on a request the peer stamp did not see, whatever the URL or X-Forwarded-Proto claim (Next believes that header from anyone)", async () => {
    await stampedHeaders(); // installed, yet these headers never went through it
    expect(requestIsHttps(over("https:", "https"))).toBe(false);
    expect(requestIsHttps(over("https:", "https", new Headers({ [PEER_HEADER]: "10.0.0.5" })))).toBe(false);
  });

  it("on a stamped request, believes the X-Forwarded-Proto left (a trusted proxy's, its nearest hop), else the URL's scheme", async () => {
    const stamped = await stampedHeaders();
    expect(requestIsHttps(over("https:", "https", stamped))).toBe(true);
    expect(requestIsHttps(over("http:", "http, https", stamped))).toBe(true);
    // Next's own test is `includes("https")`: the nearest proxy said http, so it is http.
    expect(requestIsHttps(over("https:", "https, http", stamped))).toBe(false);
    expect(requestIsHttps(over("https:", undefined, stamped))).toBe(true);
    expect(requestIsHttps(over("http:", undefined, stamped))).toBe(false);
  });
});
