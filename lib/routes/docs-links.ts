/**
 * Links from the console to the Durable Workflow documentation, in the operator's language where
 * the site publishes one. The site's i18n config publishes English and Ukrainian only
 * (durable-workflow/durable-workflow.github.io@009cdd91 docusaurus.config.js `i18n.locales`); its
 * i18n/ folder holds pt-BR, de, fr and ja translations of "Failures and recovery", but they are not
 * built, so those locales link the English page and say so. The Ukrainian build has the page
 * (durable-workflow/durable-workflow.github.io@19c029dd
 * i18n/uk/docusaurus-plugin-content-docs/current/failures-and-recovery.md), under the `uk` prefix.
 */

const SITE = "https://durable-workflow.com";
const FAILURES_PATH = "/docs/failures-and-recovery/";
/** Console locales the site publishes a translation for, with the site's locale prefix. */
const PUBLISHED: Readonly<Record<string, string>> = { uk: "uk" };

export interface DocsLink {
  href: string;
  /** The language of the page linked (BCP 47), for `hreflang` and for saying it is English. */
  lang: string;
}

export function failuresDocsLink(locale: string): DocsLink {
  const prefix = PUBLISHED[locale];
  return prefix
    ? { href: `${SITE}/${prefix}${FAILURES_PATH}`, lang: locale }
    : { href: `${SITE}${FAILURES_PATH}`, lang: "en" };
}
