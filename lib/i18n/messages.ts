import en from "@/messages/en.json";
import ptBR from "@/messages/pt-BR.json";
import de from "@/messages/de.json";
import fr from "@/messages/fr.json";
import ja from "@/messages/ja.json";
import es from "@/messages/es.json";
import uk from "@/messages/uk.json";
import zhHans from "@/messages/zh-Hans.json";
import type { Locale } from "@/lib/i18n/locales";

export type Messages = typeof en;

/** A catalog that may lack keys: partial locales are allowed, English fills the gaps. */
type PartialCatalog = { [key: string]: string | PartialCatalog };

const CATALOGS: Record<Locale, PartialCatalog> = { en, "pt-BR": ptBR, de, fr, ja, es, uk, "zh-Hans": zhHans };

function isCatalog(value: unknown): value is PartialCatalog {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Overlays `overlay` on `base` key by key; keys the base does not know are dropped. */
export function mergeCatalog(base: PartialCatalog, overlay: PartialCatalog): PartialCatalog {
  const merged: PartialCatalog = {};
  for (const [key, baseValue] of Object.entries(base)) {
    const value = overlay[key];
    if (isCatalog(baseValue)) {
      merged[key] = isCatalog(value) ? mergeCatalog(baseValue, value) : baseValue;
    } else {
      // A leaf is a string, or its precompiled form when the build compiles catalogs (next.config.ts).
      merged[key] = value !== undefined && !isCatalog(value) ? value : baseValue;
    }
  }
  return merged;
}

export function loadMessages(locale: Locale): Messages {
  if (locale === "en") return en;
  // mergeCatalog keeps exactly the shape of `en`, so the result is a complete English-shaped catalog.
  return mergeCatalog(en, CATALOGS[locale]) as Messages;
}
