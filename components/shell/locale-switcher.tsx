"use client";

import { useTransition } from "react";
import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { LOCALES } from "@/lib/i18n/locales";
import { LOCALE_COOKIE, preferenceCookie } from "@/lib/preferences";

/** Each language is named in itself, so an operator can find theirs whatever the current locale. */
function endonym(locale: string): string {
  const name = new Intl.DisplayNames([locale], { type: "language" }).of(locale) ?? locale;
  return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
}

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
            {endonym(code)}
          </option>
        ))}
      </select>
    </label>
  );
}
