import { getTranslations } from "next-intl/server";
import { LOAD_FAILURE_ID } from "@/lib/preferences/head-script";
import { buttonClass } from "@/components/ui/button";

/**
 * Hidden until the head script finds that one of the page's scripts did not load before hydration
 * and a reload did not help (lib/preferences/head-script.ts, recoverFromScriptFailure). Plain server HTML: it
 * has to work exactly when the page's own code does not. The script sets the link to the page's
 * address and removes `hidden`, so React must not mind the difference.
 */
export async function LoadFailure() {
  const t = await getTranslations("shell.loadFailed");
  return (
    <div
      id={LOAD_FAILURE_ID}
      role="alert"
      hidden
      suppressHydrationWarning
      data-testid="load-failed"
      className="sticky top-0 z-50 border-b border-bad bg-panel px-4 py-3 text-sm shadow-md md:px-8"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <p className="min-w-0 flex-1">
          <strong className="font-semibold">{t("title")}</strong> {t("body")}
        </p>
        <a href="" suppressHydrationWarning className={buttonClass({ variant: "primary", size: "sm" })}>
          {t("reload")}
        </a>
      </div>
    </div>
  );
}
