import { describe, expect, it } from "vitest";
import { safeNextPath } from "./redirect";

describe("safeNextPath", () => {
  it("keeps paths on this console", () => {
    expect(safeNextPath("/runs?status=failed")).toBe("/runs?status=failed");
    expect(safeNextPath("/workflows/a%2Fb/runs/1")).toBe("/workflows/a%2Fb/runs/1");
  });

  it("refuses other sites, schemes, login loops and API paths", () => {
    for (const value of ["//evil.test/x", "/\\evil.test", "https://evil.test", "javascript:alert(1)", "/login", "/login?next=/", "/api/dw/health", "/\u0000x", 42, undefined]) {
      expect(safeNextPath(value), String(value)).toBe("/");
    }
  });
});
