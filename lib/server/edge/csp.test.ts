import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";
import { contentSecurityPolicy, HEAD_SCRIPT_HASH, newNonce } from "./csp";

function directives(policy: string): Map<string, string> {
  return new Map(policy.split("; ").map((part) => [part.split(" ")[0] ?? "", part.slice(part.indexOf(" ") + 1)]));
}

describe("content security policy", () => {
  it("allows scripts by nonce and by the theme script's hash only, with no unsafe-inline or eval", () => {
    const nonce = newNonce();
    const policy = directives(contentSecurityPolicy(nonce, { https: false, dev: false }));
    const scripts = policy.get("script-src") ?? "";
    expect(scripts).toContain(`'nonce-${nonce}'`);
    expect(scripts).toContain(`'sha256-${createHash("sha256").update(HEAD_SCRIPT).digest("base64")}'`);
    expect(HEAD_SCRIPT_HASH.length).toBeGreaterThan(20);
    expect(scripts).toContain("'strict-dynamic'");
    expect(scripts).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(policy.get("style-src")).toBe(`'self' 'nonce-${nonce}'`);
    expect(policy.get("worker-src")).toBe("'self'");
    expect(policy.get("frame-ancestors")).toBe("'none'");
    expect(policy.get("object-src")).toBe("'none'");
    expect(policy.get("default-src")).toBe("'self'");
    expect(policy.has("upgrade-insecure-requests")).toBe(false);
  });

  it("uses a fresh nonce each time and upgrades requests only over https", () => {
    expect(newNonce()).not.toBe(newNonce());
    expect(contentSecurityPolicy("n", { https: true, dev: false })).toContain("upgrade-insecure-requests");
  });
});
