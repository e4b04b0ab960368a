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
  it("gives every Portuguese the Brazilian catalog, and matches tags case-insensitively", () => {
    for (const header of ["pt", "pt-BR", "pt-PT", "PT-br", "es;q=0.1, pt-PT;q=0.9"]) {
      expect(resolveLocale(undefined, header), header).toBe("pt-BR");
    }
  });

  it("keeps the cookie's choice over Accept-Language", () => {
    expect(resolveLocale("pt-BR", "fr-FR,fr")).toBe("pt-BR");
    expect(resolveLocale("fr", "pt-BR")).toBe("fr");
    expect(resolveLocale("ja", "de")).toBe("ja");
  });

  it("prefers the cookie when it names a shipped locale", () => {
    expect(resolveLocale("de", "en-US,en")).toBe("de");
    expect(resolveLocale("xx", "de-DE,de;q=0.9")).toBe("de");
  });

  it("falls back through Accept-Language to English", () => {
    expect(resolveLocale(undefined, "ko, de-AT;q=0.7, en;q=0.5")).toBe("de");
    expect(resolveLocale(undefined, "ja-JP,ja;q=0.9")).toBe("ja");
    expect(resolveLocale(undefined, "fr-CA, en;q=0.5")).toBe("fr");
    expect(resolveLocale(undefined, "ko, nl;q=0.8")).toBe("en");
    expect(resolveLocale(undefined, "*")).toBe("en");
    expect(resolveLocale(undefined, undefined)).toBe("en");
  });

  it("matches Spanish of any region, and Ukrainian", () => {
    for (const header of ["es", "es-ES", "es-MX", "es-419"])
      expect(resolveLocale(undefined, header), header).toBe("es");
    expect(resolveLocale(undefined, "uk-UA,uk;q=0.9,en;q=0.5")).toBe("uk");
  });

  it("gives Chinese in simplified characters the zh-Hans catalog, and passes over traditional characters", () => {
    for (const header of ["zh", "zh-CN", "zh-Hans", "zh-hans-CN", "zh-SG", "ko, zh-CN;q=0.8"])
      expect(resolveLocale(undefined, header), header).toBe("zh-Hans");
    for (const header of ["zh-TW", "zh-Hant", "zh-Hant-HK", "zh-HK", "zh-MO"])
      expect(resolveLocale(undefined, header), header).toBe("en");
    expect(resolveLocale(undefined, "zh-TW, ja;q=0.5")).toBe("ja");
    expect(resolveLocale("zh-Hans", "de")).toBe("zh-Hans");
  });
});
