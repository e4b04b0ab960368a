import { describe, expect, it } from "vitest";
import { safeNextPath } from "./redirect";

describe("safeNextPath", () => {
  it("keeps paths on this console", () => {
    expect(safeNextPath("/runs?status=failed")).toBe("/runs?status=failed");
    expect(safeNextPath("/workflows/a%2Fb/runs/1")).toBe("/workflows/a%2Fb/runs/1");
  });

  it("refuses other sites, schemes, login loops and API paths", () => {
    for (const value of [
      "//evil.test/x",
      "/\\evil.test",
      "https://evil.test",
      "javascript:alert(1)",
      "/login",
      "/login?next=/",
      "/api/dw/health",
      "/\u0000x",
      42,
      undefined,
    ]) {
      expect(safeNextPath(value), String(value)).toBe("/");
    }
  });

  it("percent-encodes what a Location header cannot carry, instead of failing the sign-in", () => {
    expect(safeNextPath("/中文")).toBe("/%E4%B8%AD%E6%96%87");
    expect(safeNextPath("/runs?q=a b")).toBe("/runs?q=a%20b");
    expect(safeNextPath("/x\u{1F600}")).toBe("/x%F0%9F%98%80");
    expect(safeNextPath("/bad\uD800")).toBe("/");
    expect(safeNextPath("/\u007f")).toBe("/");
    expect(() => new Headers({ location: safeNextPath("/中文") })).not.toThrow();
  });
});
