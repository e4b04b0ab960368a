import { describe, expect, it } from "vitest";
import { parseNamespace, parseThemePreference, parseTimeMode, preferenceCookie } from "@/lib/preferences";

describe("preference parsing", () => {
  it("defaults unknown values", () => {
    expect(parseThemePreference("dark")).toBe("dark");
    expect(parseThemePreference("purple")).toBe("system");
    expect(parseThemePreference(undefined)).toBe("system");
    expect(parseTimeMode("local")).toBe("local");
    expect(parseTimeMode("zone")).toBe("zone");
    expect(parseTimeMode("mars")).toBe("utc");
  });

  it("accepts only server-valid namespace names, lower-cased", () => {
    expect(parseNamespace("Billing.EU-1")).toBe("billing.eu-1");
    expect(parseNamespace("a/b")).toBeNull();
    expect(parseNamespace("")).toBeNull();
    expect(parseNamespace("x".repeat(129))).toBeNull();
  });

  it("builds a long-lived, same-site cookie with an encoded value", () => {
    expect(preferenceCookie("bw-tz", "America/New_York")).toBe(
      "bw-tz=America%2FNew_York; Path=/; Max-Age=31536000; SameSite=Lax",
    );
  });
});
