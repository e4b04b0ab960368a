"use client";

import { useTransition } from "react";
import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { LOCALES } from "@/lib/i18n/locales";
import type { Locale } from "@/lib/i18n/locales";
import { LOCALE_COOKIE, preferenceCookie } from "@/lib/preferences";

/**
 * Each language named in itself, so an operator can find theirs whatever the current locale. Written
 * out rather than asked of Intl.DisplayNames: a runtime with reduced ICU data names them in English
 * or not at all, and server and browser would then disagree at hydration.
 */
const ENDONYMS: Record<Locale, string> = {
  en: "English",
  "pt-BR": "Português (Brasil)",
  de: "Deutsch",
  fr: "Français",
  ja: "日本語",
  es: "Español",
  uk: "Українська",
  "zh-Hans": "简体中文",
};

export function LocaleSwitcher() {
  const t = useTranslations("locale");
  const locale = useLocale();
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  return (
    <label className="inline-flex items-center gap-1.5 text-xs text-fg-muted">
      <span className="sr-only">{t("label")}</span>
      <select
        value={locale}
        disabled={pending}
        onChange={(event) => {
          document.cookie = preferenceCookie(LOCALE_COOKIE, event.target.value);
          startTransition(() => router.refresh());
        }}
        className="h-8 rounded-md border border-line bg-panel px-2 text-xs text-fg"
      >
        {LOCALES.map((code) => (
          <option key={code} value={code} lang={code}>
            {ENDONYMS[code]}
          </option>
        ))}
      </select>
    </label>
  );
}
