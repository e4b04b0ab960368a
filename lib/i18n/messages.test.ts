import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import ptBR from "@/messages/pt-BR.json";
import de from "@/messages/de.json";
import fr from "@/messages/fr.json";
import ja from "@/messages/ja.json";
import es from "@/messages/es.json";
import uk from "@/messages/uk.json";
import zhHans from "@/messages/zh-Hans.json";
import { LOCALES } from "@/lib/i18n/locales";
import { loadMessages, mergeCatalog } from "@/lib/i18n/messages";
// Arguments, plural options and untranslated copies per locale: lib/i18n/catalogs.test.ts (from the ICU tree).
import { catalogLeaves as leaves } from "@/lib/i18n/catalog-leaves";
import type { CatalogTree as Tree } from "@/lib/i18n/catalog-leaves";

describe("message catalogs", () => {
  const english = leaves(en);

  it("has a catalog file for every listed locale, with no key English lacks", () => {
    const catalogs: Record<string, Tree> = { en, "pt-BR": ptBR, de, fr, ja, es, uk, "zh-Hans": zhHans };
    for (const locale of LOCALES) {
      const catalog = catalogs[locale];
      expect(catalog, locale).toBeDefined();
      for (const key of leaves(catalog!).keys()) expect(english.has(key), `${locale}: ${key}`).toBe(true);
    }
  });

  it("fills keys a partial catalog lacks from English and ignores unknown keys", () => {
    const merged = mergeCatalog({ a: "A", b: { c: "C", d: "D" } }, { b: { c: "Ç" }, z: "unknown" });
    expect(merged).toEqual({ a: "A", b: { c: "Ç", d: "D" } });
  });

  it("loads the German catalog with the full English shape", () => {
    const messages = loadMessages("de");
    expect(messages.nav.runs).toBe("Läufe");
    expect([...leaves(messages).keys()].sort()).toEqual([...english.keys()].sort());
  });

  it("loads the Portuguese and French catalogs under their locale codes", () => {
    expect(loadMessages("pt-BR").nav.runs).toBe("Execuções");
    expect(loadMessages("fr").nav.runs).toBe("Exécutions");
    expect(loadMessages("es").nav.runs).toBe("Ejecuciones");
    expect(loadMessages("uk").nav.runs).toBe("Запуски");
    expect(loadMessages("zh-Hans").nav.runs).toBe("运行");
  });
});
