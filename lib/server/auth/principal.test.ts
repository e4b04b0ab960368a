import { describe, expect, it } from "vitest";
import { authenticate, forwardedPerson, forwardHeaders } from "./principal";
import { issueSession } from "./session";
import { parseAuthSettings } from "./settings";
import type { AuthSettings } from "./settings";

function settings(env: Record<string, string>): AuthSettings {
  const parsed = parseAuthSettings(env);
  if ("problems" in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.settings;
}

const proxyMode = settings({
  BREAKWATER_AUTH: "proxy",
  BREAKWATER_TRUSTED_PROXIES: "10.0.0.5,fd00::/8",
  BREAKWATER_ROLE_GROUPS: "admin:ops-admins,operator:ops",
});

const now = Date.UTC(2026, 0, 1);
const identity = {
  "x-forwarded-user": "ada",
  "x-forwarded-email": "ada@example.com",
  "x-forwarded-groups": "ops,ops-admins",
};

describe("proxy mode", () => {
  it("believes identity headers from a trusted proxy and maps groups to a role", async () => {
    const outcome = await authenticate(proxyMode, {
      headers: new Headers(identity),
      sessionCookie: undefined,
      peer: "10.0.0.5",
      nowMs: now,
    });
    expect(outcome).toEqual({ kind: "person", person: { user: "ada", role: "admin" } });
  });

  it("ignores spoofed identity headers from any other address, however they are dressed", async () => {
    for (const peer of ["10.0.0.6", "127.0.0.1", null]) {
      const headers = new Headers({ ...identity, "x-forwarded-for": "10.0.0.5", "x-real-ip": "10.0.0.5" });
      const outcome = await authenticate(proxyMode, { headers, sessionCookie: undefined, peer, nowMs: now });
      expect(outcome, String(peer)).toEqual({ kind: "untrusted_peer", peer });
    }
  });

  it("refuses a vouched-for person whose groups map to no role", async () => {
    const headers = new Headers({ "x-forwarded-user": "bob", "x-forwarded-groups": "marketing" });
    expect(await authenticate(proxyMode, { headers, sessionCookie: undefined, peer: "fd00::2", nowMs: now })).toEqual({
      kind: "no_role",
      user: "bob",
    });
  });

  it("reads configured header names and falls back to the e-mail header", async () => {
    const custom = settings({
      BREAKWATER_AUTH: "proxy",
      BREAKWATER_TRUSTED_PROXIES: "10.0.0.5",
      BREAKWATER_ROLE_GROUPS: "viewer:*",
      BREAKWATER_PROXY_EMAIL_HEADER: "X-Auth-Request-Email",
    });
    const headers = new Headers({ "x-auth-request-email": "eve@example.com" });
    expect(await authenticate(custom, { headers, sessionCookie: undefined, peer: "10.0.0.5", nowMs: now })).toEqual({
      kind: "person",
      person: { user: "eve@example.com", role: "viewer" },
    });
  });
});

describe("password mode", () => {
  const secret = "k".repeat(32);
  const passwordMode = settings({
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: "/etc/users.json",
    BREAKWATER_SESSION_SECRET: secret,
  });

  it("accepts a valid session cookie and nothing else", async () => {
    const cookie = await issueSession({ user: "ada", role: "operator" }, secret, 60, now);
    const input = { headers: new Headers(identity), peer: "10.0.0.5", nowMs: now };
    expect(await authenticate(passwordMode, { ...input, sessionCookie: cookie })).toEqual({
      kind: "person",
      person: { user: "ada", role: "operator" },
    });
    // Proxy headers mean nothing in password mode.
    expect(await authenticate(passwordMode, { ...input, sessionCookie: undefined })).toEqual({ kind: "anonymous" });
    expect(await authenticate(passwordMode, { ...input, sessionCookie: cookie, nowMs: now + 61_000 })).toEqual({
      kind: "anonymous",
    });
  });
});

describe("forwarding the verified person", () => {
  it("drops client-sent person headers and sets the verified ones", () => {
    const incoming = new Headers({ "x-breakwater-user": "mallory", "x-breakwater-role": "admin", accept: "text/html" });
    const anonymous = forwardHeaders(incoming, null);
    expect(forwardedPerson(anonymous)).toBeNull();
    expect(anonymous.get("accept")).toBe("text/html");
    const signedIn = forwardHeaders(incoming, { user: "zoë, o'neil", role: "viewer" });
    expect(forwardedPerson(signedIn)).toEqual({ user: "zoë, o'neil", role: "viewer" });
  });

  it("reads no person from an unknown role", () => {
    expect(forwardedPerson(new Headers({ "x-breakwater-user": "x", "x-breakwater-role": "root" }))).toBeNull();
  });
});
