/**
 * Locales the console ships a catalog for: the languages the Durable Workflow documentation is
 * published in. English is the source catalog; a key another catalog lacks falls back to English
 * (see `loadMessages`), and lib/i18n/catalogs.test.ts fails when one does.
 */
export const LOCALES = ["en", "pt-BR", "de", "fr", "ja", "es", "uk", "zh-Hans"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/** Chinese tags that ask for traditional characters: an explicit Hant script, or a region that writes them. */
const TRADITIONAL_CHINESE = /^zh-(?:hant(?:-|$)|tw$|hk$|mo$)/;

interface LanguageRange {
  tag: string;
  q: number;
  order: number;
}

/** Parses an Accept-Language header into ranges ordered by preference (q, then position). */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  const ranges: LanguageRange[] = [];
  header.split(",").forEach((part, order) => {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = rawTag?.trim().toLowerCase();
    if (!tag) return;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      if (key?.trim() === "q") {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      }
    }
    if (q > 0) ranges.push({ tag, q, order });
  });
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order).map((range) => range.tag);
}

/**
 * The catalog for a language tag: the exact locale (case-insensitive), else the one catalog of its
 * primary language, so `pt` and `pt-PT` get Brazilian Portuguese and `de-AT` gets German. Chinese
 * is the exception: the one catalog is written in simplified characters, so `zh`, `zh-CN` and `zh-SG`
 * get it, and a reader who asks for traditional characters (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`)
 * gets their next choice instead.
 */
function localeForTag(tag: string): Locale | undefined {
  const lower = tag.toLowerCase();
  if (TRADITIONAL_CHINESE.test(lower)) return undefined;
  const exact = LOCALES.find((locale) => locale.toLowerCase() === lower);
  if (exact) return exact;
  const primary = lower.split("-")[0];
  return LOCALES.find((locale) => locale.toLowerCase().split("-")[0] === primary);
}

/**
 * The locale for a request: an explicit choice (cookie) wins, then the first Accept-Language range
 * whose language has a catalog, then English.
 */
export function resolveLocale(
  cookieValue: string | null | undefined,
  acceptLanguage: string | null | undefined,
): Locale {
  if (isLocale(cookieValue)) return cookieValue;
  for (const tag of parseAcceptLanguage(acceptLanguage)) {
    if (tag === "*") return DEFAULT_LOCALE;
    const locale = localeForTag(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}
