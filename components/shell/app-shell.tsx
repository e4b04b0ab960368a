import type { ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { BreakwaterMark } from "@/components/ui/icons";
import { AccountStatus } from "@/components/shell/account-status";
import { ConnectionIndicator } from "@/components/shell/connection-indicator";
import { StaleBanner } from "@/components/shell/stale-banner";
import { LocaleSwitcher } from "@/components/shell/locale-switcher";
import { NamespaceSwitcher } from "@/components/shell/namespace-switcher";
import { PrimaryNav } from "@/components/shell/primary-nav";
import { ShortcutSheet } from "@/components/shell/shortcut-sheet";
import { ViewOwnerProvider } from "@/components/shell/view-owner";
import { ThemeToggle } from "@/components/shell/theme-toggle";
import { TimeModeToggle } from "@/components/shell/time-mode-toggle";
import type { ShellContext } from "@/lib/server/pages/shell-context";

/** The frame around every screen: brand and navigation, namespace, connection and display preferences. */
export async function AppShell({ context, children }: { context: ShellContext; children: ReactNode }) {
  const t = await getTranslations("shell");

  // Before sign-in (the login page) there is nothing to navigate to: no nav, no server status.
  if (context.auth.mode !== "none" && context.auth.person === null) {
    return (
      <main
        id="main"
        tabIndex={-1}
        className="flex min-h-dvh flex-1 items-start justify-center px-4 py-16 outline-none"
      >
        {children}
      </main>
    );
  }

  return (
    <div className="flex min-h-dvh flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-accent px-3 py-2 text-sm font-medium text-accent-fg focus:not-sr-only focus:fixed focus:left-3 focus:top-3"
      >
        {t("skipToContent")}
      </a>

      {/* The aside stretches with the page (background and border reach the bottom); its content sticks. */}
      <aside className="shrink-0 border-b border-line bg-panel md:w-56 md:border-b-0 md:border-r">
        <div className="flex flex-col gap-3 px-3 py-3 md:sticky md:top-0 md:max-h-dvh md:overflow-y-auto md:py-4">
          <div className="flex items-center gap-2 px-2 text-fg">
            <BreakwaterMark />
            <div className="leading-tight">
              <p className="text-base font-semibold tracking-tight">{t("brand")}</p>
              <p className="text-xs text-fg-muted">{t("tagline")}</p>
            </div>
          </div>
          <PrimaryNav lastUsed={context.lastNamespace} kikwiflow={context.kikwiflow} />
          <AccountStatus auth={context.auth} />
        </div>
      </aside>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-line bg-panel px-4 py-2.5">
          <NamespaceSwitcher lastUsed={context.lastNamespace} />
          {context.readOnly ? (
            <span
              title={t("readOnlyDescription")}
              className="rounded-full border border-warn px-2 py-0.5 text-xs font-medium text-warn"
            >
              {t("readOnly")}
              <span className="sr-only">{`: ${t("readOnlyDescription")}`}</span>
            </span>
          ) : null}
          <div className="ml-auto flex flex-wrap items-center gap-2">
            <ConnectionIndicator serverHost={context.serverHost} />
            <div role="group" aria-label={t("preferences")} className="flex flex-wrap items-center gap-2">
              <TimeModeToggle mode={context.timeMode} />
              <ThemeToggle initial={context.theme} />
              <LocaleSwitcher />
            </div>
          </div>
        </header>
        <StaleBanner serverHost={context.serverHost} />
        <main id="main" tabIndex={-1} className="flex-1 px-4 py-6 outline-none md:px-8">
          <ViewOwnerProvider owner={context.auth.person?.user ?? null}>{children}</ViewOwnerProvider>
        </main>
      </div>
      <ShortcutSheet />
    </div>
  );
}
