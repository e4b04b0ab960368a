import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NextRequest } from "next/server";
import { afterAll, describe, expect, it, vi } from "vitest";
import { authenticate, FORWARDED_ROLE, FORWARDED_USER } from "./principal";
import { stampedHeaders } from "./peer-test-support";
import { parseAuthSettings } from "./settings";
import type { AuthSettings } from "./settings";

/**
 * The two oauth2-proxy recipes of docs/deployment.md, as written there: each block's settings are
 * read from the page, and each mode's headers are the ones oauth2-proxy sends in it
 * (oauth2-proxy pkg/apis/options/legacy_header.go@1a613856: `--set-xauthrequest` answers
 * X-Auth-Request-User/-Email/-Groups, `--pass-user-headers` forwards X-Forwarded-User/-Email/-Groups;
 * pkg/header/injector.go@0d6c414e: one header line per group, `header.Add`).
 */

const DEPLOYMENT = readFileSync(join(__dirname, "..", "..", "..", "docs", "deployment.md"), "utf8");

/** The `KEY=value` lines of the ```sh block after `<!-- recipe:<name> -->`. */
function recipe(name: string): Record<string, string> {
  const match = new RegExp(`<!-- recipe:${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(DEPLOYMENT);
  if (!match?.[1]) throw new Error(`docs/deployment.md has no recipe:${name} block`);
  const env: Record<string, string> = {};
  for (const line of match[1].split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return env;
}

function settingsOf(env: Record<string, string>): AuthSettings {
  const parsed = parseAuthSettings(env);
  if (!("settings" in parsed)) throw new Error(JSON.stringify(parsed.problems));
  return parsed.settings;
}

const identityOf = (settings: AuthSettings, headers: Record<string, string>, peer: string) =>
  authenticate(settings, { headers: new Headers(headers), sessionCookie: undefined, peer, nowMs: 0 });

const AUTH_REQUEST = recipe("auth-request");
const REVERSE_PROXY = recipe("reverse-proxy");
const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
});

/** proxy.ts with this environment (a fresh module graph: the configuration is read once per process). */
async function proxyWith(env: Record<string, string>): Promise<(request: NextRequest) => Promise<Response>> {
  process.env = { ...saved, DW_TOKEN: "t", BREAKWATER_LOG_LEVEL: "silent", ...env };
  vi.resetModules();
  return (await import("@/proxy")).proxy;
}

async function asked(proxy: (request: NextRequest) => Promise<Response>, sent: Record<string, string | string[]>) {
  const { NextRequest } = await import("next/server");
  const headers = await stampedHeaders({ host: "localhost:3000", ...sent });
  return proxy(new NextRequest("http://localhost:3000/api/dw/cluster/info", { headers }));
}

describe("oauth2-proxy behind nginx auth_request (X-Auth-Request-*)", () => {
  const settings = settingsOf(AUTH_REQUEST);
  const nginx = AUTH_REQUEST.BREAKWATER_TRUSTED_PROXIES ?? "";

  it("takes the person from the X-Auth-Request headers nginx copies, groups joined by nginx ≥ 1.23", async () => {
    const sent = {
      "X-Auth-Request-User": "ada",
      "X-Auth-Request-Email": "ada@example.com",
      "X-Auth-Request-Groups": "readers, ops-admins",
    };
    expect(await identityOf(settings, sent, nginx)).toEqual({ kind: "person", person: { user: "ada", role: "admin" } });
    // The email when oauth2-proxy has no user name; the catch-all role for other groups.
    expect(await identityOf(settings, { "X-Auth-Request-Email": "bo@example.com" }, nginx)).toEqual({
      kind: "person",
      person: { user: "bo@example.com", role: "viewer" },
    });
  });

  it("does not take the reverse-proxy mode's X-Forwarded-* names", async () => {
    const sent = { "X-Forwarded-User": "mallory", "X-Forwarded-Groups": "ops-admins" };
    expect(await identityOf(settings, sent, nginx)).toEqual({ kind: "anonymous" });
  });

  it("ignores the headers from any address but nginx's", async () => {
    const sent = { "X-Auth-Request-User": "mallory", "X-Auth-Request-Groups": "ops-admins" };
    expect(await identityOf(settings, sent, "10.1.2.3")).toEqual({ kind: "untrusted_peer", peer: "10.1.2.3" });
  });

  it("passes a stamped request from nginx through proxy.ts as that person, and refuses a repeated groups line", async () => {
    const proxy = await proxyWith(AUTH_REQUEST);
    const one = await asked(proxy, { "X-Auth-Request-User": "ada", "X-Auth-Request-Groups": "ops" });
    expect(one.status).toBe(200);
    expect(one.headers.get(`x-middleware-request-${FORWARDED_USER}`)).toBe("ada");
    expect(one.headers.get(`x-middleware-request-${FORWARDED_ROLE}`)).toBe("operator");
    // nginx sends one line (proxy_set_header): a second one was added by someone else.
    const twice = await asked(proxy, { "X-Auth-Request-User": "ada", "X-Auth-Request-Groups": ["ops", "ops-admins"] });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ reason: "repeated_header" });
  });
});

describe("oauth2-proxy as the reverse proxy (X-Forwarded-*)", () => {
  const settings = settingsOf(REVERSE_PROXY);
  const oauth2Proxy = REVERSE_PROXY.BREAKWATER_TRUSTED_PROXIES ?? "";

  it("takes the person from oauth2-proxy's X-Forwarded headers, the console's default names", async () => {
    const sent = {
      "X-Forwarded-User": "ada",
      "X-Forwarded-Email": "ada@example.com",
      "X-Forwarded-Groups": "ops-admins",
    };
    expect(await identityOf(settings, sent, oauth2Proxy)).toEqual({
      kind: "person",
      person: { user: "ada", role: "admin" },
    });
  });

  it("does not take the auth_request mode's X-Auth-Request-* names", async () => {
    const sent = { "X-Auth-Request-User": "mallory", "X-Auth-Request-Groups": "ops-admins" };
    expect(await identityOf(settings, sent, oauth2Proxy)).toEqual({ kind: "anonymous" });
  });

  it("ignores the headers from any address but oauth2-proxy's", async () => {
    const sent = { "X-Forwarded-User": "mallory", "X-Forwarded-Groups": "ops-admins" };
    expect(await identityOf(settings, sent, "127.0.0.1")).toEqual({ kind: "untrusted_peer", peer: "127.0.0.1" });
  });

  it("reads oauth2-proxy's one line per group as one list through proxy.ts, but never a repeated user", async () => {
    // The stamped test request comes from 127.0.0.1: that is "oauth2-proxy" here.
    const proxy = await proxyWith({ ...REVERSE_PROXY, BREAKWATER_TRUSTED_PROXIES: "127.0.0.1" });
    const lines = await asked(proxy, { "X-Forwarded-User": "ada", "X-Forwarded-Groups": ["readers", "ops-admins"] });
    expect(lines.status).toBe(200);
    expect(lines.headers.get(`x-middleware-request-${FORWARDED_ROLE}`)).toBe("admin");
    const users = await asked(proxy, { "X-Forwarded-User": ["ada", "mallory"], "X-Forwarded-Groups": "ops" });
    expect(users.status).toBe(400);
    expect(await users.json()).toMatchObject({ reason: "repeated_header" });
  });

  it("refuses repeated group lines without BREAKWATER_PROXY_REPEATED_GROUPS=join", async () => {
    const { BREAKWATER_PROXY_REPEATED_GROUPS: join, ...without } = REVERSE_PROXY;
    expect(join).toBe("join");
    const proxy = await proxyWith({ ...without, BREAKWATER_TRUSTED_PROXIES: "127.0.0.1" });
    const lines = await asked(proxy, { "X-Forwarded-User": "ada", "X-Forwarded-Groups": ["readers", "ops-admins"] });
    expect(lines.status).toBe(400);
    expect(await lines.json()).toMatchObject({ reason: "repeated_header" });
  });
});

describe("BREAKWATER_PROXY_REPEATED_GROUPS", () => {
  it("is refuse or join", () => {
    const base = {
      BREAKWATER_AUTH: "proxy",
      BREAKWATER_TRUSTED_PROXIES: "10.0.0.7",
      BREAKWATER_ROLE_GROUPS: "viewer:*",
    };
    expect(settingsOf(base)).toMatchObject({ joinRepeatedGroups: false });
    expect(settingsOf({ ...base, BREAKWATER_PROXY_REPEATED_GROUPS: "refuse" })).toMatchObject({
      joinRepeatedGroups: false,
    });
    expect(parseAuthSettings({ ...base, BREAKWATER_PROXY_REPEATED_GROUPS: "yes" })).toMatchObject({
      problems: [{ variable: "BREAKWATER_PROXY_REPEATED_GROUPS" }],
    });
  });
});
