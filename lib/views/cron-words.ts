import type { CronDescriber } from "@/lib/views/schedule-spec";

/**
 * Cron expressions in words (cronstrue), loaded when a spec is first shown and only in the
 * operator's language (sizes: docs/performance.md): no screen needs them before its schedules have
 * been read. Each locale file registers itself into the one cronstrue module it imports.
 */
const LOCALES: Readonly<Record<string, { name: string; load: () => Promise<unknown> }>> = {
  de: { name: "de", load: () => import("cronstrue/locales/de") },
  fr: { name: "fr", load: () => import("cronstrue/locales/fr") },
  ja: { name: "ja", load: () => import("cronstrue/locales/ja") },
  "pt-BR": { name: "pt_BR", load: () => import("cronstrue/locales/pt_BR") },
  es: { name: "es", load: () => import("cronstrue/locales/es") },
  uk: { name: "uk", load: () => import("cronstrue/locales/uk") },
  // cronstrue's zh_CN is written in simplified characters, as the console's zh-Hans catalog is.
  "zh-Hans": { name: "zh_CN", load: () => import("cronstrue/locales/zh_CN") },
};

const loading = new Map<string, Promise<CronDescriber>>();

/** "At 02:00, Monday through Friday" in the locale, 24-hour; null for an expression it cannot read. */
export function loadCronWords(locale: string): Promise<CronDescriber> {
  const known = loading.get(locale);
  if (known) return known;
  const entry = LOCALES[locale];
  const describer = Promise.all([import("cronstrue"), entry?.load()]).then(([{ default: cronstrue }]) => {
    const words: CronDescriber = (expression) => {
      try {
        return cronstrue.toString(expression, {
          locale: entry?.name ?? "en",
          use24HourTimeFormat: true,
          throwExceptionOnParseError: true,
        });
      } catch {
        return null;
      }
    };
    return words;
  });
  loading.set(locale, describer);
  return describer;
}
