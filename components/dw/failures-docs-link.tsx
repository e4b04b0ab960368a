"use client";

import { useLocale, useTranslations } from "next-intl";
import { failuresDocsLink } from "@/lib/routes/docs-links";

/** The Durable Workflow "Failures and recovery" page, in the operator's language where one is published. */
export function FailuresDocsLink() {
  const t = useTranslations("failures");
  const locale = useLocale();
  const link = failuresDocsLink(locale);
  const other = link.lang !== locale.split("-")[0] && link.lang !== locale;
  return (
    <a
      href={link.href}
      hrefLang={link.lang}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="failures-docs-link"
      className="text-xs text-accent hover:underline"
    >
      {t("docsLink")}
      {other ? ` (${t("docsInEnglish")})` : ""} ↗
    </a>
  );
}
