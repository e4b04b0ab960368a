import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { resolveLocale } from "@/lib/i18n/locales";
import { loadMessages } from "@/lib/i18n/messages";
import { resolveTimeZone } from "@/lib/i18n/time-zone";
import { LOCALE_COOKIE } from "@/lib/preferences";

// No i18n routing: the locale comes from the operator's choice (cookie), else Accept-Language.
export default getRequestConfig(async () => {
  const [cookieStore, headerStore] = await Promise.all([cookies(), headers()]);
  const locale = resolveLocale(cookieStore.get(LOCALE_COOKIE)?.value, headerStore.get("accept-language"));
  return {
    locale,
    messages: loadMessages(locale),
    timeZone: resolveTimeZone(cookieStore),
  };
});
