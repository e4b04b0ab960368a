import type { Metadata } from "next";
import type { ReactNode } from "react";
import { QuerySeeds } from "@/components/providers/query-seeds";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getTranslations } from "next-intl/server";
import { AppShell } from "@/components/shell/app-shell";
import { HydratedFlag } from "@/components/shell/hydrated-flag";
import { ThemeSync } from "@/components/shell/theme-sync";
import { LoadFailure } from "@/components/shell/load-failure";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";
import { QueryProvider } from "@/components/providers/query-provider";
import { getShellContext, shellShown } from "@/lib/server/pages/shell-context";
import { loadShellSeeds } from "@/lib/server/pages/loaders";
import "@/app/globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("meta");
  return {
    title: { default: t("title"), template: t("titleTemplate", { page: "%s" }) },
    description: t("description"),
    // app/icon.svg is linked by Next's file convention; these are the raster fallbacks in public/.
    icons: { shortcut: "/favicon.ico", apple: "/apple-touch-icon.png" },
  };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [locale, context] = await Promise.all([getLocale(), getShellContext()]);
  // The shell's reads start here and stream in with the page; the browser's queries take them.
  const seeds = shellShown(context) ? await loadShellSeeds(context.pageNamespace ?? context.lastNamespace) : undefined;

  return (
    // The head script adds the theme class and color-scheme before paint; React must not fight it.
    <html lang={locale} data-theme-preference={context.theme} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: HEAD_SCRIPT }} />
      </head>
      <body className="min-h-dvh bg-canvas font-sans text-fg antialiased">
        <LoadFailure />
        <NextIntlClientProvider>
          <QueryProvider>
            <QuerySeeds state={seeds}>
              <AppShell context={context}>{children}</AppShell>
            </QuerySeeds>
            <HydratedFlag />
            <ThemeSync />
          </QueryProvider>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
