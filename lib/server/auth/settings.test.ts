import { describe, expect, it } from "vitest";
import { DEFAULT_SESSION_TTL_SECONDS, parseAuthSettings } from "./settings";

describe("auth settings", () => {
  it("is off without BREAKWATER_AUTH", () => {
    expect(parseAuthSettings({})).toEqual({ settings: { mode: "none" } });
  });

  it("needs trusted proxies and a role map in proxy mode", () => {
    const parsed = parseAuthSettings({ BREAKWATER_AUTH: "proxy" });
    expect("problems" in parsed && parsed.problems.map((problem) => problem.variable)).toEqual([
      "BREAKWATER_TRUSTED_PROXIES",
      "BREAKWATER_ROLE_GROUPS",
    ]);
  });

  it("needs a users file and a long secret in password mode, and never echoes the secret", () => {
    const parsed = parseAuthSettings({ BREAKWATER_AUTH: "password", BREAKWATER_SESSION_SECRET: "short-secret" });
    if (!("problems" in parsed)) throw new Error("expected problems");
    expect(parsed.problems.map((problem) => problem.variable)).toEqual([
      "BREAKWATER_USERS_FILE",
      "BREAKWATER_SESSION_SECRET",
    ]);
    expect(JSON.stringify(parsed.problems)).not.toContain("short-secret");
  });

  it("defaults the session to eight hours and validates the TTL", () => {
    const env = {
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: "u.json",
      BREAKWATER_SESSION_SECRET: "z".repeat(32),
    };
    expect(parseAuthSettings(env)).toMatchObject({ settings: { sessionTtlSeconds: DEFAULT_SESSION_TTL_SECONDS } });
    expect(DEFAULT_SESSION_TTL_SECONDS).toBe(28_800);
    expect(parseAuthSettings({ ...env, BREAKWATER_SESSION_TTL_SECONDS: "10" })).toHaveProperty("problems");
    expect(parseAuthSettings({ ...env, BREAKWATER_AUTH: "ldap" })).toHaveProperty("problems");
  });
});
