import { describe, expect, it } from "vitest";
import { issueSession, sessionCookieOptions, verifySession } from "./session";

const secret = "s".repeat(40);
const t0 = Date.UTC(2026, 0, 1, 9, 0, 0);

function b64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

describe("session cookies", () => {
  it("verifies its own token until the TTL is over", async () => {
    const token = await issueSession({ user: "ada", role: "operator" }, secret, 3600, t0);
    expect(await verifySession(token, secret, t0 + 3599_000)).toEqual({ user: "ada", role: "operator" });
    expect(await verifySession(token, secret, t0 + 3601_000)).toBeNull();
  });

  it("refuses a token signed with another secret", async () => {
    const forged = await issueSession({ user: "mallory", role: "admin" }, "x".repeat(40), 3600, t0);
    expect(await verifySession(forged, secret, t0)).toBeNull();
  });

  it("refuses a tampered payload (role raised) with the original signature", async () => {
    const token = await issueSession({ user: "vic", role: "viewer" }, secret, 3600, t0);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const raised = b64url(JSON.stringify({ ...claims, role: "admin" }));
    expect(await verifySession(`${header}.${raised}.${signature}`, secret, t0)).toBeNull();
  });

  it("refuses an unsigned (alg none) token and garbage", async () => {
    const unsigned = `${b64url(JSON.stringify({ alg: "none" }))}.${b64url(JSON.stringify({ sub: "ada", role: "admin", exp: t0 / 1000 + 60, iss: "breakwater-console", aud: "breakwater-console" }))}.`;
    expect(await verifySession(unsigned, secret, t0)).toBeNull();
    expect(await verifySession("not-a-jwt", secret, t0)).toBeNull();
    expect(await verifySession(undefined, secret, t0)).toBeNull();
  });

  it("sets HttpOnly and SameSite=Lax always, Secure over https", () => {
    expect(sessionCookieOptions(true, 60)).toMatchObject({ httpOnly: true, sameSite: "lax", secure: true, path: "/", maxAge: 60 });
    expect(sessionCookieOptions(false, 60).secure).toBe(false);
  });
});
