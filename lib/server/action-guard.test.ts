import { describe, expect, it } from "vitest";
import { actionContext, consoleRole, guardAction, sameOriginProblem } from "@/lib/server/action-guard";

const writable = { readOnly: false, tokenSource: null } as const;

function headers(map: Record<string, string>): Headers {
  return new Headers(map);
}

describe("sameOriginProblem", () => {
  it("accepts a same-origin browser POST", () => {
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "same-origin" }))).toBeNull();
  });

  it("accepts the forwarded host of a reverse proxy", () => {
    expect(sameOriginProblem(headers({ host: "10.0.0.5:3000", "x-forwarded-host": "ops.example.com", origin: "https://ops.example.com" }))).toBeNull();
  });

  it("refuses cross-site and same-site fetches by Sec-Fetch-Site", () => {
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "cross-site" }))).toMatch(/cross-site/);
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "same-site" }))).toMatch(/same-site/);
  });

  it("refuses a foreign or missing Origin", () => {
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "http://evil.test" }))).toMatch(/evil\.test/);
    expect(sameOriginProblem(headers({ host: "console:3000" }))).toMatch(/no Origin/);
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "null" }))).toMatch(/no Origin/);
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "not a url" }))).toMatch(/not a URL/);
  });

  it("compares ports too", () => {
    expect(sameOriginProblem(headers({ host: "console:3000", origin: "http://console:3001" }))).not.toBeNull();
  });
});

describe("guardAction", () => {
  const ok = headers({ host: "c:1", origin: "http://c:1", "sec-fetch-site": "same-origin" });

  it("checks origin first, then read-only, then role", () => {
    const foreign = headers({ host: "c:1", origin: "http://evil:1" });
    expect(guardAction(foreign, { readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")?.reason).toBe("cross_origin");
    expect(guardAction(ok, { readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")?.reason).toBe("read_only");
    expect(guardAction(ok, { readOnly: false, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")).toMatchObject({ status: 403, reason: "role" });
  });

  it("lets an allowed request through", () => {
    expect(guardAction(ok, writable, "operator")).toBeNull();
    expect(guardAction(ok, { readOnly: false, tokenSource: "DW_OPERATOR_TOKEN" }, "operator")).toBeNull();
    expect(guardAction(ok, { readOnly: false, tokenSource: "DW_ADMIN_TOKEN" }, "admin")).toBeNull();
  });
});

describe("consoleRole / actionContext", () => {
  it("knows the role only from role-specific token variables", () => {
    expect(consoleRole({ tokenSource: "DW_ADMIN_TOKEN" })).toBe("admin");
    expect(consoleRole({ tokenSource: "DW_OPERATOR_TOKEN" })).toBe("operator");
    expect(consoleRole({ tokenSource: "DW_TOKEN" })).toBeNull();
    expect(consoleRole({ tokenSource: null })).toBeNull();
    expect(actionContext({ readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" })).toEqual({ readOnly: true, role: "operator" });
  });
});
