import { describe, expect, it } from "vitest";
import { parseAcceptLanguage, resolveLocale } from "@/lib/i18n/locales";

describe("parseAcceptLanguage", () => {
  it("orders ranges by quality, then by position, and drops q=0", () => {
    expect(parseAcceptLanguage("fr;q=0.5, de-CH, en;q=0.8, ja;q=0")).toEqual(["de-ch", "en", "fr"]);
    expect(parseAcceptLanguage("")).toEqual([]);
    expect(parseAcceptLanguage(null)).toEqual([]);
  });
});

describe("resolveLocale", () => {
  it("prefers the cookie when it names a shipped locale", () => {
    expect(resolveLocale("de", "en-US,en")).toBe("de");
    expect(resolveLocale("xx", "de-DE,de;q=0.9")).toBe("de");
  });

  it("falls back through Accept-Language to English", () => {
    expect(resolveLocale(undefined, "ja, de-AT;q=0.7, en;q=0.5")).toBe("de");
    expect(resolveLocale(undefined, "ja, pt-BR")).toBe("en");
    expect(resolveLocale(undefined, "*")).toBe("en");
    expect(resolveLocale(undefined, undefined)).toBe("en");
  });
});
