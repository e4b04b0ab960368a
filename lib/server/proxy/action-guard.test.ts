import { describe, expect, it } from "vitest";
import { actionContext, consoleRole, guardAction, sameOriginProblem } from "@/lib/server/proxy/action-guard";

const writable = { readOnly: false, tokenSource: null } as const;

/** As proxy.ts forwards them: the host it validated travels in x-breakwater-host. */
function headers(map: Record<string, string>): Headers {
  const forwarded = new Headers(map);
  if (map.host) forwarded.set("x-breakwater-host", map.host);
  return forwarded;
}

describe("sameOriginProblem", () => {
  it("accepts a same-origin browser POST", () => {
    expect(
      sameOriginProblem(
        headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "same-origin" }),
      ),
    ).toBeNull();
  });

  it("compares Origin with the validated host, never a raw Host or X-Forwarded-Host", () => {
    // A DNS-rebinding page: Host and Origin agree with each other, but proxy.ts validated another host.
    const rebound = new Headers({
      host: "rebind.attacker.test:5501",
      "x-forwarded-host": "rebind.attacker.test:5501",
      origin: "http://rebind.attacker.test:5501",
      "x-breakwater-host": "localhost:5501",
    });
    expect(sameOriginProblem(rebound)).toMatch(/rebind\.attacker\.test:5501 is not this console \(localhost:5501\)/);
    // Without the validated host (proxy.ts did not run) nothing is same-origin.
    expect(sameOriginProblem(new Headers({ host: "console:3000", origin: "http://console:3000" }))).toMatch(
      /host check/,
    );
    expect(
      sameOriginProblem(new Headers({ origin: "https://ops.example.com", "x-breakwater-host": "ops.example.com" })),
    ).toBeNull();
    expect(
      sameOriginProblem(new Headers({ origin: "http://ops.example.com", "x-breakwater-host": "ops.example.com:80" })),
    ).toBeNull();
  });

  it("refuses cross-site and same-site fetches by Sec-Fetch-Site", () => {
    expect(
      sameOriginProblem(
        headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "cross-site" }),
      ),
    ).toMatch(/cross-site/);
    expect(
      sameOriginProblem(
        headers({ host: "console:3000", origin: "http://console:3000", "sec-fetch-site": "same-site" }),
      ),
    ).toMatch(/same-site/);
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
    expect(guardAction(foreign, { readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")?.reason).toBe(
      "cross_origin",
    );
    expect(guardAction(ok, { readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")?.reason).toBe("read_only");
    expect(guardAction(ok, { readOnly: false, tokenSource: "DW_OPERATOR_TOKEN" }, "admin")).toMatchObject({
      status: 403,
      reason: "role",
    });
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
    expect(actionContext({ readOnly: true, tokenSource: "DW_OPERATOR_TOKEN" })).toEqual({
      readOnly: true,
      role: "operator",
      personRole: null,
    });
  });
});
