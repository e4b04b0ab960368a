"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { AttentionIcon, OverviewIcon, RunsIcon, SystemIcon, WorkersIcon } from "@/components/ui/icons";
import { usePageNamespace } from "@/components/hooks/use-page-namespace";
import { screenHref, screenOf } from "@/lib/routes/route-for";
import type { Screen } from "@/lib/routes/route-for";

const ITEMS: { key: Screen; icon: ReactNode }[] = [
  { key: "overview", icon: <OverviewIcon /> },
  { key: "runs", icon: <RunsIcon /> },
  { key: "attention", icon: <AttentionIcon /> },
  { key: "system", icon: <SystemIcon /> },
  { key: "workers", icon: <WorkersIcon /> },
];

/** The screens of the page's namespace (or, off a namespaced page, of the last one used). */
export function PrimaryNav({ lastUsed }: { lastUsed: string }) {
  const t = useTranslations();
  const pathname = usePathname();
  const namespace = usePageNamespace() ?? lastUsed;
  const screen = screenOf(pathname);

  return (
    <nav aria-label={t("shell.primaryNav")} className="min-w-0 overflow-x-auto">
      <ul className="flex gap-1 md:flex-col">
        {ITEMS.map((item) => {
          const active = screen === item.key;
          return (
            <li key={item.key}>
              <Link
                href={screenHref(namespace, item.key)}
                aria-current={active ? "page" : undefined}
                className={`flex items-center gap-2 whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium transition-colors ${
                  active ? "bg-accent-soft text-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg"
                }`}
              >
                {item.icon}
                {t(`nav.${item.key}`)}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
