import { describe, expect, it } from "vitest";
import { BASE_PATH, cookiePath, normalizeBasePath, withBasePath } from "@/lib/http/base-path";

describe("normalizeBasePath", () => {
  it("reads unset, empty and / as the root", () => {
    expect(normalizeBasePath(undefined)).toBe("");
    expect(normalizeBasePath("")).toBe("");
    expect(normalizeBasePath(" / ")).toBe("");
  });

  it("keeps one leading slash and drops trailing ones", () => {
    expect(normalizeBasePath("/ops/breakwater/")).toBe("/ops/breakwater");
    expect(normalizeBasePath("/ops")).toBe("/ops");
    expect(normalizeBasePath("/a.b/c_d~e-f")).toBe("/a.b/c_d~e-f");
  });

  it.each([
    ["ops/breakwater", "must start with one"],
    ["//evil.example/x", "must start with one"],
    ["/ops//breakwater", "may hold only"],
    ["/ops/../admin", "may hold only"],
    ["/ops/./x", "may hold only"],
    ["/ops breakwater", "may hold only"],
    ["/ops/%2e%2e", "may hold only"],
    ["/ops?x=1", "may hold only"],
  ])("refuses %j", (raw, message) => {
    expect(() => normalizeBasePath(raw)).toThrow(message);
  });
});

describe("withBasePath and cookiePath", () => {
  it("put console paths under the sub-path", () => {
    expect(withBasePath("/api/dw/health", "/ops/breakwater")).toBe("/ops/breakwater/api/dw/health");
    expect(withBasePath("/login?next=%2Fruns", "/ops/breakwater")).toBe("/ops/breakwater/login?next=%2Fruns");
    expect(cookiePath("/ops/breakwater")).toBe("/ops/breakwater");
  });

  it("change nothing at the root", () => {
    expect(withBasePath("/api/dw/health", "")).toBe("/api/dw/health");
    expect(cookiePath("")).toBe("/");
  });

  it("default to this build's base path (the root in unit tests)", () => {
    expect(BASE_PATH).toBe("");
    expect(withBasePath("/api/run-view")).toBe("/api/run-view");
    expect(cookiePath()).toBe("/");
  });
});
