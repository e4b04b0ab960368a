import { describe, expect, it } from "vitest";
import { issueSession, RevokedSessions, revokedSessions, sessionCookieOptions, verifySession } from "./session";

const secret = "s".repeat(40);
const t0 = Date.UTC(2026, 0, 1, 9, 0, 0);

function b64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

describe("session cookies", () => {
  it("verifies its own token until the TTL is over", async () => {
    const token = await issueSession({ user: "ada", role: "operator" }, secret, 3600, t0);
    expect(await verifySession(token, secret, t0 + 3599_000)).toMatchObject({
      user: "ada",
      role: "operator",
      expiresAtMs: t0 + 3600_000,
    });
    expect(await verifySession(token, secret, t0 + 3601_000)).toBeNull();
  });

  it("refuses a token signed with another secret", async () => {
    const forged = await issueSession({ user: "mallory", role: "admin" }, "x".repeat(40), 3600, t0);
    expect(await verifySession(forged, secret, t0)).toBeNull();
  });

  it("refuses a tampered payload (role raised) with the original signature", async () => {
    const token = await issueSession({ user: "vic", role: "viewer" }, secret, 3600, t0);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
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
    expect(sessionCookieOptions(true, 60)).toMatchObject({
      httpOnly: true,
      sameSite: "lax",
      secure: true,
      path: "/",
      maxAge: 60,
    });
    expect(sessionCookieOptions(false, 60).secure).toBe(false);
  });

  it("stops a revoked session (signed out) from verifying, and keeps other sessions of the user", async () => {
    const signedOut = await issueSession({ user: "ada", role: "admin" }, secret, 3600, t0);
    const otherTab = await issueSession({ user: "ada", role: "admin" }, secret, 3600, t0);
    const session = await verifySession(signedOut, secret, t0);
    if (!session) throw new Error("expected a session");
    revokedSessions().revoke(session.id, session.expiresAtMs, t0);
    expect(await verifySession(signedOut, secret, t0 + 1000)).toBeNull();
    expect(await verifySession(otherTab, secret, t0 + 1000)).toMatchObject({ user: "ada" });
  });
});

describe("revoked sessions", () => {
  it("forget an entry once its session would have expired anyway, and stay bounded", () => {
    const revoked = new RevokedSessions(3);
    revoked.revoke("a", t0 + 10_000, t0);
    expect(revoked.has("a", t0 + 9_999)).toBe(true);
    expect(revoked.has("a", t0 + 10_000)).toBe(false);
    revoked.revoke("b", t0 + 50_000, t0);
    revoked.revoke("c", t0 + 20_000, t0);
    revoked.revoke("d", t0 + 90_000, t0 + 1);
    // Full: the soonest-expiring entry (a) made room.
    expect(revoked.size).toBe(3);
    expect(["a", "b", "c", "d"].map((id) => revoked.has(id, t0 + 2))).toEqual([false, true, true, true]);
    revoked.revoke("e", t0 + 90_000, t0 + 30_000);
    // c had expired by then and was pruned first, so nothing live was dropped.
    expect(["b", "d", "e"].map((id) => revoked.has(id, t0 + 30_001))).toEqual([true, true, true]);
  });
});
